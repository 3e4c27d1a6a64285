// staticflow/backend/cpu/conv_direct.hpp -- ungrouped float/double convolutions (conv2d, and
// conv3d with a depth axis) and their gradients without a patch matrix (backend/cpu/conv.hpp and
// conv3d.hpp pick it).
//
// The implicit im2col of conv.hpp copies every output pixel's window (KH*KW*C values) into a patch
// block, and the matmul kernel then packs that block again: two passes over nine times the image
// for a 3x3 filter, 15 % of the seed's conv on a Zen 4 core. Here nothing is copied per pixel:
//  * the filter, viewed as a [KH*KW*C, O] matrix, is packed once per call into column panels of
//    NR (the matmul kernel's register tile: 32 floats with AVX-512), the last one NR or W wide
//    (zero-padded), so that every panel is read as the matmul kernel reads a packed B panel;
//  * a tile of up to MR consecutive output pixels of one output row reads its window straight
//    from the image, tap by tap: tap (kh, kw) of pixel r starts at x[b, ih, (ow0 + r) * SW + kw *
//    DW - PL, 0], so the tile's A operand for that tap is rows SW * C apart, each C values long.
//    The micro-kernel keeps MR x NB batches of y in registers across the taps of a block of the
//    contracted axis (about KC values: whole taps, or a channel range of one tap when C is large),
//    broadcasting x's values where they lie;
//  * taps whose input row is outside the image are skipped (they would add 0 * f); the few pixels
//    at the left and right edges whose window leaves the image horizontally go through a small
//    patch of MR windows (zeros outside), read by the same micro-kernel.
// The filter gradient runs the micro-kernel the other way round (rows: channels; contracted:
// pixels), the stride-1 input gradient is the forward pass over dy with the filter turned around.
// Every element of a result is one fused multiply-add chain in a fixed order, whatever the tile,
// the block or the thread, as in the matmul kernel: results do not depend on the thread count.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "staticflow/backend/cpu/matmul.hpp"
#include "staticflow/backend/cpu/parallel.hpp"
#include "staticflow/graph/conv.hpp"
#include "staticflow/plan/arena.hpp"

