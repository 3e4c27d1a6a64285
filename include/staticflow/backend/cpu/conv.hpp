// staticflow/backend/cpu/conv.hpp -- conv2d and its two gradients (graph/conv.hpp) on the CPU.
//
// An implicit im2col: for a block of output rows, each output position's window (KH*KW*C inputs
// in filter order, zeros where it leaves the image) is copied into a patch matrix that stays in
// L2 (about 1 MiB), then multiplied by the filter, viewed as a [KH*KW*C, O] matrix, with the
// blocked matmul kernel (matmul.hpp, split across threads when the product is big). There is no
// whole-image im2col buffer. A 1x1 filter at stride 1 reads the image itself as the patch matrix.
// The input gradient is the transpose: dy's rows times the filter's transpose, scattered back
// (col2im, adding where windows overlap); the filter gradient is the sum over row blocks of the
// patch matrix's transpose (gathered in that layout directly) times dy's rows.
#pragma once

#include <algorithm>
#include <cstddef>

#include "staticflow/backend/cpu/matmul.hpp"
#include "staticflow/backend/cpu/operand.hpp"
#include "staticflow/backend/cpu/parallel.hpp"
#include "staticflow/graph/conv.hpp"
#include "staticflow/plan/arena.hpp"

namespace staticflow::cpu {
namespace detail {

/// Output rows per patch block: about 1 MiB of patch, at least one row.
template <class T>
std::size_t conv_rows_per_block(const graph::conv2d_geometry& g) {
  const std::size_t row = g.ow * g.patch();
  return std::clamp<std::size_t>((std::size_t{1} << 20) / sizeof(T) / std::max<std::size_t>(row, 1), 1, g.oh);
}

/// Walks the windows of output rows [oh0, oh0 + rows) of image b: visit(patch_offset, x_offset,
/// count) for each run of `count` inputs a window reads contiguously, fill(patch_offset, count)
/// for each run of padding. Patch row (r * OW + ow) holds the window of output (oh0 + r, ow).
template <class Visit, class Fill>
void conv_windows(const graph::conv2d_geometry& g, std::size_t b, std::size_t oh0, std::size_t rows, Visit visit,
                  Fill fill) {
  const std::size_t K = g.patch(), run = g.kw * g.c;
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t ow = 0; ow < g.ow; ++ow) {
      std::size_t p = (r * g.ow + ow) * K;
      const std::ptrdiff_t iw0 = std::ptrdiff_t(ow * g.sw) - std::ptrdiff_t(g.pad_left);
      for (std::size_t kh = 0; kh < g.kh; ++kh, p += run) {
        const std::ptrdiff_t ih = std::ptrdiff_t((oh0 + r) * g.sh + kh) - std::ptrdiff_t(g.pad_top);
        if (ih < 0 || ih >= std::ptrdiff_t(g.h)) {
          fill(p, run);
          continue;
        }
        const std::size_t row_base = (b * g.h + std::size_t(ih)) * g.w;
        if (iw0 >= 0 && iw0 + std::ptrdiff_t(g.kw) <= std::ptrdiff_t(g.w)) {  // the whole row of the window
          visit(p, (row_base + std::size_t(iw0)) * g.c, run);
          continue;
        }
        for (std::size_t kw = 0; kw < g.kw; ++kw) {
          const std::ptrdiff_t iw = iw0 + std::ptrdiff_t(kw);
          if (iw < 0 || iw >= std::ptrdiff_t(g.w)) fill(p + kw * g.c, g.c);
          else visit(p + kw * g.c, (row_base + std::size_t(iw)) * g.c, g.c);
        }
      }
    }
  }
}

/// dst [cols, rows] = src [rows, cols] transposed.
template <class T>
void transpose_into(const T* src, std::size_t rows, std::size_t cols, T* dst) {
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < cols; ++j) dst[j * rows + i] = src[i * cols + j];
}

inline bool pointwise(const graph::conv2d_geometry& g) {
  return g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1;
}

