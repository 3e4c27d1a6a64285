# CompileFail.cmake
#
#   staticflow_add_compile_fail_tests(<dir> [TARGET <tgt>])
#
# Every <dir>/*.cpp becomes a CTest test `compile_fail.<name>` (LABELS
# compile_fail). The test runs the C++ compiler in -fsyntax-only mode with the
# usage requirements of <tgt> (default: staticflow) and PASSES only if the
# compilation FAILS and the compiler output matches the regular expression in
# the file's first line, written as
#
#   // expect: <regex>
#
# The work is done by run_compile_fail.cmake (cmake -P) at test time; no
# `cmake --build` is involved, so the tests are safe under `ctest -jN`. The build
# precompiles <staticflow/staticflow.hpp> once per <tgt> with the tests' flags (target
# staticflow_compile_fail_pch_<tgt>, part of ALL), and every test includes it first: each
# test then costs its own instantiations, not a parse of the library (98 tests: about 2.2 s
# each without, 0.7 s with). Without a current .gch (ctest before a build, or after an edit of
# a header without one) a test compiles its source alone.

include_guard(GLOBAL)

set(_STATICFLOW_COMPILE_FAIL_DRIVER "${CMAKE_CURRENT_LIST_DIR}/run_compile_fail.cmake")

# Precompiles <header> into <header>.gch through the driver, given the tests' driver arguments
# (ARGN), so that its flags are the tests' flags; target <target>, part of ALL. The depfile
# rebuilds it when a header it includes changes (IMPLICIT_DEPENDS does that for Makefiles only,
# not for Ninja, the presets' generator); the driver also reads it to skip a .gch older than
# its headers.
function(_staticflow_add_pch target header comment)
  add_custom_command(OUTPUT "${header}.gch"
    COMMAND "${CMAKE_COMMAND}" ${ARGN} "-DSOURCE=${header}" -DEXPECT=pch
            -P "${_STATICFLOW_COMPILE_FAIL_DRIVER}"
    DEPENDS "${header}" "${_STATICFLOW_COMPILE_FAIL_DRIVER}"
    DEPFILE "${header}.gch.d"
    COMMENT "${comment}"
    VERBATIM)
  add_custom_target(${target} ALL DEPENDS "${header}.gch")
endfunction()

function(staticflow_add_compile_fail_tests dir)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "TARGET" "")
  if(NOT arg_TARGET)
    set(arg_TARGET staticflow)
  endif()
  if(NOT IS_ABSOLUTE "${dir}")
    set(dir "${CMAKE_CURRENT_SOURCE_DIR}/${dir}")
  endif()

  file(GLOB _sources CONFIGURE_DEPENDS "${dir}/*.cpp")
  list(SORT _sources)

  # Usage requirements of the target, evaluated transitively at generate time.
  set(_incs "$<TARGET_PROPERTY:${arg_TARGET},INTERFACE_INCLUDE_DIRECTORIES>")
  set(_defs "$<TARGET_PROPERTY:${arg_TARGET},INTERFACE_COMPILE_DEFINITIONS>")
  set(_opts "$<TARGET_PROPERTY:${arg_TARGET},INTERFACE_COMPILE_OPTIONS>")

  # the precompiled header, built by the driver itself so that its flags are the tests' flags
  set(_pch_dir "${CMAKE_CURRENT_BINARY_DIR}/compile_fail_pch/${arg_TARGET}")
  set(_pch "${_pch_dir}/staticflow_all.hpp")
  file(CONFIGURE OUTPUT "${_pch}" CONTENT "#include <staticflow/staticflow.hpp>\n" @ONLY)
  # (a list inside one argument of a list: its separators as $<SEMICOLON>, read back at generation)
  string(REPLACE ";" "$<SEMICOLON>" _implicit "${CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES}")
  set(_driver_args
    "-DCXX=${CMAKE_CXX_COMPILER}"
    "-DSTD=-std=c++20"
    "-DINCLUDES=${_incs}"
    "-DDEFINES=${_defs}"
    "-DOPTIONS=${_opts}"
    "-DIMPLICIT_INCLUDES=${_implicit}")
  if(NOT TARGET staticflow_compile_fail_pch_${arg_TARGET})
    _staticflow_add_pch(staticflow_compile_fail_pch_${arg_TARGET} "${_pch}"
      "Precompiling staticflow.hpp for the compile-fail tests (${arg_TARGET})" ${_driver_args})
  endif()

  foreach(_src IN LISTS _sources)
    get_filename_component(_name "${_src}" NAME_WE)
    file(STRINGS "${_src}" _first LIMIT_COUNT 1)
    if(NOT _first MATCHES "^[ \t]*//[ \t]*expect:[ \t]*(.+)$")
      message(WARNING
        "${_src}: the first line should be `// expect: <regex>` (got: `${_first}`); the test will fail")
    endif()
    add_test(NAME compile_fail.${_name}
      COMMAND "${CMAKE_COMMAND}" ${_driver_args} "-DSOURCE=${_src}" "-DPCH=${_pch}"
        -P "${_STATICFLOW_COMPILE_FAIL_DRIVER}")
    set_tests_properties(compile_fail.${_name} PROPERTIES
      LABELS compile_fail
      TIMEOUT 300)
  endforeach()
