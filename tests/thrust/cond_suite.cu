// The CUDA build of cond_suite.cpp (nvcc compiles .cu files as CUDA).
#include "cond_suite.cpp"
