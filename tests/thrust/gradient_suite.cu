// The CUDA build of gradient_suite.cpp (nvcc compiles .cu files as CUDA).
#include "gradient_suite.cpp"
