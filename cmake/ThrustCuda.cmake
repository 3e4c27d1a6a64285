# The Thrust backend on CUDA (STATICFLOW_CUDA=ON): nvcc compiles .cu sources with the toolkit's
# CCCL, C++20, relaxed constexpr (std::numeric_limits and the op tags' constexpr helpers are
# called from device code) and the host compiler's -march. Architectures: STATICFLOW_CUDA_ARCHITECTURES
# (default 80;90), used for every target that links staticflow::cuda.
#
#   staticflow::cuda   staticflow for CUDA translation units
include_guard(GLOBAL)

set(STATICFLOW_CUDA_ARCHITECTURES "80;90" CACHE STRING "CUDA architectures of the CUDA builds")
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  set(CMAKE_CUDA_ARCHITECTURES ${STATICFLOW_CUDA_ARCHITECTURES})
endif()
if(NOT DEFINED CMAKE_CUDA_HOST_COMPILER)
  set(CMAKE_CUDA_HOST_COMPILER "${CMAKE_CXX_COMPILER}")
endif()
enable_language(CUDA)
find_package(CUDAToolkit REQUIRED)

add_library(staticflow_cuda INTERFACE)
add_library(staticflow::cuda ALIAS staticflow_cuda)
# staticflow's usage requirements, with -march handed to the host compiler (nvcc has no -march)
target_include_directories(staticflow_cuda INTERFACE "${PROJECT_SOURCE_DIR}/include")
target_link_libraries(staticflow_cuda INTERFACE xtensor xsimd xtl Boost::headers CUDA::cudart)
target_compile_definitions(staticflow_cuda INTERFACE XTENSOR_USE_XSIMD)
if(NOT STATICFLOW_ARCH STREQUAL "")
  target_compile_options(staticflow_cuda INTERFACE "-Xcompiler=-march=${STATICFLOW_ARCH}")
endif()
if(NOT "cuda_std_20" IN_LIST CMAKE_CUDA_COMPILE_FEATURES)
  # CMake before 3.26 (Debian's 3.25) knows no C++20 level for nvcc and would add its default
  # -std=c++17 after ours: teach it the level, as its own compiler modules do for newer nvcc
  set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
  set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
  set(CMAKE_CUDA20_COMPILE_FEATURES cuda_std_20)
  list(APPEND CMAKE_CUDA_COMPILE_FEATURES cuda_std_20)
endif()
target_compile_features(staticflow_cuda INTERFACE cuda_std_20)
target_compile_options(staticflow_cuda INTERFACE
  "$<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr;-diag-suppress=186,128,20012>")

# NCCL (the CUDA toolkit ships it here): staticflow::nccl for distributed/nccl.hpp.
find_library(STATICFLOW_NCCL_LIBRARY nccl HINTS "${CUDAToolkit_LIBRARY_DIR}")
find_path(STATICFLOW_NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
if(STATICFLOW_NCCL_LIBRARY AND STATICFLOW_NCCL_INCLUDE_DIR)
  add_library(staticflow_nccl INTERFACE)
  add_library(staticflow::nccl ALIAS staticflow_nccl)
  target_link_libraries(staticflow_nccl INTERFACE staticflow::cuda "${STATICFLOW_NCCL_LIBRARY}")
  target_include_directories(staticflow_nccl INTERFACE "${STATICFLOW_NCCL_INCLUDE_DIR}")
endif()
