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
// pixels); the input gradient is the forward pass over dy with the filter turned around, one per
// phase of the strides (a stride-1 convolution of the taps that reach those inputs).
// Every element of a result is one fused multiply-add chain in a fixed order, whatever the tile,
// the block or the thread, as in the matmul kernel: results do not depend on the thread count.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <numeric>
#include <utility>

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
/// DD). Taps run over (kd, kh, kw), the filter is [KD*KH*KW*C, O] (HWIO or DHWIO as it lies),
/// output rows over (b, od, oh). The padding is signed (negative: a crop, as the phases of a
/// strided input gradient need), and where the outputs go is a placement in a larger tensor:
/// output (b, od, oh, ow) is y's pixel (b, out_front + od * out_sd, out_top + oh * out_sh,
/// out_left + ow * out_sw) of [N, out_d, out_h, out_w, O]; by default y is [N, OD, OH, OW, O].
struct direct_geometry {
  graph::conv2d_geometry plane;  // its pads are not read: the signed ones below
  std::size_t d = 1, kd = 1, od = 1, sd = 1, dd = 1;
  std::ptrdiff_t pad_front = 0, pad_top = 0, pad_left = 0;
  std::size_t out_d = 1, out_h = 0, out_w = 0, out_front = 0, out_top = 0, out_left = 0, out_sd = 1, out_sh = 1, out_sw = 1;

  /// A conv2d's, or (with the depth axis) a conv3d plane's.
  static direct_geometry of(const graph::conv2d_geometry& g, std::size_t d = 1, std::size_t kd = 1, std::size_t od = 1,
                            std::size_t sd = 1, std::size_t dd = 1, std::size_t pad_front = 0) {
    direct_geometry dg;
    dg.plane = g, dg.d = d, dg.kd = kd, dg.od = od, dg.sd = sd, dg.dd = dd;
    dg.pad_front = std::ptrdiff_t(pad_front), dg.pad_top = std::ptrdiff_t(g.pad_top), dg.pad_left = std::ptrdiff_t(g.pad_left);
    dg.out_d = od, dg.out_h = g.oh, dg.out_w = g.ow;
    return dg;
  }
  std::size_t taps() const { return kd * plane.kh * plane.kw; }
  std::size_t output_rows() const { return plane.n * od * plane.oh; }
  /// Input row (W * C values) that tap t of output row `row` reads, or null in the padding.
  template <class T>
  const T* input_row(const T* x, std::size_t row, std::size_t t) const {
    const graph::conv2d_geometry& g = plane;
    const std::size_t oh = row % g.oh, odepth = row / g.oh % od, b = row / g.oh / od;
    const std::ptrdiff_t id = std::ptrdiff_t(odepth * sd + t / (g.kh * g.kw) * dd) - pad_front;
    const std::ptrdiff_t ih = std::ptrdiff_t(oh * g.sh + t / g.kw % g.kh * g.dh) - pad_top;
    if (id < 0 || id >= std::ptrdiff_t(d) || ih < 0 || ih >= std::ptrdiff_t(g.h)) return nullptr;
    return x + ((b * d + std::size_t(id)) * g.h + std::size_t(ih)) * g.w * g.c;
  }
  /// Where output row `row`'s first pixel goes (pixels out_sw * O apart).
  template <class T>
  T* output_row(T* y, std::size_t row) const {
    const std::size_t oh = row % plane.oh, odepth = row / plane.oh % od, b = row / plane.oh / od;
    return y + (((b * out_d + out_front + odepth * out_sd) * out_h + out_top + oh * out_sh) * out_w + out_left) * plane.o;
  }
  /// The output pixels whose windows stay inside the image's width: [first, last).
  std::pair<std::size_t, std::size_t> inner_columns() const {
    const graph::conv2d_geometry& g = plane;
    const std::ptrdiff_t sw = std::ptrdiff_t(g.sw), span = std::ptrdiff_t((g.kw - 1) * g.dw);
    const std::ptrdiff_t first = pad_left <= 0 ? 0 : (pad_left + sw - 1) / sw;
    const std::ptrdiff_t reach = std::ptrdiff_t(g.w) - 1 + pad_left - span;  // the last column's ow * SW at most
    const std::ptrdiff_t last = reach < 0 ? 0 : reach / sw + 1;
    const std::size_t begin = std::min(g.ow, std::size_t(first));
    return {begin, std::clamp(std::size_t(last), begin, g.ow)};
  }
};

