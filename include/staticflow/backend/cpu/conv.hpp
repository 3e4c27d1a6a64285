// staticflow/backend/cpu/conv.hpp -- conv2d and its two gradients (graph/conv.hpp) on the CPU.
//
// Ungrouped float/double convolutions take conv_direct.hpp: windows read in place by a
// register-tiled kernel over the filter packed once (the forward pass, the filter gradient, and
// the input gradient as convolutions of dy with the turned-around filter, one per phase of the
// strides). What is left here is the path for groups and integers, an implicit im2col: for a
// block of output rows, each output position's window (KH*KW*C inputs in filter order, DH / DW
// apart with dilations, zeros where it leaves the image) is copied into a
// patch matrix that stays in L2 (about 1 MiB), then multiplied by the filter, viewed as a
// [KH*KW*C, O] matrix, with the blocked matmul kernel (matmul.hpp, split across threads when the
// product is big). There is no whole-image im2col buffer. A 1x1 filter at stride 1 reads the image
// itself as the patch matrix. A grouped convolution does this per group: the window's channels of
// that group, times the group's columns of the filter; groups of fewer than 16 outputs, whose
// GEMMs would be narrower than a register tile, take a direct kernel over expanded input rows.
// The input gradient is the transpose: dy's rows times the filter's transpose, scattered back
// (col2im, adding where windows overlap); the filter gradient is the sum over row blocks of the
// patch matrix's transpose (gathered in that layout directly) times dy's rows.
#pragma once

#include <algorithm>
#include <cstddef>

#include "staticflow/backend/cpu/conv_direct.hpp"
#include "staticflow/backend/cpu/epilogue.hpp"
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

