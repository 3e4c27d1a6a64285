// tests/graph/window_reference.hpp -- shared by the convolution and pooling tests: TF's window
// geometry written out independently of the library (graph/conv.hpp), the convolution's definition
// with every option, and random NHWC tensors.
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

/// A convolution's options as the reference takes them (pads ignored when same).
struct conv_options {
  bool same = false;
  std::size_t sh = 1, sw = 1, dh = 1, dw = 1, top = 0, bottom = 0, left = 0, right = 0;
};

/// One axis: output length and padding before, TF's formulas with the dilated filter extent.
inline axis dilated_axis_of(bool same, std::size_t in, std::size_t k, std::size_t s, std::size_t d, std::size_t before,
                            std::size_t after) {
  const std::size_t span = (k - 1) * d + 1;
  if (!same) return {(in + before + after - span) / s + 1, before};
  const std::size_t out = (in + s - 1) / s;
  const std::ptrdiff_t pad = std::ptrdiff_t((out - 1) * s + span) - std::ptrdiff_t(in);
  return {out, std::size_t(std::max<std::ptrdiff_t>(pad, 0)) / 2};
}

/// tf.nn.conv2d with groups = C / f.shape(2), NHWC x HWIO, written out as the definition.
template <class T>
xt::xtensor<T, 4> reference_conv(const xt::xtensor<T, 4>& x, const xt::xtensor<T, 4>& f, const conv_options& o) {
  const std::size_t n = x.shape(0), h = x.shape(1), w = x.shape(2), c = x.shape(3);
  const std::size_t kh = f.shape(0), kw = f.shape(1), cg = f.shape(2), outs = f.shape(3);
  const std::size_t groups = c / cg, og = outs / groups;
  const auto rows = dilated_axis_of(o.same, h, kh, o.sh, o.dh, o.top, o.bottom), cols = dilated_axis_of(o.same, w, kw, o.sw, o.dw, o.left, o.right);
  xt::xtensor<T, 4> y = xt::zeros<T>({n, rows.out, cols.out, outs});
  for (std::size_t b = 0; b < n; ++b)
    for (std::size_t i = 0; i < rows.out; ++i)
      for (std::size_t j = 0; j < cols.out; ++j)
        for (std::size_t q = 0; q < outs; ++q) {
          T acc = 0;
          for (std::size_t u = 0; u < kh; ++u)
            for (std::size_t v = 0; v < kw; ++v) {
              const std::ptrdiff_t ih = std::ptrdiff_t(i * o.sh + u * o.dh) - std::ptrdiff_t(rows.pad_before);
              const std::ptrdiff_t iw = std::ptrdiff_t(j * o.sw + v * o.dw) - std::ptrdiff_t(cols.pad_before);
              if (ih < 0 || iw < 0 || ih >= std::ptrdiff_t(h) || iw >= std::ptrdiff_t(w)) continue;
              for (std::size_t p = 0; p < cg; ++p) acc += x(b, std::size_t(ih), std::size_t(iw), q / og * cg + p) * f(u, v, p, q);
            }
          y(b, i, j, q) = acc;
        }
  return y;
}

}  // namespace window_reference