/// Whether the direct kernels apply: ungrouped, float or double.
template <class T>
bool conv_direct_applies(const graph::conv2d_geometry& g) {
  return simd_gemm_type<T> && g.groups == 1 && g.c > 0 && g.o > 0;
}

/// y = the convolution of x [N,(D,)H,W,C] with f [(KD,)KH,KW,C,O], ungrouped, placed in y as
/// dg says ([N,(OD,)OH,OW,O] by default); output rows across threads. finish (matmul.hpp's
/// no_finish, or an epilogue's block_finish) sees each tile of pixels once its sums are complete.
template <class T, class Finish = no_finish>
void conv_direct_forward(const direct_geometry& dg, const T* x, const T* f, T* y, std::size_t threads,
                         const Finish& finish = {}) {
  using D = conv_direct_blocking<T>;
  constexpr std::size_t MR = D::MR;
  const graph::conv2d_geometry& g = dg.plane;
  const std::size_t C = g.c, O = g.o, ntaps = dg.taps(), K = ntaps * C, ldy = dg.out_sw * O;
  const std::size_t panels = (O + D::NR - 1) / D::NR;
  T* packed = static_cast<T*>(plan::arena::local().allocate(sizeof(T) * panels * D::NR * K));
  conv_pack_filter(f, K, O, packed);
  // Blocks of the contracted axis: whole taps when C fits a block, else channel ranges of one tap.
  const std::size_t taps_per_block = C <= D::KC ? std::max<std::size_t>(1, D::KC / C) : 1;
  const std::size_t channels_per_block = std::min(C, D::KC);
  const std::pair<std::size_t, std::size_t> inner = dg.inner_columns();  // (clang 14: no structured bindings in lambdas)
  const std::size_t inner_begin = inner.first, inner_end = inner.second;
  parallel_for(dg.output_rows(), threads, [&](std::size_t begin, std::size_t end) {
    const plan::arena_scope scratch;
    const T** tap_starts = static_cast<const T**>(plan::arena::local().allocate(sizeof(const T*) * ntaps));
    const T** tap_rows = static_cast<const T**>(plan::arena::local().allocate(sizeof(const T*) * ntaps));
    T* edge = static_cast<T*>(plan::arena::local().allocate(sizeof(T) * MR * K));
    for (std::size_t row = begin; row < end; ++row) {
      T* const yrow = dg.output_row(y, row);
      for (std::size_t t = 0; t < ntaps; ++t) tap_rows[t] = dg.input_row(x, row, t);  // (once per row, not per tile)
      // A tile of r pixels from ow0: its taps (from the image, or from `edge` at the borders).
      const auto tile = [&](std::size_t ow0, std::size_t r) {
        const bool inside = ow0 >= inner_begin && ow0 + r <= inner_end;
        for (std::size_t t = 0; t < ntaps; ++t) {
          const T* in = tap_rows[t];
          const std::ptrdiff_t reach = std::ptrdiff_t(t % g.kw * g.dw) - dg.pad_left;  // column of pixel 0, less ow * SW
          if (in == nullptr) {
            tap_starts[t] = nullptr;
          } else if (inside) {
            tap_starts[t] = in + std::size_t(std::ptrdiff_t(ow0 * g.sw) + reach) * C;
          } else {
            T* dst = edge + t * C;
            for (std::size_t i = 0; i < r; ++i, dst += K) {
              const std::ptrdiff_t iw = std::ptrdiff_t((ow0 + i) * g.sw) + reach;
              if (iw < 0 || iw >= std::ptrdiff_t(g.w)) std::fill_n(dst, C, T(0));
              else std::memcpy(dst, in + std::size_t(iw) * C, C * sizeof(T));
            }
            tap_starts[t] = edge + t * C;
          }
        }
        const std::size_t rstride = inside ? g.sw * C : K;
        for (std::size_t t0 = 0; t0 < ntaps; t0 += taps_per_block) {
          const std::size_t nt = std::min(taps_per_block, ntaps - t0);
          for (std::size_t c0 = 0; c0 < C; c0 += channels_per_block) {
            const std::size_t cn = std::min(channels_per_block, C - c0);
            const bool accumulate = t0 > 0 || c0 > 0;
            for (std::size_t q = 0; q < panels; ++q) {
              const std::size_t width = conv_panel_width<T>(O, q), cols = std::min(width, O - q * D::NR);
              const T* bp = packed + q * D::NR * K + (t0 * C + c0) * width;
              conv_direct_tile(r, cols, width, tap_starts + t0, nt, c0, cn, rstride, 1, bp, C, yrow + ow0 * ldy + q * D::NR,
                               ldy, accumulate);
            }
          }
        }
        finish(yrow + ow0 * ldy, r, ldy, std::size_t{0}, O);
      };
      // Tiles never straddle the inner range's bounds, so that a tile is all inner or all edge.
      balanced_tiles<MR>(0, inner_begin, tile);
      balanced_tiles<MR>(inner_begin, inner_end, tile);
      balanced_tiles<MR>(inner_end, g.ow, tile);
    }
  });
}