/// Walks the windows of output rows [oh0, oh0 + rows) of image b for the channels of group
/// `group`: visit(patch_offset, x_offset, count) for each run of `count` inputs a window reads
/// contiguously, fill(patch_offset, count) for each run of padding. Patch row (r * OW + ow) holds
/// the window of output (oh0 + r, ow): KH * KW taps of group_channels() values each.
template <class Visit, class Fill>
void conv_windows(const graph::conv2d_geometry& g, std::size_t b, std::size_t oh0, std::size_t rows, std::size_t group,
                  Visit visit, Fill fill) {
  const std::size_t cg = g.group_channels(), K = g.patch(), run = g.kw * cg, channel0 = group * cg;
  const bool whole_rows = g.dw == 1 && g.groups == 1;  // a window's row is one run of the image's row
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t ow = 0; ow < g.ow; ++ow) {
      std::size_t p = (r * g.ow + ow) * K;
      const std::ptrdiff_t iw0 = std::ptrdiff_t(ow * g.sw) - std::ptrdiff_t(g.pad_left);
      for (std::size_t kh = 0; kh < g.kh; ++kh, p += run) {
        const std::ptrdiff_t ih = std::ptrdiff_t((oh0 + r) * g.sh + kh * g.dh) - std::ptrdiff_t(g.pad_top);
        if (ih < 0 || ih >= std::ptrdiff_t(g.h)) {
          fill(p, run);
          continue;
        }
        const std::size_t row_base = (b * g.h + std::size_t(ih)) * g.w;
        if (whole_rows && iw0 >= 0 && iw0 + std::ptrdiff_t(g.kw) <= std::ptrdiff_t(g.w)) {
          visit(p, (row_base + std::size_t(iw0)) * g.c, run);
          continue;
        }
        for (std::size_t kw = 0; kw < g.kw; ++kw) {
          const std::ptrdiff_t iw = iw0 + std::ptrdiff_t(kw * g.dw);
          if (iw < 0 || iw >= std::ptrdiff_t(g.w)) fill(p + kw * cg, cg);
          else visit(p + kw * cg, (row_base + std::size_t(iw)) * g.c + channel0, cg);
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

/// A 1x1 filter at stride 1 without padding or groups: the image's pixels are the patch rows.
inline bool pointwise(const graph::conv2d_geometry& g) {
  return g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.groups == 1 && g.pad_top == 0 && g.pad_left == 0 &&
         g.oh == g.h && g.ow == g.w;
}

/// Groups with fewer outputs than this take the direct kernel below: their GEMMs would be O/G
/// columns wide, narrower than a register tile (ResNeXt's 32 groups of 4: 3.2x slower that way).
inline constexpr std::size_t conv_direct_group_outputs = 16;

/// Input rows expanded for the direct grouped kernel: e[iw][p][q] = x[b, ih, iw, group(q) * C/G
/// + p] (the input channel that output q reads as its p-th), so that each filter tap is a
/// multiply-add of whole contiguous rows of O values with no gather in the inner loop. One slot
/// per row of the dilated filter's extent, indexed by ih modulo that extent: consecutive output
/// rows of one thread find the rows they share already expanded.
template <class T>
class expanded_rows {
 public:
  expanded_rows(const graph::conv2d_geometry& g, const T* x)
      : g_(g), x_(x), row_size_(g.w * g.group_channels() * g.o), slots_(graph::detail::dilated_extent(g.kh, g.dh)) {
    data_ = static_cast<T*>(plan::arena::local().allocate(sizeof(T) * row_size_ * slots_));
    keys_ = static_cast<std::size_t*>(plan::arena::local().allocate(sizeof(std::size_t) * slots_));
    std::fill_n(keys_, slots_, std::size_t(-1));
  }
  /// The expansion of input row ih of image b.
  const T* row(std::size_t b, std::size_t ih) {
    const std::size_t key = b * g_.h + ih, slot = ih % slots_;
    T* e = data_ + slot * row_size_;
    if (keys_[slot] == key) return e;
    keys_[slot] = key;
    const std::size_t cg = g_.group_channels(), og = g_.group_outputs();
    const T* in = x_ + key * g_.w * g_.c;
    for (std::size_t iw = 0; iw < g_.w; ++iw, in += g_.c)
      for (std::size_t p = 0; p < cg; ++p, e += g_.o)
        for (std::size_t group = 0; group < g_.groups; ++group) {
          const T value = in[group * cg + p];
          for (std::size_t m = 0; m < og; ++m) e[group * og + m] = value;
        }
    return data_ + slot * row_size_;
  }

 private:
  const graph::conv2d_geometry& g_;
  const T* x_;
  std::size_t row_size_, slots_;
  T* data_;
  std::size_t* keys_;
};

/// Output row (b, i) of a grouped convolution with few outputs per group: for each tap (u, v)
/// and output pixel j, y[b, i, j, :] += e[iw][p][:] * f[u, v, p, :] over the group's channels p.
template <class T>
void conv2d_direct_row(const graph::conv2d_geometry& g, const T* f, std::size_t b, std::size_t i, expanded_rows<T>& rows, T* y) {
  const std::size_t cg = g.group_channels(), O = g.o;
  std::fill_n(y, g.ow * O, T(0));
  for (std::size_t u = 0; u < g.kh; ++u) {
    const std::ptrdiff_t ih = std::ptrdiff_t(i * g.sh + u * g.dh) - std::ptrdiff_t(g.pad_top);
    if (ih < 0 || ih >= std::ptrdiff_t(g.h)) continue;
    const T* expanded = rows.row(b, std::size_t(ih));
    for (std::size_t v = 0; v < g.kw; ++v) {
      const T* tap = f + (u * g.kw + v) * cg * O;
      for (std::size_t j = 0; j < g.ow; ++j) {
        const std::ptrdiff_t iw = std::ptrdiff_t(j * g.sw + v * g.dw) - std::ptrdiff_t(g.pad_left);
        if (iw < 0 || iw >= std::ptrdiff_t(g.w)) continue;
        T* __restrict out = y + j * O;
        for (std::size_t p = 0; p < cg; ++p) {
          const T* __restrict e = expanded + (std::size_t(iw) * cg + p) * O;
          const T* __restrict fp = tap + p * O;
          for (std::size_t q = 0; q < O; ++q) out[q] += e[q] * fp[q];
        }
      }
    }
  }
}

/// finish over all `pixels` outputs of y (O values each), after a kernel that has no blocks of
/// its own to hand it (the pointwise product), in chunks across threads.
template <class T, class Finish>
void finish_all(const Finish& finish, T* y, std::size_t pixels, std::size_t o) {
  if constexpr (!std::is_same<Finish, no_finish>::value)
    parallel_for(pixels, threads_for(pixels * o), [&](std::size_t begin, std::size_t end) {
      finish(y + begin * o, end - begin, o, std::size_t{0}, o);
    });
}

/// y [N,OH,OW,O] = conv2d(x [N,H,W,C], f [KH,KW,C/G,O]). Group j's outputs are the columns
/// [j * O/G, (j + 1) * O/G) of y and f: one matmul per group and row block, with f's and y's rows
/// O apart. finish (matmul.hpp) sees every output pixel once, after its sums are complete.
template <class T, class Finish = no_finish>
void conv2d_forward(const graph::conv2d_geometry& g, const T* x, const T* f, T* y, const Finish& finish = {}) {
  const std::size_t K = g.patch(), outputs = g.n * g.oh * g.ow, og = g.group_outputs();
  if (outputs == 0 || g.o == 0) return;
  if (K == 0) {
    std::fill_n(y, outputs * g.o, T(0));
    finish_all(finish, y, outputs, g.o);
    return;
  }
  if (pointwise(g)) {  // the image's rows are the patch rows
    matmul(x, K, f, g.o, y, g.o, outputs, g.o, K, threads_for(outputs * g.o * K));
    finish_all(finish, y, outputs, g.o);
    return;
  }
  if (conv_direct_applies<T>(g)) {  // no patch: windows read in place (conv_direct.hpp)
    const plan::arena_scope scratch;
    conv_direct_forward(direct_geometry::of(g), x, f, y, threads_for(outputs * g.o * K), finish);
    return;
  }
  if (g.groups > 1 && og < conv_direct_group_outputs) {  // output rows across threads, one thread each
    parallel_for(g.n * g.oh, threads_for(outputs * g.o * K), [&](std::size_t begin, std::size_t end) {
      const plan::arena_scope scratch;
      expanded_rows<T> rows(g, x);
      for (std::size_t r = begin; r < end; ++r) {
        conv2d_direct_row(g, f, r / g.oh, r % g.oh, rows, y + r * g.ow * g.o);
        finish(y + r * g.ow * g.o, g.ow, g.o, std::size_t{0}, g.o);
      }
    });
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
      for (std::size_t group = 0; group < g.groups; ++group) {
        conv_windows(
            g, b, oh0, rows, group,
            [&](std::size_t p, std::size_t at, std::size_t count) { std::copy_n(x + at, count, patch + p); },
            [&](std::size_t p, std::size_t count) { std::fill_n(patch + p, count, T(0)); });
        matmul(patch, K, f + group * og, g.o, y + (b * g.oh + oh0) * g.ow * g.o + group * og, g.o, m, og, K, 1);
      }
      finish(y + (b * g.oh + oh0) * g.ow * g.o, m, g.o, std::size_t{0}, g.o);
    }
  });
}

/// dx [N,H,W,C] = the gradient of conv2d(x, f) with respect to x, given dy [N,OH,OW,O].
template <class T>
void conv2d_input_gradient(const graph::conv2d_geometry& g, const T* f, const T* dy, T* dx) {
  const std::size_t K = g.patch(), outputs = g.n * g.oh * g.ow, og = g.group_outputs();
  if (outputs > 0 && conv_direct_applies<T>(g))  // dy convolved with the turned filter, per stride phase
    return conv_direct_input_gradient(direct_geometry::of(g), f, dy, dx, threads_for(outputs * g.o * K));
  std::fill_n(dx, g.n * g.h * g.w * g.c, T(0));
  if (outputs == 0 || K == 0) return;
  if (g.o == 0) return;
  const plan::arena_scope scratch;
  T* ft = static_cast<T*>(plan::arena::local().allocate(sizeof(T) * K * g.o));
  transpose_into(f, K, g.o, ft);  // [O, K]: group j's filters are its rows [j * O/G, (j + 1) * O/G)
  if (pointwise(g)) {
    matmul(dy, g.o, ft, K, dx, K, outputs, K, g.o, threads_for(outputs * g.o * K));
    return;
  }
  const std::size_t block = conv_rows_per_block<T>(g);
  T* dpatch = static_cast<T*>(plan::arena::local().allocate(sizeof(T) * block * g.ow * K));
  for (std::size_t b = 0; b < g.n; ++b) {
    for (std::size_t oh0 = 0; oh0 < g.oh; oh0 += block) {
      const std::size_t rows = std::min(block, g.oh - oh0), m = rows * g.ow;
      for (std::size_t group = 0; group < g.groups; ++group) {
        matmul(dy + (b * g.oh + oh0) * g.ow * g.o + group * og, g.o, ft + group * og * K, K, dpatch, K, m, K, og,
               threads_for(m * og * K));
        conv_windows(
            g, b, oh0, rows, group,
            [&](std::size_t p, std::size_t at, std::size_t count) {
              for (std::size_t i = 0; i < count; ++i) dx[at + i] += dpatch[p + i];
            },
            [](std::size_t, std::size_t) {});
      }
    }
  }
}

/// df [KH,KW,C/G,O] = the gradient of conv2d(x, f) with respect to f, given dy [N,OH,OW,O].
template <class T>
void conv2d_filter_gradient(const graph::conv2d_geometry& g, const T* x, const T* dy, T* df) {
  const std::size_t K = g.patch(), outputs = g.n * g.oh * g.ow, og = g.group_outputs();
  if (outputs > 0 && K > 0 && conv_direct_applies<T>(g))  // pixels summed in place (conv_direct.hpp)
    return conv_direct_filter_gradient(direct_geometry::of(g), x, dy, df, threads_for(outputs * g.o * K));
  std::fill_n(df, K * g.o, T(0));
  if (outputs == 0 || K == 0 || g.o == 0) return;
  const plan::arena_scope scratch;
  const std::size_t block = pointwise(g) ? g.oh : conv_rows_per_block<T>(g);
  T* patch_t = static_cast<T*>(plan::arena::local().allocate(sizeof(T) * block * g.ow * K));
  T* partial = static_cast<T*>(plan::arena::local().allocate(sizeof(T) * K * og));
  for (std::size_t b = 0; b < g.n; ++b) {
    for (std::size_t oh0 = 0; oh0 < g.oh; oh0 += block) {
      const std::size_t rows = std::min(block, g.oh - oh0), m = rows * g.ow;
      for (std::size_t group = 0; group < g.groups; ++group) {
        // the block's patch matrix written transposed, [K, m]: a run never crosses a patch row,
        // so its element i (patch row p / K, column p % K + i) goes to patch_t[(p % K + i) * m + p / K]
        conv_windows(
            g, b, oh0, rows, group,
            [&](std::size_t p, std::size_t at, std::size_t count) {
              T* column = patch_t + (p % K) * m + p / K;
              for (std::size_t i = 0; i < count; ++i) column[i * m] = x[at + i];
            },
            [&](std::size_t p, std::size_t count) {
              T* column = patch_t + (p % K) * m + p / K;
              for (std::size_t i = 0; i < count; ++i) column[i * m] = T(0);
            });
        matmul(patch_t, m, dy + (b * g.oh + oh0) * g.ow * g.o + group * og, g.o, partial, og, K, og, m,
               threads_for(m * og * K));
        for (std::size_t k = 0; k < K; ++k)
          for (std::size_t q = 0; q < og; ++q) df[k * g.o + group * og + q] += partial[k * og + q];
      }
    }
  }
}

}  // namespace detail

