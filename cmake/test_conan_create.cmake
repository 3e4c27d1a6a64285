# packaging.conan_create: `conan create` of the source tree with the Debian
# profile (dependencies from [platform_requires]), in a private CONAN_HOME
# inside the build tree and without any remote (hermetic, offline).
#
#   cmake -DCONAN=<conan> -DSOURCE_DIR=<repo> -DWORK_DIR=<scratch dir>
#         [-DARCH=native] -P test_conan_create.cmake

cmake_minimum_required(VERSION 3.20)

foreach(_v CONAN SOURCE_DIR WORK_DIR)
  if(NOT ${_v})
    message(FATAL_ERROR "test_conan_create.cmake: -D${_v}=... is required")
  endif()
endforeach()

set(_home "${WORK_DIR}/conan-home")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${_home}")
set(ENV{CONAN_HOME} "${_home}")
set(ENV{CONAN_NON_INTERACTIVE} 1)
set(ENV{NO_COLOR} 1)

# No remotes at all: every dependency comes from [platform_requires].
file(WRITE "${_home}/remotes.json" "{\"remotes\": []}\n")
file(WRITE "${_home}/global.conf" "core:non_interactive=True\n")

set(_arch_opt)
if(DEFINED ARCH)
  if(ARCH STREQUAL "")
    set(_arch_opt "-o:h" "staticflow/*:arch=None")
  else()
    set(_arch_opt "-o:h" "staticflow/*:arch=${ARCH}")
  endif()
endif()

set(_cmd "${CONAN}" create "${SOURCE_DIR}"
  --profile:all "${SOURCE_DIR}/conan/profile-debian"
  --build=missing --no-remote ${_arch_opt}
  # keep the test_package build (and its presets) out of the source tree
  -c "tools.cmake.cmake_layout:test_folder=${WORK_DIR}/test_package_build"
  -c "tools.cmake.cmaketoolchain:user_presets=")
list(JOIN _cmd " " _cmdline)
message(STATUS "conan_create: ${_cmdline}")
execute_process(COMMAND ${_cmd}
  WORKING_DIRECTORY "${WORK_DIR}"
  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
message("${_out}")
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "conan_create: `conan create` failed (exit ${_rc})")
endif()
if(NOT _out MATCHES "test_package output: 7 7")
  message(FATAL_ERROR "conan_create: the test_package did not print `7 7`")
endif()
message(STATUS "conan_create: PASSED")
