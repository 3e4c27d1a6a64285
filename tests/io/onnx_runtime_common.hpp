// What the translation units of the onnx_runtime test share: each exports one family of functions
// as ONNX models, with their inputs and staticflow's outputs as .npy files (a TU per family keeps
// each compile small); onnx_runtime.cpp's main runs them in order, then onnx_runtime.py.
#pragma once
#include <cstdint>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <xtensor/xarray.hpp>
#include <xtensor/xnpy.hpp>
#include <xtensor/xrandom.hpp>

#include <staticflow/io/onnx.hpp>

namespace onnx_runtime_test {
namespace sf = staticflow;

/// Where the models and .npy files go (main sets it).
inline std::string dir;

template <class V>
void save(const std::string& path, const V& v) {
  if constexpr (std::is_arithmetic_v<V>) xt::dump_npy(path, xt::xarray<V>(v));
  else xt::dump_npy(path, xt::xarray<typename V::value_type>(v));
}

/// Exports f's one concrete function as <name>.onnx; `run(set, inputs...)` saves an input set and
/// staticflow's results for it.
template <class F>
auto exported(const std::string& name, F& f, const std::vector<sf::onnx::named_variable>& vars = {}) {
  sf::onnx::export_model(f.get_concrete_function(), vars, dir + "/" + name + ".onnx");
  return [&f, name](const std::string& set, const auto&... inputs) {
    const std::string prefix = dir + "/" + name + "." + set;
    std::size_t k = 0;
    ((save(prefix + ".in" + std::to_string(k++) + ".npy", inputs)), ...);
    const auto results = f(inputs...);
    k = 0;
    if constexpr (requires { std::tuple_size<std::remove_cvref_t<decltype(results)>>::value; })
      std::apply([&](const auto&... r) { ((save(prefix + ".out" + std::to_string(k++) + ".npy", r)), ...); }, results);
    else
      save(prefix + ".out0.npy", results);
  };
}

template <class T>
xt::xarray<T> nonzero(std::vector<std::size_t> shape, std::mt19937& rng) {  // divisors: |x| in [0.5, 4]
  std::uniform_real_distribution<double> mag(0.5, 4.0);
  xt::xarray<T> a = xt::xarray<T>::from_shape(shape);
  for (auto& x : a) x = static_cast<T>((rng() & 1 ? 1 : -1) * mag(rng));
  return a;
}

/// Exports a classifier with variables and the elementwise ops.
void export_elementwise(std::mt19937& rng);
/// Exports the math functions and activations.
void export_math(std::mt19937& rng);
/// Exports conv2d, its options, conv3d and conv2d_transpose.
void export_convolutions();
/// Exports cumsum / cumprod, int axes, creation, gathers, masks and unique.
void export_ops();
/// Exports statistics, data movement (reverse, slices, tile, pad, roll, repeat, split), sorting,
/// gather_nd and the scatters.
void export_data_movement();
/// Exports segment sums and their gradient, the diagonal ops and pooling (whose inputs are drawn
/// last).
void export_segments();
/// Exports integer ops, reductions and shape ops.
void export_reductions();
/// Exports cond / switch_case and the loops.
void export_control();
/// Exports value_and_grad of a dense layer and of the convolutions.
void export_layer_gradients();
/// Exports the window ops' and the poolings' gradients and max_pool's jvp.
void export_window_gradients();
}  // namespace onnx_runtime_test
