// The CUDA build of data_suite.cpp (nvcc compiles .cu files as CUDA).
#include "data_suite.cpp"