/// y [N,OH,OW,O] = conv2d(x [N,H,W,C], f [KH,KW,C,O]).
template <class T>
void conv2d_forward(const graph::conv2d_geometry& g, const T* x, const T* f, T* y) {
  const std::size_t K = g.patch(), outputs = g.n * g.oh * g.ow;
  if (outputs == 0 || g.o == 0) return;
  if (K == 0) {
    std::fill_n(y, outputs * g.o, T(0));
    return;
  }
  if (pointwise(g)) {  // the image's rows are the patch rows
    matmul(x, K, f, g.o, y, g.o, outputs, g.o, K, threads_for(outputs * g.o * K));
    return;
  }
  // Blocks of output rows are independent: with several threads each thread takes whole blocks
  // (its own patch buffer, a one-thread matmul). At least 8 blocks when there are 8 output rows,
  // whatever the thread count, so that the blocks (and every output's arithmetic) are the same
  // with one thread as with several.
  const std::size_t threads = threads_for(outputs * g.o * K);
  const std::size_t block = std::clamp<std::size_t>(g.n * g.oh / 8, 1, conv_rows_per_block<T>(g));
  const std::size_t per_image = (g.oh + block - 1) / block;
  parallel_for(g.n * per_image, threads, [&](std::size_t begin, std::size_t end) {
    const plan::arena_scope scratch;
    T* patch = static_cast<T*>(plan::arena::local().allocate(sizeof(T) * block * g.ow * K));
    for (std::size_t t = begin; t < end; ++t) {
      const std::size_t b = t / per_image, oh0 = (t % per_image) * block;
      const std::size_t rows = std::min(block, g.oh - oh0), m = rows * g.ow;
      conv_windows(
          g, b, oh0, rows, [&](std::size_t p, std::size_t at, std::size_t count) { std::copy_n(x + at, count, patch + p); },
          [&](std::size_t p, std::size_t count) { std::fill_n(patch + p, count, T(0)); });
      matmul(patch, K, f, g.o, y + (b * g.oh + oh0) * g.ow * g.o, g.o, m, g.o, K, 1);
    }
  });
}

/// dx [N,H,W,C] = the gradient of conv2d(x, f) with respect to x, given dy [N,OH,OW,O].
template <class T>
void conv2d_input_gradient(const graph::conv2d_geometry& g, const T* f, const T* dy, T* dx) {
  const std::size_t K = g.patch(), outputs = g.n * g.oh * g.ow;
  std::fill_n(dx, g.n * g.h * g.w * g.c, T(0));
  if (outputs == 0 || K == 0) return;
  if (g.o == 0) return;
  const plan::arena_scope scratch;
  T* ft = static_cast<T*>(plan::arena::local().allocate(sizeof(T) * K * g.o));
  transpose_into(f, K, g.o, ft);  // [O, K]
  if (pointwise(g)) {
    matmul(dy, g.o, ft, K, dx, K, outputs, K, g.o, threads_for(outputs * g.o * K));
    return;
  }
  const std::size_t block = conv_rows_per_block<T>(g);
  T* dpatch = static_cast<T*>(plan::arena::local().allocate(sizeof(T) * block * g.ow * K));
  for (std::size_t b = 0; b < g.n; ++b) {
    for (std::size_t oh0 = 0; oh0 < g.oh; oh0 += block) {
      const std::size_t rows = std::min(block, g.oh - oh0), m = rows * g.ow;
      matmul(dy + (b * g.oh + oh0) * g.ow * g.o, g.o, ft, K, dpatch, K, m, K, g.o, threads_for(m * g.o * K));
      conv_windows(
          g, b, oh0, rows,
          [&](std::size_t p, std::size_t at, std::size_t count) {
            for (std::size_t i = 0; i < count; ++i) dx[at + i] += dpatch[p + i];
          },
          [](std::size_t, std::size_t) {});
    }
  }
}

