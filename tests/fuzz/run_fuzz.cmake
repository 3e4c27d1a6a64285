# fuzz.*: builds a libFuzzer target with clang (-fsanitize=fuzzer,address,undefined) and runs it
# on RUNS generated inputs from a copy of its seed corpus, with a fixed seed (deterministic).
#
#   cmake -DCLANG=<clang++> -DSOURCE=<target.cpp> -DCORPUS=<seed dir> -DWORK_DIR=<scratch>
#         -DRUNS=<n> "-DFLAGS=<-I...|-D...|...>" -P run_fuzz.cmake
cmake_minimum_required(VERSION 3.20)
foreach(_v CLANG SOURCE CORPUS WORK_DIR RUNS)
  if(NOT ${_v})
    message(FATAL_ERROR "run_fuzz.cmake: -D${_v}=... is required")
  endif()
endforeach()

string(REPLACE "|" ";" FLAGS "${FLAGS}")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}/corpus")
file(GLOB _seeds "${CORPUS}/*")
file(COPY ${_seeds} DESTINATION "${WORK_DIR}/corpus")  # libFuzzer adds what it finds to its corpus

get_filename_component(_name "${SOURCE}" NAME_WE)
set(_exe "${WORK_DIR}/${_name}")
# -g1 (line tables: all a crash report needs) and the hot path's inlining left to the compiler
# (STATICFLOW_FORCE_INLINE=0, as the unit tests): tensor_dispatch's build 64 -> 37 CPU s, same runs.
execute_process(
  COMMAND "${CLANG}" -std=c++20 -g1 -O1 -DSTATICFLOW_FORCE_INLINE=0 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all ${FLAGS}
          "${SOURCE}" -o "${_exe}"
  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
if(NOT _rc EQUAL 0)
  message("${_out}")
  message(FATAL_ERROR "fuzz: building ${SOURCE} with ${CLANG} failed (needs clang and libclang-rt: make deps)")
endif()

execute_process(
  COMMAND "${_exe}" -runs=${RUNS} -seed=1 -max_len=4096 -timeout=20 -print_final_stats=1 "${WORK_DIR}/corpus"
  WORKING_DIRECTORY "${WORK_DIR}"
  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
string(REGEX MATCH "stat::number_of_executed_units: *[0-9]+" _units "${_out}")
message(STATUS "fuzz: ${_name}: ${_units}")
if(NOT _rc EQUAL 0)
  message("${_out}")
  message(FATAL_ERROR "fuzz: ${_name} found a failing input (exit ${_rc}); it is in ${WORK_DIR} (crash-*)")
endif()
message(STATUS "fuzz: ${_name}: PASSED")
