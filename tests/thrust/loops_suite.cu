// The CUDA build of loops_suite.cpp (nvcc compiles .cu files as CUDA).
#include "loops_suite.cpp"
