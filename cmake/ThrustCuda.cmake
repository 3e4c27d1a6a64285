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
target_compile_features(staticflow_cuda INTERFACE cuda_std_20)
target_compile_options(staticflow_cuda INTERFACE
  "$<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr;-diag-suppress=186,128,20012>")
