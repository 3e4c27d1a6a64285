// The CUDA build of gradient_layers_suite.cpp (nvcc compiles .cu files as CUDA).
#include "gradient_layers_suite.cpp"