/// df [KH,KW,C,O] = the gradient of conv2d(x, f) with respect to f, given dy [N,OH,OW,O].
template <class T>
void conv2d_filter_gradient(const graph::conv2d_geometry& g, const T* x, const T* dy, T* df) {
  const std::size_t K = g.patch(), outputs = g.n * g.oh * g.ow;
  std::fill_n(df, K * g.o, T(0));
  if (outputs == 0 || K == 0 || g.o == 0) return;
  const plan::arena_scope scratch;
  const std::size_t block = pointwise(g) ? g.oh : conv_rows_per_block<T>(g);
  T* patch_t = static_cast<T*>(plan::arena::local().allocate(sizeof(T) * block * g.ow * K));
  T* partial = static_cast<T*>(plan::arena::local().allocate(sizeof(T) * K * g.o));
  for (std::size_t b = 0; b < g.n; ++b) {
    for (std::size_t oh0 = 0; oh0 < g.oh; oh0 += block) {
      const std::size_t rows = std::min(block, g.oh - oh0), m = rows * g.ow;
      // the block's patch matrix written transposed, [K, m]: a run never crosses a patch row, so
      // its element i (patch row p / K, column p % K + i) goes to patch_t[(p % K + i) * m + p / K]
      conv_windows(
          g, b, oh0, rows,
          [&](std::size_t p, std::size_t at, std::size_t count) {
            T* column = patch_t + (p % K) * m + p / K;
            for (std::size_t i = 0; i < count; ++i) column[i * m] = x[at + i];
          },
          [&](std::size_t p, std::size_t count) {
            T* column = patch_t + (p % K) * m + p / K;
            for (std::size_t i = 0; i < count; ++i) column[i * m] = T(0);
          });
      matmul(patch_t, m, dy + (b * g.oh + oh0) * g.ow * g.o, g.o, partial, g.o, K, g.o, m, threads_for(m * g.o * K));
      for (std::size_t i = 0; i < K * g.o; ++i) df[i] += partial[i];
    }
  }
}

}  // namespace detail

template <class Sig, class X, class F, bool Same, std::size_t SH, std::size_t SW, class Views, std::size_t R, class T>
void materialize(const graph::conv2d<X, F, Same, SH, SW>& n, const Views& views, const extents<R>&, T* out) {
  const auto ext_views = staticflow::detail::extents_of_views(views);
  const auto ex = graph::node_extents(n.x, ext_views), ef = graph::node_extents(n.f, ext_views);
  const auto g = graph::conv2d_geometry_of<Same, SH, SW>(ex, ef, "conv2d");
  const T* px = detail::contiguous_operand<T, Sig>(n.x, views, ex);
  const T* pf = detail::contiguous_operand<T, Sig>(n.f, views, ef);
  detail::conv2d_forward(g, px, pf, out);
}

template <class Sig, class Wrt, class X, class F, class G, bool Same, std::size_t SH, std::size_t SW, class Views,
          std::size_t R, class T>
void materialize(const graph::conv2d_gradient<Wrt, X, F, G, Same, SH, SW>& n, const Views& views, const extents<R>&,
                 T* out) {
  const auto ext_views = staticflow::detail::extents_of_views(views);
  const auto ex = graph::node_extents(n.x, ext_views), ef = graph::node_extents(n.f, ext_views);
  const auto g = graph::conv2d_geometry_of<Same, SH, SW>(ex, ef, "conv2d gradient");
  const T* pdy = detail::contiguous_operand<T, Sig>(n.g, views, graph::node_extents(n.g, ext_views));
  if constexpr (graph::conv2d_gradient<Wrt, X, F, G, Same, SH, SW>::wrt_image)
    detail::conv2d_input_gradient(g, detail::contiguous_operand<T, Sig>(n.f, views, ef), pdy, out);
  else
    detail::conv2d_filter_gradient(g, detail::contiguous_operand<T, Sig>(n.x, views, ex), pdy, out);
}

}  // namespace staticflow::cpu
