// The CUDA build of ops_contractions_suite.cpp (nvcc compiles .cu files as CUDA).
#include "ops_contractions_suite.cpp"
