// The CUDA build of loop_effects_combinators_suite.cpp (nvcc compiles .cu files as CUDA).
#include "loop_effects_combinators_suite.cpp"