/// One axis of a strided input gradient's phase (the inputs i with (i + pad) % stride == phase):
/// the filter taps that reach them (first, then every `step`-th, `count` of them), and the
/// stride-1 convolution over dy that computes them: its dilation, signed padding, output count
/// and where its first output lies in dx.
struct gradient_phase_axis {
  std::size_t first_tap = 0, step = 1, count = 0, dilation = 1, outputs = 0, first_input = 0;
  std::ptrdiff_t pad = 0;
};
inline gradient_phase_axis gradient_phase(std::size_t phase, std::size_t in, std::size_t k, std::size_t stride,
                                          std::size_t dilation, std::ptrdiff_t pad) {
  gradient_phase_axis a;
  std::size_t first = 0;
  while (first < k && first * dilation % stride != phase) ++first;
  if (first == k) return a;  // no tap reaches this phase
  const std::size_t common = std::gcd(dilation, stride);
  a.first_tap = first, a.step = stride / common, a.count = (k - 1 - first) / a.step + 1, a.dilation = dilation / common;
  // Input i = stride * m + phase - pad gathers dy[m - e] over the taps, e = (tap * dilation - phase)
  // / stride growing by `dilation` per tap; turned around, a convolution of dy with padding e_last - m0.
  const std::ptrdiff_t s = std::ptrdiff_t(stride), offset = pad - std::ptrdiff_t(phase);
  const std::ptrdiff_t m0 = offset <= 0 ? -(-offset / s) : (offset + s - 1) / s;  // ceil(offset / s)
  const std::ptrdiff_t last = std::ptrdiff_t(in) - 1 + offset;                    // stride * m1 at most
  if (last < 0 || last / s < m0) return a;
  const std::ptrdiff_t e_last = std::ptrdiff_t((first * dilation - phase) / stride + (a.count - 1) * a.dilation);
  a.outputs = std::size_t(last / s - m0 + 1);
  a.first_input = std::size_t(s * m0 - offset);
  a.pad = e_last - m0;
  return a;
}

