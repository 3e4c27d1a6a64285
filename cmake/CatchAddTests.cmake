# Distributed under the OSI-approved BSD 3-Clause License.  See accompanying
# file Copyright.txt or https://cmake.org/licensing for details.
#
# staticflow's copy of Catch2 v2's CatchAddTests.cmake (the post-build test
# discovery script behind catch_discover_tests), used by tests/CMakeLists.txt
# through _CATCH_DISCOVER_TESTS_SCRIPT. Differences from upstream 2.13.10:
#  * test names containing `;` are kept whole (upstream splits them into two
#    CTest tests that match nothing and silently pass);
#  * `\`, `*` and `"` in names are escaped for Catch's test-spec parser, on top
#    of upstream's `,`, `[` and `]`;
#  * every test runs with `-w NoTests`, so a name that no longer selects any
#    test case FAILS instead of passing without running anything.

set(prefix "${TEST_PREFIX}")
set(suffix "${TEST_SUFFIX}")
set(spec ${TEST_SPEC})
set(extra_args ${TEST_EXTRA_ARGS})
set(properties ${TEST_PROPERTIES})
set(reporter ${TEST_REPORTER})
set(output_dir ${TEST_OUTPUT_DIR})
set(output_prefix ${TEST_OUTPUT_PREFIX})
set(output_suffix ${TEST_OUTPUT_SUFFIX})
set(script)
set(tests)

# Stand-in for `;` while test names travel through CMake lists.
string(ASCII 31 _semi)

function(add_command NAME)
  set(_args "")
  math(EXPR _last_arg ${ARGC}-1)
  foreach(_n RANGE 1 ${_last_arg})
    set(_arg "${ARGV${_n}}")
    string(REPLACE "${_semi}" ";" _arg "${_arg}")
    if(_arg MATCHES "[^-./:a-zA-Z0-9_]")
      set(_args "${_args} [==[${_arg}]==]") # form a bracket_argument
    else()
      set(_args "${_args} ${_arg}")
    endif()
  endforeach()
  set(script "${script}${NAME}(${_args})\n" PARENT_SCOPE)
endfunction()

if(NOT EXISTS "${TEST_EXECUTABLE}")
  message(FATAL_ERROR "Specified test executable '${TEST_EXECUTABLE}' does not exist")
endif()
execute_process(
  COMMAND ${TEST_EXECUTOR} "${TEST_EXECUTABLE}" ${spec} --list-test-names-only
  OUTPUT_VARIABLE output
  RESULT_VARIABLE result
  WORKING_DIRECTORY "${TEST_WORKING_DIR}")
# Catch --list-test-names-only returns the number of tests
if("${result}" EQUAL 0)
  message(WARNING "Test executable '${TEST_EXECUTABLE}' contains no tests!\n")
elseif(NOT "${result}" MATCHES "^[0-9]+$" OR "${result}" LESS 0)
  message(FATAL_ERROR
    "Error running test executable '${TEST_EXECUTABLE}':\n"
    "  Result: ${result}\n"
    "  Output: ${output}\n")
endif()

string(REPLACE ";" "${_semi}" output "${output}")
string(REPLACE "\n" ";" output "${output}")

if(reporter)
  set(reporter_arg "--reporter ${reporter}")
endif()
if(output_dir AND NOT IS_ABSOLUTE ${output_dir})
  set(output_dir "${TEST_WORKING_DIR}/${output_dir}")
  if(NOT EXISTS ${output_dir})
    file(MAKE_DIRECTORY ${output_dir})
  endif()
endif()

foreach(line IN LISTS output)
  if(line STREQUAL "")
    continue()
  endif()
  set(test "${line}")
  # Escape the characters Catch's test-spec parser treats specially.
  set(test_name "${test}")
  foreach(char "\\" "," "[" "]" "*" "\"")
    string(REPLACE "${char}" "\\${char}" test_name "${test_name}")
  endforeach()
  if(output_dir)
    string(REGEX REPLACE "[^A-Za-z0-9_]" "_" test_name_clean "${test_name}")
    set(output_dir_arg "--out ${output_dir}/${output_prefix}${test_name_clean}${output_suffix}")
  endif()

  add_command(add_test
    "${prefix}${test}${suffix}"
    ${TEST_EXECUTOR}
    "${TEST_EXECUTABLE}"
    "${test_name}"
    -w NoTests
    ${extra_args}
    "${reporter_arg}"
    "${output_dir_arg}")
  add_command(set_tests_properties
    "${prefix}${test}${suffix}"
    PROPERTIES
    WORKING_DIRECTORY "${TEST_WORKING_DIR}"
    ${properties})
  list(APPEND tests "${prefix}${test}${suffix}")
endforeach()

add_command(set ${TEST_LIST} ${tests})

file(WRITE "${CTEST_FILE}" "${script}")
