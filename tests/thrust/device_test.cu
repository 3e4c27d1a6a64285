// The CUDA build of device_test.cpp (nvcc compiles .cu files as CUDA).
#include "device_test.cpp"
