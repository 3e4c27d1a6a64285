# packaging.install_consumer: install the current build tree into a private
# prefix, then configure, build and run tests/consumer against it with
# find_package(staticflow CONFIG REQUIRED).
#
#   cmake -DSTATICFLOW_BINARY_DIR=<build> -DCONSUMER_SOURCE_DIR=<tests/consumer>
#         -DWORK_DIR=<scratch dir> [-DGENERATOR=Ninja] [-DCXX_COMPILER=g++]
#         [-DBUILD_TYPE=Release] [-DEXPECTED_ARCH=native] -P test_install_consumer.cmake

cmake_minimum_required(VERSION 3.20)

foreach(_v STATICFLOW_BINARY_DIR CONSUMER_SOURCE_DIR WORK_DIR)
  if(NOT ${_v})
    message(FATAL_ERROR "test_install_consumer.cmake: -D${_v}=... is required")
  endif()
endforeach()
if(NOT BUILD_TYPE)
  set(BUILD_TYPE Release)
endif()

set(_prefix "${WORK_DIR}/prefix")
set(_build "${WORK_DIR}/build")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

function(run_step what)
  execute_process(COMMAND ${ARGN}
    RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
  if(NOT _rc EQUAL 0)
    message("${_out}")
    message(FATAL_ERROR "install_consumer: ${what} failed (exit ${_rc})")
  endif()
  message(STATUS "install_consumer: ${what}: ok")
  set(_step_output "${_out}" PARENT_SCOPE)
endfunction()

# 1. install (header-only: nothing to build first)
run_step("cmake --install"
  "${CMAKE_COMMAND}" --install "${STATICFLOW_BINARY_DIR}"
  --prefix "${_prefix}" --config "${BUILD_TYPE}")

# 2. configure the consumer against the private prefix only
set(_cfg "${CMAKE_COMMAND}" -S "${CONSUMER_SOURCE_DIR}" -B "${_build}"
  "-DCMAKE_BUILD_TYPE=${BUILD_TYPE}"
  "-DCMAKE_PREFIX_PATH=${_prefix}"
  "-DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF"
  "-DSTATICFLOW_EXPECTED_ARCH=${EXPECTED_ARCH}")
if(GENERATOR)
  list(APPEND _cfg -G "${GENERATOR}")
endif()
if(CXX_COMPILER)
  list(APPEND _cfg "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}")
endif()
run_step("configure consumer" ${_cfg})
string(FIND "${_step_output}" "staticflow found in: ${_prefix}/" _pos)
if(_pos EQUAL -1)
  message("${_step_output}")
  message(FATAL_ERROR "install_consumer: the consumer did not pick up staticflow from ${_prefix}")
endif()

if(EXISTS "/usr/local/cuda/include/cccl/thrust/version.h")
  string(FIND "${_step_output}" "staticflow Thrust host targets: found" _pos)
  if(_pos EQUAL -1)
    message("${_step_output}")
    message(FATAL_ERROR "install_consumer: the CCCL headers are here, but the installed package did not define the Thrust host targets")
  endif()
endif()

# 3. build and run
run_step("build consumer" "${CMAKE_COMMAND}" --build "${_build}" --config "${BUILD_TYPE}")
find_program(_exe NAMES staticflow_consumer
  PATHS "${_build}" "${_build}/${BUILD_TYPE}" NO_DEFAULT_PATH REQUIRED)
run_step("run consumer" "${_exe}")
string(STRIP "${_step_output}" _result)
message(STATUS "consumer output: ${_result}")
if(NOT _result STREQUAL "7 7")
  message(FATAL_ERROR "install_consumer: expected the consumer to print `7 7`, got `${_result}`")
endif()
message(STATUS "install_consumer: PASSED")
