// The CUDA build of ops_statistics_suite.cpp (nvcc compiles .cu files as CUDA).
#include "ops_statistics_suite.cpp"
