// The CUDA build of layers_suite.cpp (nvcc compiles .cu files as CUDA).
#include "layers_suite.cpp"
