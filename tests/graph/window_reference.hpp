// tests/graph/window_reference.hpp -- shared by the convolution and pooling tests: TF's window
// geometry written out independently of the library (graph/conv.hpp), and random NHWC tensors.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <random>

#include <xtensor/xtensor.hpp>

namespace window_reference {

/// One spatial axis of a window op over `in` elements: the output length and the padding before
/// the first element (TF: SAME gives ceil(in / stride) outputs, the odd padding element after).
struct axis {
  std::size_t out, pad_before;
};
inline axis axis_of(bool same, std::size_t in, std::size_t k, std::size_t stride) {
  if (!same) return {(in - k) / stride + 1, 0};
  const std::size_t out = (in + stride - 1) / stride;
  const std::ptrdiff_t pad = out ? std::ptrdiff_t((out - 1) * stride + k) - std::ptrdiff_t(in) : 0;
  return {out, std::size_t(std::max<std::ptrdiff_t>(0, pad)) / 2};
}

/// A [d0, d1, d2, d3] tensor of values uniform in [-1, 1).
template <class T>
xt::xtensor<T, 4> random4(std::array<std::size_t, 4> ext, std::mt19937& rng) {
  auto t = xt::xtensor<T, 4>::from_shape(ext);
  std::uniform_real_distribution<double> u(-1, 1);
  for (auto& v : t) v = T(u(rng));
  return t;
}

}  // namespace window_reference
