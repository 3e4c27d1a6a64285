# Driver for the compile-fail tests (see CompileFail.cmake). Run as
#
#   cmake -DCXX=<compiler> -DSOURCE=<file.cpp> [-DSTD=-std=c++20]
#         [-DINCLUDES=<dirs>] [-DDEFINES=<defs>] [-DOPTIONS=<flags>]
#         [-DIMPLICIT_INCLUDES=<dirs>] [-DPCH=<header>] [-DEXPECT=success|pch]
#         -P run_compile_fail.cmake
#
# Succeeds only when the compiler FAILS on SOURCE with one `error:` line, which carries staticflow's
# message, and its output matches the regex given on SOURCE's first line as `// expect: <regex>`.
# With -DEXPECT=success it is a syntax check instead (the benchmarks' sources in a build that does
# not build them): it succeeds when SOURCE compiles (-fsyntax-only). With -DEXPECT=pch it
# precompiles the header SOURCE into SOURCE.gch with the same flags, and with -DPCH=<header> a test
# includes that header first (-include): GCC then reads the .gch instead of parsing staticflow's
# headers again (2.2 s -> 0.7 s a test), or the header itself where the .gch was built with other
# flags. A .gch that is missing or older than a header it was built from (its depfile, SOURCE.gch.d)
# is not used: GCC checks a .gch's flags, not its headers' contents. (The sources include what they
# use: without the PCH they compile alone.)

cmake_minimum_required(VERSION 3.20)

foreach(_v CXX SOURCE)
  if(NOT DEFINED ${_v} OR "${${_v}}" STREQUAL "")
    message(FATAL_ERROR "run_compile_fail.cmake: -D${_v}=... is required")
  endif()
endforeach()
if(NOT DEFINED STD)
  set(STD -std=c++20)
endif()

file(STRINGS "${SOURCE}" _first LIMIT_COUNT 1)
string(REGEX REPLACE "[\r\n]+$" "" _first "${_first}")
if(EXPECT STREQUAL "success" OR EXPECT STREQUAL "pch")
  set(_first "// expect: (none: a syntax check)")
endif()
if(NOT _first MATCHES "^[ \t]*//[ \t]*expect:[ \t]*(.+)$")
  message(FATAL_ERROR
    "${SOURCE}: the first line must be `// expect: <regex>` (got: `${_first}`)")
endif()
set(_expect "${CMAKE_MATCH_1}")
string(REGEX REPLACE "[ \t]+$" "" _expect "${_expect}")

if(EXPECT STREQUAL "pch")
  set(_args "${STD}" -fdiagnostics-color=never)
else()
  set(_args "${STD}" -fsyntax-only -fdiagnostics-color=never)
endif()
foreach(_d IN LISTS INCLUDES)
  if(_d STREQUAL "" OR _d IN_LIST IMPLICIT_INCLUDES)
    continue()   # never -I the implicit dirs (breaks #include_next in libstdc++)
  endif()
  list(APPEND _args "-I${_d}")
endforeach()
list(REMOVE_DUPLICATES DEFINES)
foreach(_d IN LISTS DEFINES)
  if(NOT _d STREQUAL "")
    list(APPEND _args "-D${_d}")
  endif()
endforeach()
list(REMOVE_DUPLICATES OPTIONS)
foreach(_o IN LISTS OPTIONS)
  if(NOT _o STREQUAL "")
    list(APPEND _args "${_o}")
  endif()
endforeach()
if(EXPECT STREQUAL "pch")
  list(APPEND _args -MD -MF "${SOURCE}.gch.d" -x c++-header "${SOURCE}" -o "${SOURCE}.gch")
else()
  if(DEFINED PCH AND NOT PCH STREQUAL "")
    set(_pch_ok FALSE)
    if(EXISTS "${PCH}.gch" AND EXISTS "${PCH}.gch.d")
      file(READ "${PCH}.gch.d" _deps)
      string(REGEX REPLACE "^[^:]*:" "" _deps "${_deps}")   # the rule's target, the .gch
      string(REPLACE "\\\n" " " _deps "${_deps}")
      string(REGEX REPLACE "[ \t\r\n]+" ";" _deps "${_deps}")
      set(_pch_ok TRUE)
      foreach(_f IN LISTS _deps)   # (IS_NEWER_THAN: also where _f is gone)
        if(NOT _f STREQUAL "" AND "${_f}" IS_NEWER_THAN "${PCH}.gch")
          set(_pch_ok FALSE)
          message(STATUS "${PCH}.gch is older than ${_f}: not used")
          break()
        endif()
      endforeach()
    endif()
    if(_pch_ok)
      list(APPEND _args -include "${PCH}")
    endif()
  endif()
  list(APPEND _args "${SOURCE}")
endif()

# Plain ASCII diagnostics whatever the caller's locale.
set(ENV{LC_ALL} C)
set(ENV{LANG} C)

list(JOIN _args " " _cmdline)
execute_process(
  COMMAND "${CXX}" ${_args}
  RESULT_VARIABLE _rc
  OUTPUT_VARIABLE _out
  ERROR_VARIABLE _out)

get_filename_component(_name "${SOURCE}" NAME)
if(EXPECT STREQUAL "pch")
  if(NOT _rc EQUAL 0)
    message("${_out}")
    message(FATAL_ERROR "precompiling ${_name} FAILED (exit ${_rc})\n  command: ${CXX} ${_cmdline}")
  endif()
  return()
endif()
if(EXPECT STREQUAL "success")
  if(NOT _rc EQUAL 0)
    message("${_out}")
    message(FATAL_ERROR "syntax check ${_name}: compilation FAILED (exit ${_rc})\n  command: ${CXX} ${_cmdline}")
  endif()
  message(STATUS "syntax check ${_name}: compiles")
  return()
endif()
if(_rc EQUAL 0)
  message("${_out}")
  message(FATAL_ERROR
    "compile-fail test ${_name}: compilation SUCCEEDED but was expected to fail\n"
    "  expected diagnostic: ${_expect}\n"
    "  command: ${CXX} ${_cmdline}")
endif()
if(NOT _out MATCHES "${_expect}")
  message("---- compiler output ----\n${_out}\n-------------------------")
  message(FATAL_ERROR
    "compile-fail test ${_name}: compilation failed (exit ${_rc}) but the output "
    "does not match the expected regex\n"
    "  expected diagnostic: ${_expect}\n"
    "  command: ${CXX} ${_cmdline}")
endif()
# One mistake, one error (issue 19): the first `error:` line is staticflow's and no other follows
# (the compiler's own cascades -- a second copy from the eager path, a result of the wrong type --
# are what the checks are written to prevent).
string(REGEX MATCHALL ": error: " _errors "${_out}")
list(LENGTH _errors _error_count)
string(FIND "${_out}" ": error: " _first_error)
string(SUBSTRING "${_out}" ${_first_error} -1 _first_error_line)
string(REGEX REPLACE "\n.*" "" _first_error_line "${_first_error_line}")
if(NOT _error_count EQUAL 1 OR NOT _first_error_line MATCHES "staticflow")
  message("---- compiler output ----\n${_out}\n-------------------------")
  message(FATAL_ERROR
    "compile-fail test ${_name}: ${_error_count} `error:` lines, the first ${_first_error_line}; wanted one, "
    "carrying staticflow's message\n  command: ${CXX} ${_cmdline}")
endif()
message(STATUS "compile-fail test ${_name}: failed to compile as expected (one error line, matching `${_expect}`)")
