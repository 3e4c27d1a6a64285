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
# each without, 0.7 s with). Without the .gch (ctest before a build) GCC parses the header.

include_guard(GLOBAL)

set(_STATICFLOW_COMPILE_FAIL_DRIVER "${CMAKE_CURRENT_LIST_DIR}/run_compile_fail.cmake")

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
    add_custom_command(OUTPUT "${_pch}.gch"
      COMMAND "${CMAKE_COMMAND}" ${_driver_args} "-DSOURCE=${_pch}" -DEXPECT=pch
              -P "${_STATICFLOW_COMPILE_FAIL_DRIVER}"
      DEPENDS "${_pch}" "${_STATICFLOW_COMPILE_FAIL_DRIVER}"
      IMPLICIT_DEPENDS CXX "${_pch}"
      COMMENT "Precompiling staticflow.hpp for the compile-fail tests (${arg_TARGET})"
      VERBATIM)
    add_custom_target(staticflow_compile_fail_pch_${arg_TARGET} ALL DEPENDS "${_pch}.gch")
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

#   staticflow_add_syntax_check(<test-name> <source> TARGETS <tgt>... [OPTIONS <flag>...] [COMPILER <cxx>])
#
# A CTest test that passes when <source> compiles (-fsyntax-only) with the usage requirements of
# the given targets and the OPTIONS (for targets whose options only a build can evaluate, such as
# OpenMP's `$<COMPILE_LANGUAGE:CXX>`), compiled by COMPILER (default: the build's): a source that
# the build does not compile (the benchmarks, in the build that `make test` makes) still cannot rot
# unnoticed, and a second compiler's front end is checked on the sources that matter to it.
function(staticflow_add_syntax_check test_name source)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "COMPILER" "TARGETS;OPTIONS")
  if(NOT arg_COMPILER)
    set(arg_COMPILER "${CMAKE_CXX_COMPILER}")
  endif()
  set(_incs "")
  set(_defs "")
  set(_opts "")
  foreach(_t IN LISTS arg_TARGETS)
    string(APPEND _incs "$<TARGET_PROPERTY:${_t},INTERFACE_INCLUDE_DIRECTORIES>;")
    string(APPEND _defs "$<TARGET_PROPERTY:${_t},INTERFACE_COMPILE_DEFINITIONS>;")
    string(APPEND _opts "$<TARGET_PROPERTY:${_t},INTERFACE_COMPILE_OPTIONS>;")
  endforeach()
  foreach(_o IN LISTS arg_OPTIONS)
    string(APPEND _opts "${_o};")
  endforeach()
  add_test(NAME ${test_name}
    COMMAND "${CMAKE_COMMAND}"
      "-DCXX=${arg_COMPILER}"
      "-DSOURCE=${source}"
      "-DSTD=-std=c++20"
      "-DINCLUDES=${_incs}"
      "-DDEFINES=${_defs}"
      "-DOPTIONS=${_opts}"
      "-DIMPLICIT_INCLUDES=${CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES}"
      -DEXPECT=success
      -P "${_STATICFLOW_COMPILE_FAIL_DRIVER}")
  set_tests_properties(${test_name} PROPERTIES LABELS syntax TIMEOUT 900)
endfunction()
