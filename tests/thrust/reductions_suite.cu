// The CUDA build of reductions_suite.cpp (nvcc compiles .cu files as CUDA).
#include "reductions_suite.cpp"
