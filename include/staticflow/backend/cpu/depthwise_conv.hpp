// staticflow/backend/cpu/depthwise_conv.hpp -- depthwise_conv2d and its gradients
// (graph/depthwise_conv.hpp) on the CPU: direct loops whose innermost runs along the channels
// (contiguous in NHWC and in the filter), so that a multiplier M = 1 (MobileNet's) is a
// vectorized multiply-add over a pixel's channels. Work is split by output rows (forward), input
// rows (input gradient) or filter taps (filter gradient): each element is summed by one thread in
// a fixed order (taps, then m; or images, rows, columns), the Thrust kernels' order, so 1 or 2
// threads give the same bits.
#pragma once

#include <algorithm>
#include <cstddef>

#include "staticflow/backend/cpu/epilogue.hpp"
#include "staticflow/backend/cpu/operand.hpp"
#include "staticflow/backend/cpu/parallel.hpp"
#include "staticflow/graph/depthwise_conv.hpp"

namespace staticflow::cpu {
namespace detail {
/// Output row (b, i) of a depthwise convolution: ow pixels of C*M values. StaticC / StaticM: the
/// channels and the multiplier when the types say them (0 if not), so that the channel loop has a
/// compile-time count, as a hand-written loop for one layer has.
template <std::size_t StaticC, std::size_t StaticM, class T>
void depthwise_row(const graph::conv2d_geometry& g, const T* x, const T* f, std::size_t b, std::size_t i, T* y) {
  const std::size_t channels = StaticC ? StaticC : g.c, multiplier = StaticM ? StaticM : g.o;
  const std::size_t cm = channels * multiplier;
  std::fill_n(y, g.ow * cm, T(0));
  for (std::size_t u = 0; u < g.kh; ++u) {
    const std::ptrdiff_t ih = std::ptrdiff_t(i * g.sh + u * g.dh) - std::ptrdiff_t(g.pad_top);
    if (ih < 0 || ih >= std::ptrdiff_t(g.h)) continue;
    for (std::size_t v = 0; v < g.kw; ++v) {
      const T* tap = f + (u * g.kw + v) * cm;
      for (std::size_t j = 0; j < g.ow; ++j) {
        const std::ptrdiff_t iw = std::ptrdiff_t(j * g.sw + v * g.dw) - std::ptrdiff_t(g.pad_left);
        if (iw < 0 || iw >= std::ptrdiff_t(g.w)) continue;
        // (restrict: the output row never overlaps the image or the filter; without it g++ does
        // not vectorize a channel loop of run-time length)
        const T* __restrict px = x + ((b * g.h + std::size_t(ih)) * g.w + std::size_t(iw)) * channels;
        T* __restrict py = y + j * cm;
        if (multiplier == 1) {
          for (std::size_t c = 0; c < channels; ++c) py[c] += px[c] * tap[c];
        } else {
          for (std::size_t c = 0; c < channels; ++c)
            for (std::size_t m = 0; m < multiplier; ++m) py[c * multiplier + m] += px[c] * tap[c * multiplier + m];
        }
      }
    }
  }
}

/// Input-gradient row (b, ih): each pixel's C values summed over the taps that read it (u, v
/// ascending), each tap's M products summed first.
template <class T>
void depthwise_input_gradient_row(const graph::conv2d_geometry& g, const T* f, const T* dy, std::size_t b, std::size_t ih, T* dx) {
  const std::size_t cm = g.c * g.o;
  std::fill_n(dx, g.w * g.c, T(0));
  for (std::size_t u = 0; u < g.kh; ++u) {
    const std::ptrdiff_t row = std::ptrdiff_t(ih + g.pad_top) - std::ptrdiff_t(u * g.dh);  // = i * sh
    if (row < 0 || std::size_t(row) % g.sh != 0 || std::size_t(row) / g.sh >= g.oh) continue;
    const std::size_t i = std::size_t(row) / g.sh;
    for (std::size_t v = 0; v < g.kw; ++v) {
      const T* tap = f + (u * g.kw + v) * cm;
      for (std::size_t iw = 0; iw < g.w; ++iw) {
        const std::ptrdiff_t col = std::ptrdiff_t(iw + g.pad_left) - std::ptrdiff_t(v * g.dw);
        if (col < 0 || std::size_t(col) % g.sw != 0 || std::size_t(col) / g.sw >= g.ow) continue;
        const T* pg = dy + ((b * g.oh + i) * g.ow + std::size_t(col) / g.sw) * cm;
        T* px = dx + iw * g.c;
        if (g.o == 1) {
          for (std::size_t c = 0; c < g.c; ++c) px[c] += pg[c] * tap[c];
        } else {
          for (std::size_t c = 0; c < g.c; ++c) {
            T s = T(0);
            for (std::size_t m = 0; m < g.o; ++m) s += pg[c * g.o + m] * tap[c * g.o + m];
            px[c] += s;
          }
        }
      }
    }
  }
}

/// Filter-gradient tap (u, v): its C*M values summed over images, output rows and columns.
template <class T>
void depthwise_filter_gradient_tap(const graph::conv2d_geometry& g, const T* x, const T* dy, std::size_t u, std::size_t v, T* df) {
  const std::size_t cm = g.c * g.o;
  std::fill_n(df, cm, T(0));
  for (std::size_t b = 0; b < g.n; ++b)
    for (std::size_t i = 0; i < g.oh; ++i) {
      const std::ptrdiff_t ih = std::ptrdiff_t(i * g.sh + u * g.dh) - std::ptrdiff_t(g.pad_top);
      if (ih < 0 || ih >= std::ptrdiff_t(g.h)) continue;
      for (std::size_t j = 0; j < g.ow; ++j) {
        const std::ptrdiff_t iw = std::ptrdiff_t(j * g.sw + v * g.dw) - std::ptrdiff_t(g.pad_left);
        if (iw < 0 || iw >= std::ptrdiff_t(g.w)) continue;
        const T* px = x + ((b * g.h + std::size_t(ih)) * g.w + std::size_t(iw)) * g.c;
        const T* pg = dy + ((b * g.oh + i) * g.ow + j) * cm;
        if (g.o == 1) {
          for (std::size_t c = 0; c < g.c; ++c) df[c] += px[c] * pg[c];
        } else {
          for (std::size_t c = 0; c < g.c; ++c)
            for (std::size_t m = 0; m < g.o; ++m) df[c * g.o + m] += px[c] * pg[c * g.o + m];
        }
      }
    }
}
}  // namespace detail

namespace detail {
/// The forward pass into y, output row by output row; finish (a no_finish or an epilogue's
/// block_finish, backend/cpu/epilogue.hpp) runs on each row as soon as it is summed, in cache.
template <std::size_t StaticC, std::size_t StaticM, class T, class Finish>
void depthwise_forward(const graph::conv2d_geometry& g, const T* x, const T* f, T* y, const Finish& finish) {
  const std::size_t row_size = g.ow * g.c * g.o;
  if (g.n * g.oh * row_size == 0) return;
  parallel_for(g.n * g.oh, threads_for(g.n * g.oh * row_size * g.kh * g.kw), [&](std::size_t b, std::size_t e) {
    for (std::size_t r = b; r < e; ++r) {
      depthwise_row<StaticC, StaticM>(g, x, f, r / g.oh, r % g.oh, y + r * row_size);
      finish(y + r * row_size, g.ow, g.c * g.o, 0, g.c * g.o);
    }
  });
}

template <class X, class F, class Opt, class Sig, class Views, class T>
struct depthwise_operands {
  static constexpr std::size_t static_c = X::shape_type::dims[3] == dyn ? 0 : X::shape_type::dims[3];
  static constexpr std::size_t static_m = F::shape_type::dims[3] == dyn ? 0 : F::shape_type::dims[3];
  graph::conv2d_geometry g;
  const T* x = nullptr;
  const T* f = nullptr;
  depthwise_operands(const graph::depthwise_conv2d<X, F, Opt>& n, const Views& views) {
    const auto ext_views = staticflow::detail::extents_of_views(views);
    const auto ex = graph::node_extents(n.x, ext_views), ef = graph::node_extents(n.f, ext_views);
    g = graph::detail::depthwise_geometry_of<Opt>(ex, ef, "depthwise_conv2d");
    if (g.n * g.oh * g.ow * g.c * g.o == 0) return;
    x = contiguous_operand<T, Sig>(n.x, views, ex);
    f = contiguous_operand<T, Sig>(n.f, views, ef);
  }
};
}  // namespace detail

template <class Sig, class X, class F, class Opt, class Views, std::size_t R, class T>
void materialize(const graph::depthwise_conv2d<X, F, Opt>& n, const Views& views, const extents<R>&, T* out) {
  using operands = detail::depthwise_operands<X, F, Opt, Sig, Views, T>;
  const operands d(n, views);
  detail::depthwise_forward<operands::static_c, operands::static_m>(d.g, d.x, d.f, out, detail::no_finish{});
}

/// A depthwise convolution with its epilogue (plan/epilogues.hpp: MobileNet's scale, shift and
/// relu6): the function applied to each output row as soon as it is summed.
template <class Sig, class X, class F, class Opt, class Fn, class... Q, class Views, std::size_t R, class T>
void materialize(const graph::epilogue<graph::depthwise_conv2d<X, F, Opt>, Fn, Q...>& n, const Views& views,
                 const extents<R>& ext, T* out) {
  using operands = detail::depthwise_operands<X, F, Opt, Sig, Views, T>;
  const operands d(n.producer, views);
  detail::run_epilogue<Sig>(n, views, ext, out, d.g.n * d.g.oh * d.g.ow, d.g.c * d.g.o, [&](T* y, const auto& finish) {
    detail::depthwise_forward<operands::static_c, operands::static_m>(d.g, d.x, d.f, y, finish);
  });
}

template <class Sig, class Wrt, class X, class F, class G, class Opt, class Views, std::size_t R, class T>
void materialize(const graph::depthwise_conv2d_gradient<Wrt, X, F, G, Opt>& n, const Views& views, const extents<R>& out_ext,
                 T* out) {
  const auto ext_views = staticflow::detail::extents_of_views(views);
  const auto ex = graph::node_extents(n.x, ext_views), ef = graph::node_extents(n.f, ext_views);
  const graph::conv2d_geometry g = graph::detail::depthwise_geometry_of<Opt>(ex, ef, "depthwise_conv2d gradient");
  const std::size_t total = staticflow::detail::product(out_ext);
  if (total == 0) return;
  const std::size_t forward = g.n * g.oh * g.ow * g.c * g.o;
  const T* dy = forward == 0 ? nullptr : detail::contiguous_operand<T, Sig>(n.g, views, graph::node_extents(n.g, ext_views));
  if (forward == 0) {  // no output (an empty batch or window): nothing reaches the operand
    std::fill_n(out, total, T(0));
    return;
  }
  const std::size_t work = forward * g.kh * g.kw;
  if constexpr (graph::depthwise_conv2d_gradient<Wrt, X, F, G, Opt>::wrt_image) {
    const T* f = detail::contiguous_operand<T, Sig>(n.f, views, ef);
    parallel_for(g.n * g.h, threads_for(work), [&](std::size_t b, std::size_t e) {
      for (std::size_t r = b; r < e; ++r) detail::depthwise_input_gradient_row(g, f, dy, r / g.h, r % g.h, out + r * g.w * g.c);
    });
  } else {
    const T* x = detail::contiguous_operand<T, Sig>(n.x, views, ex);
    parallel_for(g.kh * g.kw, threads_for(work), [&](std::size_t b, std::size_t e) {
      for (std::size_t t = b; t < e; ++t) detail::depthwise_filter_gradient_tap(g, x, dy, t / g.kw, t % g.kw, out + t * g.c * g.o);
    });
  }
}

}  // namespace staticflow::cpu
