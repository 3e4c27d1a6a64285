// The CUDA build of control_and_data_suite.cpp (nvcc compiles .cu files as CUDA).
#include "control_and_data_suite.cpp"
