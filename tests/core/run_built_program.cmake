# Builds SOURCE with the compiler CXX and FLAGS ("|"-separated: one argument through ctest), then
# runs it; the test fails when either step does (a program that compiles but does not link or
# run with that compiler).
#
#   cmake -DCXX=<compiler> -DSOURCE=<program.cpp> -DEXE=<output> "-DFLAGS=<-I...|-D...|...>" -P run_built_program.cmake
cmake_minimum_required(VERSION 3.20)
foreach(_v CXX SOURCE EXE)
  if(NOT ${_v})
    message(FATAL_ERROR "run_built_program.cmake: -D${_v}=... is required")
  endif()
endforeach()
string(REPLACE "|" ";" FLAGS "${FLAGS}")
execute_process(COMMAND "${CXX}" ${FLAGS} "${SOURCE}" -o "${EXE}"
                RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
if(NOT _rc EQUAL 0)
  message("${_out}")
  message(FATAL_ERROR "building ${SOURCE} with ${CXX} failed")
endif()
execute_process(COMMAND "${EXE}" RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
message("${_out}")
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "${EXE} exited with ${_rc}")
endif()