/// dx [N,(D,)H,W,C] = the gradient of the convolution with respect to x given dy: for each phase
/// of the strides (the inputs a same set of taps reaches; one phase at stride 1), the convolution
/// of dy with those taps of the filter turned around, f'[.., o, c] = f[.., c, o] in reverse tap
/// order, at stride 1 and signed padding, written to every stride-th input. No patch gradient,
/// no scatter of overlapping windows; inputs that no tap reaches are zeros.
template <class T>
void conv_direct_input_gradient(const direct_geometry& dg, const T* f, const T* dy, T* dx, std::size_t threads) {
  const graph::conv2d_geometry& g = dg.plane;
  const std::size_t C = g.c, O = g.o;
  const auto reached = [](std::size_t stride, std::size_t k, std::size_t dilation) {  // every phase by some tap
    for (std::size_t phase = 0; phase < stride; ++phase)
      if (gradient_phase(phase, 1, k, stride, dilation, 0).count == 0) return false;
    return true;
  };
  if (!reached(dg.sd, dg.kd, dg.dd) || !reached(g.sh, g.kh, g.dh) || !reached(g.sw, g.kw, g.dw))
    std::fill_n(dx, g.n * dg.d * g.h * g.w * C, T(0));  // the inputs no tap reaches stay zeros
  for (std::size_t pd = 0; pd < dg.sd; ++pd)
    for (std::size_t ph = 0; ph < g.sh; ++ph)
      for (std::size_t pw = 0; pw < g.sw; ++pw) {
        const auto depth = gradient_phase(pd, dg.d, dg.kd, dg.sd, dg.dd, dg.pad_front);
        const auto rows = gradient_phase(ph, g.h, g.kh, g.sh, g.dh, dg.pad_top);
        const auto cols = gradient_phase(pw, g.w, g.kw, g.sw, g.dw, dg.pad_left);
        if (depth.count * rows.count * cols.count == 0 || depth.outputs * rows.outputs * cols.outputs == 0) continue;
        const plan::arena_scope scratch;
        const std::size_t taps = depth.count * rows.count * cols.count;
        T* turned = static_cast<T*>(plan::arena::local().allocate(sizeof(T) * taps * C * O));
        for (std::size_t t = 0; t < taps; ++t) {  // turned tap t is the phase's tap (taps - 1 - t)
          const std::size_t u = taps - 1 - t, a = u / (rows.count * cols.count), b = u / cols.count % rows.count,
                            c = u % cols.count;
          const std::size_t kd = depth.first_tap + a * depth.step, kh = rows.first_tap + b * rows.step,
                            kw = cols.first_tap + c * cols.step;
          const T* tap = f + ((kd * g.kh + kh) * g.kw + kw) * C * O;
          T* dst = turned + t * O * C;
          for (std::size_t ci = 0; ci < C; ++ci)
            for (std::size_t o = 0; o < O; ++o) dst[o * C + ci] = tap[ci * O + o];
        }
        direct_geometry p;
        graph::conv2d_geometry& pg = p.plane;
        pg = g;
        pg.h = g.oh, pg.w = g.ow, pg.c = O, pg.o = C, pg.oh = rows.outputs, pg.ow = cols.outputs;
        pg.kh = rows.count, pg.kw = cols.count, pg.sh = pg.sw = 1, pg.dh = rows.dilation, pg.dw = cols.dilation;
        p.d = dg.od, p.kd = depth.count, p.od = depth.outputs, p.sd = 1, p.dd = depth.dilation;
        p.pad_front = depth.pad, p.pad_top = rows.pad, p.pad_left = cols.pad;
        p.out_d = dg.d, p.out_h = g.h, p.out_w = g.w;
        p.out_front = depth.first_input, p.out_top = rows.first_input, p.out_left = cols.first_input;
        p.out_sd = dg.sd, p.out_sh = g.sh, p.out_sw = g.sw;
        conv_direct_forward(p, dy, turned, dx, threads);
      }
}

