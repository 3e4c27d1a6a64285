# packaging.readme: runs the Conan commands of README.md exactly as they are written there.
#
# README marks its blocks with `<!-- packaging.readme: NAME -->` on the line before the fence:
#   create          shell lines run in a copy of the source tree (conan config install, conan create)
#   CMakeLists.txt  a consumer project's CMakeLists.txt, written as it is
#   conanfile.txt   the consumer's conanfile.txt, written as it is
#   consumer        shell lines run in the consumer project (conan install, cmake presets, the app)
# The consumer's main.cpp is tests/consumer/main.cpp (it prints `7 7`). Conan runs in a fresh
# CONAN_HOME under WORK_DIR with no remote at all: everything comes from the Debian profile.
#
#   cmake -DSOURCE_DIR=<repo> -DWORK_DIR=<scratch dir> -P test_readme_packaging.cmake
cmake_minimum_required(VERSION 3.20)

foreach(_v SOURCE_DIR WORK_DIR)
  if(NOT ${_v})
    message(FATAL_ERROR "test_readme_packaging.cmake: -D${_v}=... is required")
  endif()
endforeach()

file(READ "${SOURCE_DIR}/README.md" _readme)

# The text of the fenced block after `<!-- packaging.readme: NAME -->` (string operations, not
# lists: README's lines hold `;` and unbalanced `[`).
function(readme_block name out)
  string(FIND "${_readme}" "<!-- packaging.readme: ${name} -->\n" _at)
  if(_at EQUAL -1)
    message(FATAL_ERROR "readme_packaging: README.md has no block marked `<!-- packaging.readme: ${name} -->`")
  endif()
  string(SUBSTRING "${_readme}" ${_at} -1 _rest)
  string(FIND "${_rest}" "\n```" _open)
  math(EXPR _open "${_open} + 1")
  string(SUBSTRING "${_rest}" ${_open} -1 _rest)
  string(FIND "${_rest}" "\n" _eol)
  math(EXPR _eol "${_eol} + 1")
  string(SUBSTRING "${_rest}" ${_eol} -1 _rest)
  string(FIND "${_rest}" "```" _close)
  if(_close EQUAL -1)
    message(FATAL_ERROR "readme_packaging: the block `${name}` of README.md is not closed")
  endif()
  string(SUBSTRING "${_rest}" 0 ${_close} _body)
  set(${out} "${_body}" PARENT_SCOPE)
endfunction()

function(run_lines block dir)
  readme_block(${block} _text)
  string(REPLACE "\n" ";" _lines "${_text}")
  foreach(_line IN LISTS _lines)
    if(_line STREQUAL "" OR _line MATCHES "^#")
      continue()
    endif()
    message(STATUS "readme_packaging: (${block}) $ ${_line}")
    execute_process(COMMAND bash -c "${_line}" WORKING_DIRECTORY "${dir}"
      RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
    if(NOT _rc EQUAL 0)
      message("${_out}")
      message(FATAL_ERROR "readme_packaging: `${_line}` failed (exit ${_rc})")
    endif()
    set(_last_output "${_out}")
    set(_all_output "${_all_output}${_out}")
  endforeach()
  set(last_output "${_last_output}" PARENT_SCOPE)
  set(all_output "${_all_output}" PARENT_SCOPE)
endfunction()

function(write_block block file)
  readme_block(${block} _text)
  file(WRITE "${file}" "${_text}")
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
set(_source "${WORK_DIR}/staticflow")
set(_consumer "${WORK_DIR}/app")
file(MAKE_DIRECTORY "${_source}" "${_consumer}" "${WORK_DIR}/conan-home")

# A copy of what a clone holds for packaging (no build trees of the source checkout)
foreach(_item include cmake conan test_package conanfile.py CMakeLists.txt README.md)
  if(IS_DIRECTORY "${SOURCE_DIR}/${_item}")
    file(COPY "${SOURCE_DIR}/${_item}" DESTINATION "${_source}" PATTERN "build" EXCLUDE PATTERN "CMakeUserPresets.json" EXCLUDE)
  else()
    file(COPY "${SOURCE_DIR}/${_item}" DESTINATION "${_source}")
  endif()
endforeach()
file(GLOB _licenses "${SOURCE_DIR}/LICENSE*")
if(_licenses)
  file(COPY ${_licenses} DESTINATION "${_source}")
endif()

set(ENV{CONAN_HOME} "${WORK_DIR}/conan-home")
set(ENV{CONAN_NON_INTERACTIVE} 1)
set(ENV{NO_COLOR} 1)
file(WRITE "${WORK_DIR}/conan-home/remotes.json" "{\"remotes\": []}\n")  # offline: no remote at all
file(WRITE "${WORK_DIR}/conan-home/global.conf" "core:non_interactive=True\n")

run_lines(create "${_source}")
if(NOT all_output MATCHES "test_package output: 7 7")
  message("${all_output}")
  message(FATAL_ERROR "readme_packaging: conan create's test_package did not print `7 7`")
endif()
if(EXISTS "/usr/local/cuda/include/cccl/thrust/version.h" AND NOT all_output MATCHES "staticflow Thrust host targets: found")
  message("${all_output}")
  message(FATAL_ERROR "readme_packaging: the CCCL headers are here, but the package did not define the Thrust host targets")
endif()

write_block(CMakeLists.txt "${_consumer}/CMakeLists.txt")
write_block(conanfile.txt "${_consumer}/conanfile.txt")
configure_file("${SOURCE_DIR}/tests/consumer/main.cpp" "${_consumer}/main.cpp" COPYONLY)
run_lines(consumer "${_consumer}")
string(STRIP "${last_output}" _result)
if(NOT _result STREQUAL "7 7")
  message(FATAL_ERROR "readme_packaging: the app printed `${_result}`, not `7 7`")
endif()
message(STATUS "readme_packaging: PASSED")
