// onnxruntime runs what sf::onnx::export_model writes, and gets staticflow's results: this program
// exports functions covering every lowering of io/onnx.hpp (elementwise ops on floats and
// integers, reductions, matmul, conv2d, depthwise_conv2d and conv2d_transpose with their options, pooling, cumsum, cumprod, range / linspace / eye, gather, boolean_mask / where, unique, moments and layer normalization,
// reverse / slices / tile / pad / roll / repeat (also by a tensor of counts) / split, argsort / sort / top_k / take_along_axis, gather_nd / scatters, segment sums and their gradient, diag_part / set_diag / diag / trace, shape ops, softmax, x[i], cond / switch_case, while_loop /
// fori_loop / scan, value_and_grads through convolutions, windows and poolings, max_pool's jvp) with their inputs and staticflow's outputs as .npy files, then runs
// onnx_runtime.py, which runs each model in onnxruntime and compares.
// The models are exported by the functions onnx_runtime_common.hpp declares, one translation unit
// per family, in this order (the order the random inputs are drawn in).
// Usage: onnx_runtime PYTHON SCRIPT DIR. Exits 77 (skipped) without onnxruntime.
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <random>
#include <string>
#include <sys/wait.h>

#include "onnx_runtime_common.hpp"

int main(int argc, char** argv) {
  using onnx_runtime_test::dir;
  if (argc != 4) {
    std::cerr << "usage: onnx_runtime PYTHON SCRIPT DIR\n";
    return 2;
  }
  dir = argv[3];
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::mt19937 rng(7);
  xt::random::seed(7);

  onnx_runtime_test::export_elementwise(rng);
  onnx_runtime_test::export_math(rng);
  onnx_runtime_test::export_convolutions();
  onnx_runtime_test::export_ops();
  onnx_runtime_test::export_data_movement();
  onnx_runtime_test::export_segments();
  onnx_runtime_test::export_reductions();
  onnx_runtime_test::export_control();
  onnx_runtime_test::export_layer_gradients();
  onnx_runtime_test::export_window_gradients();

  const std::string command = std::string("\"") + argv[1] + "\" \"" + argv[2] + "\" \"" + dir + "\"";
  const int status = std::system(command.c_str());
  if (status == -1 || !WIFEXITED(status)) return 1;
  return WEXITSTATUS(status);
}
