// The CUDA build of gradient_control_suite.cpp (nvcc compiles .cu files as CUDA).
#include "gradient_control_suite.cpp"
