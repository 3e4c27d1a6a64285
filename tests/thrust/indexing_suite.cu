// The CUDA build of indexing_suite.cpp (nvcc compiles .cu files as CUDA).
#include "indexing_suite.cpp"
