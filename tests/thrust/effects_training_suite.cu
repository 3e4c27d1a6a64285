// The CUDA build of effects_training_suite.cpp (nvcc compiles .cu files as CUDA).
#include "effects_training_suite.cpp"
