// The CUDA build of layers_gradient_suite.cpp (nvcc compiles .cu files as CUDA).
#include "layers_gradient_suite.cpp"
