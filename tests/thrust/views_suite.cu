// The CUDA build of views_suite.cpp (nvcc compiles .cu files as CUDA).
#include "views_suite.cpp"