endfunction()

#   staticflow_add_syntax_check(<test-name> <source> TARGETS <tgt>... [OPTIONS <flag>...] [COMPILER <cxx>]
#                               [PCH_HEADERS <header>...])
#
# A CTest test that passes when <source> compiles (-fsyntax-only) with the usage requirements of
# the given targets and the OPTIONS (for targets whose options only a build can evaluate, such as
# OpenMP's `$<COMPILE_LANGUAGE:CXX>`), compiled by COMPILER (default: the build's): a source that
# the build does not compile (the benchmarks, in the build that `make test` makes) still cannot rot
# unnoticed, and a second compiler's front end is checked on the sources that matter to it.
#
# PCH_HEADERS (names as in `#include <...>`): the build precompiles a header that includes them,
# once per distinct TARGETS, OPTIONS and PCH_HEADERS (target staticflow_syntax_pch_<hash>, part of
# ALL), and the test includes it first, as the compile-fail tests do. Only for GCC compiling with
# the build's compiler (clang 14 crashes on such a PCH here): with another, the option is ignored.
function(staticflow_add_syntax_check test_name source)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "COMPILER" "TARGETS;OPTIONS;PCH_HEADERS")
  set(_use_pch FALSE)
  if(arg_PCH_HEADERS AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU"
     AND (NOT arg_COMPILER OR arg_COMPILER STREQUAL CMAKE_CXX_COMPILER))
    set(_use_pch TRUE)
  endif()
  if(NOT arg_COMPILER)
    set(arg_COMPILER "${CMAKE_CXX_COMPILER}")
  endif()
  # (lists inside one argument of the list _driver_args: their separators as $<SEMICOLON>)
  set(_incs "")
  set(_defs "")
  set(_opts "")
  foreach(_t IN LISTS arg_TARGETS)
    string(APPEND _incs "$<TARGET_PROPERTY:${_t},INTERFACE_INCLUDE_DIRECTORIES>$<SEMICOLON>")
    string(APPEND _defs "$<TARGET_PROPERTY:${_t},INTERFACE_COMPILE_DEFINITIONS>$<SEMICOLON>")
    string(APPEND _opts "$<TARGET_PROPERTY:${_t},INTERFACE_COMPILE_OPTIONS>$<SEMICOLON>")
  endforeach()
  foreach(_o IN LISTS arg_OPTIONS)
    string(APPEND _opts "${_o}$<SEMICOLON>")
  endforeach()
  string(REPLACE ";" "$<SEMICOLON>" _implicit "${CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES}")
  set(_driver_args
    "-DCXX=${arg_COMPILER}"
    "-DSTD=-std=c++20"
    "-DINCLUDES=${_incs}"
    "-DDEFINES=${_defs}"
    "-DOPTIONS=${_opts}"
    "-DIMPLICIT_INCLUDES=${_implicit}")

  set(_pch_arg "")
  if(_use_pch)
    # the same flags give the same hash, hence one PCH for all the tests that share them
    string(SHA1 _key "${arg_TARGETS}|${arg_OPTIONS}|${arg_PCH_HEADERS}")
    string(SUBSTRING "${_key}" 0 10 _key)
    set(_pch "${CMAKE_BINARY_DIR}/syntax_pch/${_key}/syntax_pch.hpp")
    if(NOT TARGET staticflow_syntax_pch_${_key})
      set(_content "")
      foreach(_h IN LISTS arg_PCH_HEADERS)
        string(APPEND _content "#include <${_h}>\n")
      endforeach()
      file(CONFIGURE OUTPUT "${_pch}" CONTENT "${_content}" @ONLY)
      _staticflow_add_pch(staticflow_syntax_pch_${_key} "${_pch}"
        "Precompiling the headers of the syntax checks such as ${test_name}" ${_driver_args})
    endif()
    set(_pch_arg "-DPCH=${_pch}")
  endif()

  add_test(NAME ${test_name}
    COMMAND "${CMAKE_COMMAND}" ${_driver_args} "-DSOURCE=${source}" ${_pch_arg} -DEXPECT=success
      -P "${_STATICFLOW_COMPILE_FAIL_DRIVER}")
  # (every syntax check of tests/CMakeLists.txt is one of `make test-extended`'s, session 52)
  set_tests_properties(${test_name} PROPERTIES LABELS "syntax;extended" TIMEOUT 900)
endfunction()
