// The CUDA build of collectives_suite.cpp (nvcc compiles .cu files as CUDA).
#include "collectives_suite.cpp"
