# Thrust on host device systems: the CCCL headers (Thrust, CUB, libcu++) that come with the CUDA
# toolkit compile with g++ when THRUST_DEVICE_SYSTEM names a host system.
#
#   staticflow_thrust_found          TRUE when the CCCL headers were found
#   staticflow::thrust_omp           staticflow on THRUST_DEVICE_SYSTEM_OMP (with OpenMP), when found
#   staticflow::thrust_cpp           staticflow on THRUST_DEVICE_SYSTEM_CPP (serial), when found
#
# STATICFLOW_CCCL_INCLUDE_DIR may point at the headers (default: the CUDA toolkit's include/cccl).
# Included from each directory that needs it: the variables are per directory, the targets global.

find_path(STATICFLOW_CCCL_INCLUDE_DIR thrust/version.h
  HINTS "$ENV{CUDA_HOME}/include/cccl" "$ENV{CUDA_PATH}/include/cccl"
  PATHS /usr/local/cuda/include/cccl /usr/local/cuda/include /usr/include
  DOC "Directory holding thrust/, cub/ and cuda/ (CCCL)")

set(staticflow_thrust_found FALSE)
if(STATICFLOW_CCCL_INCLUDE_DIR)
  set(staticflow_thrust_found TRUE)
  foreach(_system IN ITEMS CPP OMP)
    string(TOLOWER "${_system}" _lower)
    set(_tgt staticflow_thrust_${_lower})
    if(NOT TARGET ${_tgt})
      add_library(${_tgt} INTERFACE)
      add_library(staticflow::thrust_${_lower} ALIAS ${_tgt})
      target_link_libraries(${_tgt} INTERFACE staticflow::staticflow)
      # SYSTEM: CCCL's own warnings are not ours
      target_include_directories(${_tgt} SYSTEM INTERFACE "${STATICFLOW_CCCL_INCLUDE_DIR}")
      target_compile_definitions(${_tgt} INTERFACE
        THRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_${_system} STATICFLOW_HAS_THRUST)
    endif()
  endforeach()
  find_package(OpenMP COMPONENTS CXX)
  get_property(_omp_linked GLOBAL PROPERTY STATICFLOW_THRUST_OMP_LINKED)
  if(OpenMP_CXX_FOUND AND NOT _omp_linked)
    target_link_libraries(staticflow_thrust_omp INTERFACE OpenMP::OpenMP_CXX)
    set_property(GLOBAL PROPERTY STATICFLOW_THRUST_OMP_LINKED TRUE)
    message(STATUS "staticflow: Thrust host device systems from ${STATICFLOW_CCCL_INCLUDE_DIR}")
  elseif(NOT OpenMP_CXX_FOUND)
    message(STATUS "staticflow: no OpenMP; the Thrust OMP builds are skipped")
  endif()
else()
  message(STATUS "staticflow: no CCCL headers (thrust/version.h); the Thrust backend's host builds are skipped")
endif()