template <class Sig, class X, class F, class Opt, class Views, std::size_t R, class T>
void materialize(const graph::conv2d<X, F, Opt>& n, const Views& views, const extents<R>&, T* out) {
  const auto ext_views = staticflow::detail::extents_of_views(views);
  const auto ex = graph::node_extents(n.x, ext_views), ef = graph::node_extents(n.f, ext_views);
  const auto g = graph::conv2d_geometry_of<Opt>(ex, ef, "conv2d");
  const T* px = detail::contiguous_operand<T, Sig>(n.x, views, ex);
  const T* pf = detail::contiguous_operand<T, Sig>(n.f, views, ef);
  detail::conv2d_forward(g, px, pf, out);
}

/// A convolution with its epilogue (plan/epilogues.hpp): the function applied to each tile of
/// pixels the kernel finishes, while it is in cache, instead of in a pass of its own.
template <class Sig, class X, class F, class Opt, class Fn, class... Q, class Views, std::size_t R, class T>
void materialize(const graph::epilogue<graph::conv2d<X, F, Opt>, Fn, Q...>& n, const Views& views,
                 const extents<R>& ext, T* out) {
  const auto ext_views = staticflow::detail::extents_of_views(views);
  const auto& conv = n.producer;
  const auto ex = graph::node_extents(conv.x, ext_views), ef = graph::node_extents(conv.f, ext_views);
  const auto g = graph::conv2d_geometry_of<Opt>(ex, ef, "conv2d");
  const T* px = detail::contiguous_operand<T, Sig>(conv.x, views, ex);
  const T* pf = detail::contiguous_operand<T, Sig>(conv.f, views, ef);
  detail::run_epilogue<Sig>(n, views, ext, out, g.n * g.oh * g.ow, g.o,
                            [&](T* y, const auto& finish) { detail::conv2d_forward(g, px, pf, y, finish); });
}

template <class Sig, class Wrt, class X, class F, class G, class Opt, class Views,
          std::size_t R, class T>
void materialize(const graph::conv2d_gradient<Wrt, X, F, G, Opt>& n, const Views& views, const extents<R>&,
                 T* out) {
  const auto ext_views = staticflow::detail::extents_of_views(views);
  const auto ex = graph::node_extents(n.x, ext_views), ef = graph::node_extents(n.f, ext_views);
  const auto g = graph::conv2d_geometry_of<Opt>(ex, ef, "conv2d gradient");
  const T* pdy = detail::contiguous_operand<T, Sig>(n.g, views, graph::node_extents(n.g, ext_views));
  if constexpr (graph::conv2d_gradient<Wrt, X, F, G, Opt>::wrt_image)
    detail::conv2d_input_gradient(g, detail::contiguous_operand<T, Sig>(n.f, views, ef), pdy, out);
  else
    detail::conv2d_filter_gradient(g, detail::contiguous_operand<T, Sig>(n.x, views, ex), pdy, out);
}

}  // namespace staticflow::cpu
