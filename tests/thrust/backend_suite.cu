// The CUDA build of backend_suite.cpp (nvcc compiles .cu files as CUDA).
#include "backend_suite.cpp"