namespace staticflow::cpu::detail {

template <class T>
struct conv_direct_blocking {
  using G = gemm_blocking<T>;
  static constexpr std::size_t MR = G::MR, W = G::W, NR = G::NR;
  // Contracted values per block: the tile's window rows (MR x KC) stay in L1 while the block's
  // filter panels (KC x O) stay in L2.
  static constexpr std::size_t KC = 2048 / sizeof(T);
};

/// The filter f [K, O] (K = KH * KW * C rows, O apart) packed into column panels: panel q holds
/// columns [q * NR, q * NR + width) at packed + q * NR * K, row k at offset k * width, where width
/// is NR, or W for a last panel of at most W columns; columns past O are zeros.
template <class T>
std::size_t conv_panel_width(std::size_t o, std::size_t q) {
  using D = conv_direct_blocking<T>;
  return o - q * D::NR <= D::W ? D::W : D::NR;
}

template <class T>
void conv_pack_filter(const T* f, std::size_t k, std::size_t o, T* packed) {
  using D = conv_direct_blocking<T>;
  for (std::size_t q = 0; q * D::NR < o; ++q) {
    const std::size_t width = conv_panel_width<T>(o, q), cols = std::min(width, o - q * D::NR);
    T* dst = packed + q * D::NR * k;
    const T* src = f + q * D::NR;
    for (std::size_t p = 0; p < k; ++p, src += o, dst += width) {
      std::memcpy(dst, src, cols * sizeof(T));
      std::fill(dst + cols, dst + width, T(0));
    }
  }
}

/// y[r][j] (+)= sum over the segments t (null: skipped) and p in [0, len) of A_t(r, p) * B_t(p, j),
/// for R rows of y (ldy apart) and NB * W columns. A_t(r, p) = segments[t][r * rstride + (p0 + p) *
/// pstride]; B_t(p, j) = bp[(t * seg_rows + p) * width + j], a packed panel. The forward pass: a
/// segment per tap, r a pixel, p a channel (from p0); the filter gradient: one segment, r a
/// channel, p a pixel. y is overwritten or accumulated into.
template <class T, std::size_t R, std::size_t NB>
void conv_direct_micro_kernel(const T* const* segments, std::size_t nseg, std::size_t p0, std::size_t len,
                              std::size_t rstride, std::size_t pstride, const T* bp, std::size_t seg_rows,
                              std::size_t width, T* y, std::size_t ldy, bool accumulate) {
  using B = batch_t<T>;
  constexpr std::size_t W = B::size;
  B acc[R][NB];
  load_tile(acc, y, ldy, accumulate);
  for (std::size_t t = 0; t < nseg; ++t, bp += seg_rows * width) {
    if (segments[t] == nullptr) continue;
    const T* a = segments[t] + p0 * pstride;
    const T* b = bp;
    for (std::size_t p = 0; p < len; ++p, a += pstride, b += width) {
      B bv[NB];
      unrolled<NB>([&](auto j) STATICFLOW_LAMBDA_INLINE { bv[j] = B::load_aligned(b + j * W); });
      unrolled<R>([&](auto r) STATICFLOW_LAMBDA_INLINE {
        const B av(a[r * rstride]);
        unrolled<NB>([&](auto j) STATICFLOW_LAMBDA_INLINE { acc[r][j] = fmadd(av, bv[j], acc[r][j]); });
      });
    }
  }
  store_tile(acc, y, ldy);
}

/// The micro-kernel for r rows (1 <= r <= MR) and a panel of `width` columns, of which `cols`
/// are y's (a narrower tile goes through a local one).
template <class T>
void conv_direct_tile(std::size_t r, std::size_t cols, std::size_t width, const T* const* segments, std::size_t nseg,
                      std::size_t p0, std::size_t len, std::size_t rstride, std::size_t pstride, const T* bp,
                      std::size_t seg_rows, T* y, std::size_t ldy, bool accumulate) {
  using D = conv_direct_blocking<T>;
  const auto run = [&](T* out, std::size_t ldo) {
    [&]<std::size_t... R>(std::index_sequence<R...>) {
      if (width == D::NR)
        (void)((r == R + 1 && (conv_direct_micro_kernel<T, R + 1, 2>(segments, nseg, p0, len, rstride, pstride, bp,
                                                                      seg_rows, width, out, ldo, accumulate),
                               true)) ||
               ...);
      else
        (void)((r == R + 1 && (conv_direct_micro_kernel<T, R + 1, 1>(segments, nseg, p0, len, rstride, pstride, bp,
                                                                      seg_rows, width, out, ldo, accumulate),
                               true)) ||
               ...);
    }(std::make_index_sequence<D::MR>{});
  };
  if (cols == width) return run(y, ldy);
  alignas(64) T tile[D::MR * D::NR];
  for (std::size_t i = 0; i < r; ++i) {
    if (accumulate) std::memcpy(tile + i * width, y + i * ldy, cols * sizeof(T));
    std::fill(tile + i * width + (accumulate ? cols : 0), tile + (i + 1) * width, T(0));
  }
  run(tile, width);
  for (std::size_t i = 0; i < r; ++i) std::memcpy(y + i * ldy, tile + i * width, cols * sizeof(T));
}

/// [begin, end) in ceil(length / MR) tiles of nearly equal length (49 pixels with MR = 12: 9, 10,
/// 10, 10, 10 -- not 12, 12, 12, 12, 1, whose one-row tile would run at a fraction of the kernel's
/// speed): tile(start, length) for each.
template <std::size_t MR, class F>
void balanced_tiles(std::size_t begin, std::size_t end, F&& tile) {
  const std::size_t length = end - begin, count = (length + MR - 1) / MR;
  for (std::size_t i = 0; i < count; ++i) tile(begin + length * i / count, length * (i + 1) / count - length * i / count);
}

/// What the direct kernels read of a convolution: conv2d's geometry of one depth plane (n
/// images, channels c, ...) and the depth axis, of extent 1 for a conv2d (conv3d: D, KD, OD, SD,
/// DD and the front padding). Taps run over (kd, kh, kw), the filter is [KD*KH*KW*C, O] (HWIO or
/// DHWIO as it lies), output rows over (b, od, oh).
struct direct_geometry {
  graph::conv2d_geometry plane;
  std::size_t d = 1, kd = 1, od = 1, sd = 1, dd = 1, pad_front = 0;
  std::size_t taps() const { return kd * plane.kh * plane.kw; }
  std::size_t output_rows() const { return plane.n * od * plane.oh; }
  /// Input row (W * C values) that tap t of output row `row` reads, or null in the padding.
  template <class T>
  const T* input_row(const T* x, std::size_t row, std::size_t t) const {
    const graph::conv2d_geometry& g = plane;
    const std::size_t oh = row % g.oh, odepth = row / g.oh % od, b = row / g.oh / od;
    const std::ptrdiff_t id = std::ptrdiff_t(odepth * sd + t / (g.kh * g.kw) * dd) - std::ptrdiff_t(pad_front);
    const std::ptrdiff_t ih = std::ptrdiff_t(oh * g.sh + t / g.kw % g.kh * g.dh) - std::ptrdiff_t(g.pad_top);
    if (id < 0 || id >= std::ptrdiff_t(d) || ih < 0 || ih >= std::ptrdiff_t(g.h)) return nullptr;
    return x + ((b * d + std::size_t(id)) * g.h + std::size_t(ih)) * g.w * g.c;
  }
};

/// Whether the direct kernels apply: ungrouped, float or double.
template <class T>
bool conv_direct_applies(const graph::conv2d_geometry& g) {
  return simd_gemm_type<T> && g.groups == 1 && g.c > 0 && g.o > 0;
}

/// y [N,(OD,)OH,OW,O] = the convolution of x [N,(D,)H,W,C] with f [(KD,)KH,KW,C,O], ungrouped,
/// output rows across threads.
template <class T>
void conv_direct_forward(const direct_geometry& dg, const T* x, const T* f, T* y, std::size_t threads) {
  using D = conv_direct_blocking<T>;
  constexpr std::size_t MR = D::MR;
  const graph::conv2d_geometry& g = dg.plane;
  const std::size_t C = g.c, O = g.o, ntaps = dg.taps(), K = ntaps * C;
  const std::size_t panels = (O + D::NR - 1) / D::NR;
  T* packed = static_cast<T*>(plan::arena::local().allocate(sizeof(T) * panels * D::NR * K));
  conv_pack_filter(f, K, O, packed);
  // Blocks of the contracted axis: whole taps when C fits a block, else channel ranges of one tap.
  const std::size_t taps_per_block = C <= D::KC ? std::max<std::size_t>(1, D::KC / C) : 1;
  const std::size_t channels_per_block = std::min(C, D::KC);
  // Output pixels whose windows stay inside the image's width: [inner_begin, inner_end).
  const std::size_t span = (g.kw - 1) * g.dw;
  const std::size_t inner_begin = std::min(g.ow, (g.pad_left + g.sw - 1) / g.sw);
  const std::size_t inner_end =
      g.w + g.pad_left < span + 1 ? inner_begin : std::clamp((g.w - 1 + g.pad_left - span) / g.sw + 1, inner_begin, g.ow);
  parallel_for(dg.output_rows(), threads, [&](std::size_t begin, std::size_t end) {
    const plan::arena_scope scratch;
    const T** tap_starts = static_cast<const T**>(plan::arena::local().allocate(sizeof(const T*) * ntaps));
    T* edge = static_cast<T*>(plan::arena::local().allocate(sizeof(T) * MR * K));
    for (std::size_t row = begin; row < end; ++row) {
      T* const yrow = y + row * g.ow * O;
      // A tile of r pixels from ow0: its taps (from the image, or from `edge` at the borders).
      const auto tile = [&](std::size_t ow0, std::size_t r) {
        const bool inner = ow0 >= inner_begin && ow0 + r <= inner_end;
        for (std::size_t t = 0; t < ntaps; ++t) {
          const T* in = dg.input_row(x, row, t);
          const std::size_t reach = t % g.kw * g.dw;
          if (in == nullptr) {
            tap_starts[t] = nullptr;
          } else if (inner) {
            tap_starts[t] = in + (ow0 * g.sw + reach - g.pad_left) * C;
          } else {
            T* dst = edge + t * C;
            for (std::size_t i = 0; i < r; ++i, dst += K) {
              const std::ptrdiff_t iw = std::ptrdiff_t((ow0 + i) * g.sw + reach) - std::ptrdiff_t(g.pad_left);
              if (iw < 0 || iw >= std::ptrdiff_t(g.w)) std::fill_n(dst, C, T(0));
              else std::memcpy(dst, in + std::size_t(iw) * C, C * sizeof(T));
            }
            tap_starts[t] = edge + t * C;
          }
        }
        const std::size_t rstride = inner ? g.sw * C : K;
        for (std::size_t t0 = 0; t0 < ntaps; t0 += taps_per_block) {
          const std::size_t nt = std::min(taps_per_block, ntaps - t0);
          for (std::size_t c0 = 0; c0 < C; c0 += channels_per_block) {
            const std::size_t cn = std::min(channels_per_block, C - c0);
            const bool accumulate = t0 > 0 || c0 > 0;
            for (std::size_t q = 0; q < panels; ++q) {
              const std::size_t width = conv_panel_width<T>(O, q), cols = std::min(width, O - q * D::NR);
              const T* bp = packed + q * D::NR * K + (t0 * C + c0) * width;
              conv_direct_tile(r, cols, width, tap_starts + t0, nt, c0, cn, rstride, 1, bp, C, yrow + ow0 * O + q * D::NR,
                               O, accumulate);
            }
          }
        }
      };
      // Tiles never straddle the inner range's bounds, so that a tile is all inner or all edge.
      balanced_tiles<MR>(0, inner_begin, tile);
      balanced_tiles<MR>(inner_begin, inner_end, tile);
      balanced_tiles<MR>(inner_end, g.ow, tile);
    }
  });
}

/// Whether the input gradient takes the direct kernel: stride 1, padding no wider than the
/// dilated filter's reach (so that the turned-around convolution's padding is not negative).
inline bool conv_direct_input_gradient_fits(const direct_geometry& dg) {
  const graph::conv2d_geometry& g = dg.plane;
  return dg.sd == 1 && g.sh == 1 && g.sw == 1 && dg.kd > 0 && g.kh > 0 && g.kw > 0 && dg.pad_front <= (dg.kd - 1) * dg.dd &&
         g.pad_top <= (g.kh - 1) * g.dh && g.pad_left <= (g.kw - 1) * g.dw;
}

/// dx [N,(D,)H,W,C] = the gradient of the convolution with respect to x given dy, stride 1: the
/// convolution of dy with the filter turned around, f'[kd, kh, kw, o, c] = f[KD-1-kd, KH-1-kh,
/// KW-1-kw, c, o], padded by the dilated filter's reach less the forward padding on each axis
/// (dx[ih] gathers dy[ih + pad - kh * DH] over the taps kh). No patch gradient, no scatter.
template <class T>
void conv_direct_input_gradient(const direct_geometry& dg, const T* f, const T* dy, T* dx, std::size_t threads) {
  const plan::arena_scope scratch;
  const graph::conv2d_geometry& g = dg.plane;
  const std::size_t C = g.c, O = g.o, ntaps = dg.taps();
  T* turned = static_cast<T*>(plan::arena::local().allocate(sizeof(T) * ntaps * C * O));
  for (std::size_t t = 0; t < ntaps; ++t) {  // the taps in reverse order are the turned-around filter
    const T* tap = f + t * C * O;
    T* dst = turned + (ntaps - 1 - t) * O * C;
    for (std::size_t c = 0; c < C; ++c)
      for (std::size_t o = 0; o < O; ++o) dst[o * C + c] = tap[c * O + o];
  }
  direct_geometry turned_geometry = dg;
  graph::conv2d_geometry& tg = turned_geometry.plane;
  tg.h = g.oh, tg.w = g.ow, tg.c = O, tg.o = C, tg.oh = g.h, tg.ow = g.w;
  tg.pad_top = (g.kh - 1) * g.dh - g.pad_top, tg.pad_left = (g.kw - 1) * g.dw - g.pad_left;
  turned_geometry.d = dg.od, turned_geometry.od = dg.d, turned_geometry.pad_front = (dg.kd - 1) * dg.dd - dg.pad_front;
  conv_direct_forward(turned_geometry, dy, turned, dx, threads);
}

/// df [(KD,)KH,KW,C,O] = the gradient of the convolution with respect to f given dy, ungrouped:
/// df[tap][c][o] is the sum over output pixels of x at the pixel's tap times dy. For each output
/// row, dy's row is packed into column panels; each tile of MR channels x one panel of one tap
/// then accumulates, in registers, the pixels whose tap lies inside the image (a contiguous range
/// per tap: no patch, no zeros), reading x in place (r a channel, p a pixel SW * C apart).
/// Threads split the tiles, never the pixels: every element of df is one chain over the output
/// rows and pixels in order, whatever the thread count.
template <class T>
void conv_direct_filter_gradient(const direct_geometry& dg, const T* x, const T* dy, T* df, std::size_t threads) {
  using D = conv_direct_blocking<T>;
  const graph::conv2d_geometry& g = dg.plane;
  const std::size_t C = g.c, O = g.o, ntaps = dg.taps();
  const std::size_t panels = (O + D::NR - 1) / D::NR, channel_tiles = (C + D::MR - 1) / D::MR;
  std::fill_n(df, ntaps * C * O, T(0));
  const plan::arena_scope scratch;
  T* packed = static_cast<T*>(plan::arena::local().allocate(sizeof(T) * panels * D::NR * g.ow));
  for (std::size_t row = 0; row < dg.output_rows(); ++row) {
    conv_pack_filter(dy + row * g.ow * O, g.ow, O, packed);
    // Tiles ordered panel, tap, channels: a thread's consecutive tiles reuse one panel of dy.
    parallel_for(panels * ntaps * channel_tiles, threads, [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) {
        // channel tiles of nearly equal size, as balanced_tiles makes them
        const std::size_t q = i / (ntaps * channel_tiles), t = i / channel_tiles % ntaps, tile = i % channel_tiles;
        const std::size_t c0 = C * tile / channel_tiles, rows = C * (tile + 1) / channel_tiles - c0;
        const T* in = dg.input_row(x, row, t);
        if (in == nullptr) continue;
        // The pixels whose column ow * SW + kw * DW - PL is inside [0, W).
        const std::size_t reach = t % g.kw * g.dw;
        const std::size_t lo = reach >= g.pad_left ? 0 : (g.pad_left - reach + g.sw - 1) / g.sw;
        const std::size_t hi =
            g.w + g.pad_left <= reach ? 0 : std::min(g.ow, (g.w - 1 + g.pad_left - reach) / g.sw + 1);
        if (lo >= hi) continue;
        const T* a = in + (lo * g.sw + reach - g.pad_left) * C + c0;
        const std::size_t width = conv_panel_width<T>(O, q), cols = std::min(width, O - q * D::NR);
        conv_direct_tile(rows, cols, width, &a, 1, 0, hi - lo, 1, g.sw * C,
                         packed + q * D::NR * g.ow + lo * width, 0, df + (t * C + c0) * O + q * D::NR, O, true);
      }
    });
  }
}

}  // namespace staticflow::cpu::detail