/// df [(KD,)KH,KW,C,O] = the gradient of the convolution with respect to f given dy, ungrouped:
/// df[tap][c][o] is the sum over output pixels of x at the pixel's tap times dy. For each block of
/// output rows, dy's rows are packed into column panels; each tile of MR channels x one panel of
/// one tap then accumulates, in registers, the pixels whose tap lies inside the image (a
/// contiguous range per tap and row: no patch, no zeros), reading x in place (r a channel, p a
/// pixel SW * C apart).
/// Threads split the tiles, never the pixels: every element of df is one chain over the output
/// rows and pixels in order, whatever the thread count.
template <class T>
void conv_direct_filter_gradient(const direct_geometry& dg, const T* x, const T* dy, T* df, std::size_t threads) {
  using D = conv_direct_blocking<T>;
  const graph::conv2d_geometry& g = dg.plane;
  const std::size_t C = g.c, O = g.o, ntaps = dg.taps();
  const std::size_t panels = (O + D::NR - 1) / D::NR, channel_tiles = (C + D::MR - 1) / D::MR;
  std::fill_n(df, ntaps * C * O, T(0));
  // Blocks of output rows whose packed dy (about 256 KiB) stays in L2: a tile keeps its sums in
  // registers across the block's rows (short strided rows would otherwise load and store it per
  // row), one segment per row. The block depends on the geometry alone, not on the threads.
  constexpr std::size_t max_block = 64;
  const std::size_t row_bytes = panels * D::NR * g.ow * sizeof(T);
  const std::size_t block = std::clamp<std::size_t>((std::size_t{256} << 10) / std::max<std::size_t>(row_bytes, 1), 1, max_block);
  const plan::arena_scope scratch;
  T* packed = static_cast<T*>(plan::arena::local().allocate(sizeof(T) * panels * D::NR * g.ow * block));
  for (std::size_t row0 = 0; row0 < dg.output_rows(); row0 += block) {
    const std::size_t rows_here = std::min(block, dg.output_rows() - row0), pixels = rows_here * g.ow;
    conv_pack_filter(dy + row0 * g.ow * O, pixels, O, packed);  // the block's pixels as one matrix
    // Tiles ordered panel, tap, channels: a thread's consecutive tiles reuse one panel of dy.
    parallel_for(panels * ntaps * channel_tiles, threads, [&](std::size_t begin, std::size_t end) {
      const T* segments[max_block];
      for (std::size_t i = begin; i < end; ++i) {
        // channel tiles of nearly equal size, as balanced_tiles makes them
        const std::size_t q = i / (ntaps * channel_tiles), t = i / channel_tiles % ntaps, tile = i % channel_tiles;
        const std::size_t c0 = C * tile / channel_tiles, rows = C * (tile + 1) / channel_tiles - c0;
        // The pixels whose column ow * SW + kw * DW - PL is inside [0, W).
        const std::ptrdiff_t sw = std::ptrdiff_t(g.sw), reach = std::ptrdiff_t(t % g.kw * g.dw) - dg.pad_left;
        const std::ptrdiff_t first = reach >= 0 ? 0 : (-reach + sw - 1) / sw, last = std::ptrdiff_t(g.w) - 1 - reach;
        const std::size_t lo = std::size_t(first), hi = last < 0 ? 0 : std::min(g.ow, std::size_t(last / sw + 1));
        if (lo >= hi) continue;
        bool any = false;
        for (std::size_t r = 0; r < rows_here; ++r) {
          const T* in = dg.input_row(x, row0 + r, t);
          segments[r] = in == nullptr ? nullptr : in + std::size_t(std::ptrdiff_t(lo * g.sw) + reach) * C + c0;
          any = any || in != nullptr;
        }
        if (!any) continue;
        const std::size_t width = conv_panel_width<T>(O, q), cols = std::min(width, O - q * D::NR);
        conv_direct_tile(rows, cols, width, segments, rows_here, 0, hi - lo, 1, g.sw * C,
                         packed + q * D::NR * pixels + lo * width, g.ow, df + (t * C + c0) * O + q * D::NR, O, true);
      }
    });
  }
}

}  // namespace staticflow::cpu::detail
