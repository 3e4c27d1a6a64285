// The CUDA build of ops_suite.cpp (nvcc compiles .cu files as CUDA).
#include "ops_suite.cpp"
