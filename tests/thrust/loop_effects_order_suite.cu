// The CUDA build of loop_effects_order_suite.cpp (nvcc compiles .cu files as CUDA).
#include "loop_effects_order_suite.cpp"
