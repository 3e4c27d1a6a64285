// The CUDA build of effects_suite.cpp (nvcc compiles .cu files as CUDA).
#include "effects_suite.cpp"
