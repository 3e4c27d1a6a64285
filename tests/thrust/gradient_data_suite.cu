// The CUDA build of gradient_data_suite.cpp (nvcc compiles .cu files as CUDA).
#include "gradient_data_suite.cpp"
