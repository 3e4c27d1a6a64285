// staticflow/backend/cpu/softmax.hpp -- softmax and log_softmax (graph::softmax_node) on the CPU,
// row by row.
//
// Along the last axis each row is three short passes while it sits in L1: the row's max (four
// NaN-propagating accumulators), then exp(x - max) stored into the output and summed (four
// accumulators), then the output scaled by 1 / sum (softmax) or x - max - log(sum) written
// (log_softmax). exp is computed once per element, with xsimd's vector exp everywhere: the last
// partial batch of a row is padded with -inf (whose exp adds 0 to the sum), so an element's value
// does not depend on its position. Rows are split across the thread pool above
// cpu::parallel_grain elements; a row is computed the same way on any thread, so the results do
// not depend on the thread count. Rows of at most one batch run a batch's width of rows at a
// time, one row per lane, each lane doing the row kernel's operations. Along another axis, the
// same three passes run over the axis with the lanes across the trailing dimensions (one thread).
//
// Accuracy: exp is xsimd's (within 4 ulp of the C library's); the sum adds four accumulators'
// lanes in a fixed order; softmax multiplies by the rounded reciprocal of the sum (1 ulp more
// than a division). An all -inf row or one holding +inf or NaN gives NaN, as the composite
// exp(x - max) / sum(...) does.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include <xsimd/xsimd.hpp>

#include "staticflow/backend/cpu/operand.hpp"
#include "staticflow/backend/cpu/parallel.hpp"
#include "staticflow/backend/cpu/simd_eval.hpp"
#include "staticflow/core/config.hpp"
#include "staticflow/graph/composites.hpp"
#include "staticflow/plan/arena.hpp"

STATICFLOW_DETAIL_INTRINSICS_BEGIN

namespace staticflow::cpu {
namespace detail {

template <class B>
STATICFLOW_INLINE B nan_max(const B& a, const B& b) {
  return xsimd::select((a > b) || nan_lanes(a), a, b);
}
template <class T>
STATICFLOW_INLINE T nan_max_scalar(T a, T b) {
  return (a > b || a != a) ? a : b;
}

/// Row of n elements at x into o (distinct buffers): softmax or log_softmax (Kind), in batches B.
template <class Kind, class T, class B = batch_t<T>>
void softmax_row(const T* __restrict x, T* __restrict o, std::size_t n) {
  constexpr std::size_t W = B::size;
  constexpr T neg_inf = -std::numeric_limits<T>::infinity();
  const std::size_t full = n - n % W;  // elements in whole batches
  const std::size_t rest = n - full;
  alignas(64) T pad[W];  // the last partial batch, padded with -inf
  if (rest) {
    std::fill(pad, pad + W, neg_inf);
    std::copy(x + full, x + n, pad);
  }

  // pass 1: the max
  B m0(neg_inf), m1(neg_inf), m2(neg_inf), m3(neg_inf);
  std::size_t j = 0;
  for (; j + 4 * W <= full; j += 4 * W) {
    m0 = nan_max(m0, B::load_unaligned(x + j));
    m1 = nan_max(m1, B::load_unaligned(x + j + W));
    m2 = nan_max(m2, B::load_unaligned(x + j + 2 * W));
    m3 = nan_max(m3, B::load_unaligned(x + j + 3 * W));
  }
  for (; j < full; j += W) m0 = nan_max(m0, B::load_unaligned(x + j));
  if (rest) m1 = nan_max(m1, B::load_aligned(pad));
  alignas(64) T lanes[W];
  nan_max(nan_max(m0, m1), nan_max(m2, m3)).store_aligned(lanes);
  T m = lanes[0];
  for (std::size_t l = 1; l < W; ++l) m = nan_max_scalar(m, lanes[l]);
  const B mb(m);

  // pass 2: exp(x - m), stored (softmax) and summed
  constexpr bool store = std::is_same<Kind, graph::softmax_kind>::value;
  B s0(T(0)), s1(T(0)), s2(T(0)), s3(T(0));
  j = 0;
  for (; j + 4 * W <= full; j += 4 * W) {
    const B e0 = xsimd::exp(B::load_unaligned(x + j) - mb);
    const B e1 = xsimd::exp(B::load_unaligned(x + j + W) - mb);
    const B e2 = xsimd::exp(B::load_unaligned(x + j + 2 * W) - mb);
    const B e3 = xsimd::exp(B::load_unaligned(x + j + 3 * W) - mb);
    if constexpr (store) {
      e0.store_unaligned(o + j);
      e1.store_unaligned(o + j + W);
      e2.store_unaligned(o + j + 2 * W);
      e3.store_unaligned(o + j + 3 * W);
    }
    s0 += e0, s1 += e1, s2 += e2, s3 += e3;
  }
  for (; j < full; j += W) {
    const B e = xsimd::exp(B::load_unaligned(x + j) - mb);
    if constexpr (store) e.store_unaligned(o + j);
    s0 += e;
  }
  alignas(64) T tail[W];
  if (rest) {
    const B e = xsimd::exp(B::load_aligned(pad) - mb);
    if constexpr (store) e.store_aligned(tail);
    s1 += e;
  }
  ((s0 + s1) + (s2 + s3)).store_aligned(lanes);
  T s = lanes[0];
  for (std::size_t l = 1; l < W; ++l) s += lanes[l];

  // pass 3: scale, or shift by log(sum)
  if constexpr (store) {
    const B inv(T(1) / s);
    for (j = 0; j < full; j += W) (B::load_unaligned(o + j) * inv).store_unaligned(o + j);
    if (rest) {
      (B::load_aligned(tail) * inv).store_aligned(tail);
      std::copy(tail, tail + rest, o + full);
    }
  } else {
    const B ls(std::log(s));  // (x - m) - log(s), the composite's order
    for (j = 0; j < full; j += W) ((B::load_unaligned(x + j) - mb) - ls).store_unaligned(o + j);
    if (rest) {
      ((B::load_aligned(pad) - mb) - ls).store_aligned(tail);
      std::copy(tail, tail + rest, o + full);
    }
  }
}

/// Rows of at most W elements: W rows at a time, one row per lane (the columns of a group of rows
/// transposed into a stack buffer). Each lane does what softmax_row does for its row -- the max
/// and the sum taken in element order from the first, the same exp, 1 / sum then a product
/// (std::log of the sum for log_softmax) -- so the values are the row kernel's, but the exps run
/// W rows to a batch with no padding and no reductions across lanes: a [32, 5] softmax spent
/// 40 ns a row on one padded batch's chain of dependent steps. The last group's lanes past the
/// rows hold zeros (computed and dropped), so a few rows take this path too ([2, 3]: 83 -> 51 ns,
/// against session 47's row in the narrowest batch that holds it). Gathering the columns and
/// scattering the results instead of the transposition measured slower (72 ns at [2, 3]).
template <class Kind, class T>
void softmax_short_rows(const T* __restrict x, T* __restrict o, std::size_t rows, std::size_t n) {
  using B = batch_t<T>;
  constexpr std::size_t W = B::size;
  constexpr bool store = std::is_same<Kind, graph::softmax_kind>::value;
  alignas(64) T block[W * W];  // element c of lane l's row at block[c * W + l]
  alignas(64) T sums[W];
  for (std::size_t r = 0; r < rows; r += W) {
    const T* xr = x + r * n;
    const std::size_t used = std::min(W, rows - r);  // the last group's other lanes hold zeros
    if (used < W) std::fill(block, block + n * W, T(0));
    for (std::size_t l = 0; l < used; ++l)
      for (std::size_t c = 0; c < n; ++c) block[c * W + l] = xr[l * n + c];
    B m(-std::numeric_limits<T>::infinity());
    for (std::size_t c = 0; c < n; ++c) m = nan_max(m, B::load_aligned(block + c * W));
    B s(T(0));
    for (std::size_t c = 0; c < n; ++c) {
      const B e = xsimd::exp(B::load_aligned(block + c * W) - m);
      if constexpr (store) e.store_aligned(block + c * W);
      s += e;
    }
    s.store_aligned(sums);
    if constexpr (store) {
      for (std::size_t l = 0; l < W; ++l) sums[l] = T(1) / sums[l];
      const B inv = B::load_aligned(sums);
      for (std::size_t c = 0; c < n; ++c) (B::load_aligned(block + c * W) * inv).store_aligned(block + c * W);
    } else {
      for (std::size_t l = 0; l < W; ++l) sums[l] = std::log(sums[l]);  // (x - m) - log(s)
      const B ls = B::load_aligned(sums);
      for (std::size_t c = 0; c < n; ++c) ((B::load_aligned(block + c * W) - m) - ls).store_aligned(block + c * W);
    }
    T* orow = o + r * n;
    for (std::size_t l = 0; l < used; ++l)
      for (std::size_t c = 0; c < n; ++c) orow[l * n + c] = block[c * W + l];
  }
}

/// The same along a middle axis: `outer` blocks of n x inner elements, lanes across inner.
template <class Kind, class T>
void softmax_columns(const T* x, T* o, std::size_t outer, std::size_t n, std::size_t inner) {
  using B = batch_t<T>;
  constexpr std::size_t W = B::size;
  constexpr T neg_inf = -std::numeric_limits<T>::infinity();
  constexpr bool store = std::is_same<Kind, graph::softmax_kind>::value;
  auto* m = static_cast<T*>(plan::arena::local().allocate(2 * sizeof(T) * inner));
  T* s = m + inner;
  for (std::size_t b = 0; b < outer; ++b) {
    const T* xb = x + b * n * inner;
    T* ob = o + b * n * inner;
    std::fill(m, m + inner, neg_inf);
    std::fill(s, s + inner, T(0));
    const std::size_t vec = inner - inner % W;
    for (std::size_t k = 0; k < n; ++k) {
      const T* xr = xb + k * inner;
      for (std::size_t i = 0; i < vec; i += W) nan_max(B::load_unaligned(m + i), B::load_unaligned(xr + i)).store_unaligned(m + i);
      for (std::size_t i = vec; i < inner; ++i) m[i] = nan_max_scalar(m[i], xr[i]);
    }
    for (std::size_t k = 0; k < n; ++k) {
      const T* xr = xb + k * inner;
      T* orow = ob + k * inner;
      for (std::size_t i = 0; i < vec; i += W) {
        const B e = xsimd::exp(B::load_unaligned(xr + i) - B::load_unaligned(m + i));
        if constexpr (store) e.store_unaligned(orow + i);
        (B::load_unaligned(s + i) + e).store_unaligned(s + i);
      }
      for (std::size_t i = vec; i < inner; ++i) {
        const T e = std::exp(xr[i] - m[i]);
        if constexpr (store) orow[i] = e;
        s[i] += e;
      }
    }
    if constexpr (store) {
      for (std::size_t i = 0; i < inner; ++i) s[i] = T(1) / s[i];
      for (std::size_t k = 0; k < n; ++k) {
        T* orow = ob + k * inner;
        for (std::size_t i = 0; i < vec; i += W) (B::load_unaligned(orow + i) * B::load_unaligned(s + i)).store_unaligned(orow + i);
        for (std::size_t i = vec; i < inner; ++i) orow[i] *= s[i];
      }
    } else {
      for (std::size_t i = 0; i < inner; ++i) s[i] = std::log(s[i]);
      for (std::size_t k = 0; k < n; ++k) {
        const T* xr = xb + k * inner;
        T* orow = ob + k * inner;
        for (std::size_t i = 0; i < vec; i += W)
          ((B::load_unaligned(xr + i) - B::load_unaligned(m + i)) - B::load_unaligned(s + i)).store_unaligned(orow + i);
        for (std::size_t i = vec; i < inner; ++i) orow[i] = (xr[i] - m[i]) - s[i];
      }
    }
  }
}
}  // namespace detail

/// Evaluates softmax / log_softmax node n into out (extents ext, the input's).
template <class Sig, class Kind, class A, int K, class Views, std::size_t R, class T>
void materialize(const graph::softmax_node<Kind, A, K>& n, const Views& views, const extents<R>& ext, T* out) {
  constexpr std::size_t axis = graph::softmax_node<Kind, A, K>::axis;
  const std::size_t size = staticflow::detail::product(ext);
  if (size == 0) return;
  const T* x = detail::contiguous_operand<T, Sig>(n.a, views, ext);
  const std::size_t len = ext[axis];
  std::size_t inner = 1;
  for (std::size_t d = axis + 1; d < R; ++d) inner *= ext[d];
  if (inner == 1) {
    const std::size_t rows = size / len;
    const std::size_t threads = threads_for(size);
    constexpr std::size_t W = detail::batch_t<T>::size;
    if (len <= W) {  // short rows, W to a batch (threads split whole groups of W rows)
      if (threads <= 1) {
        detail::softmax_short_rows<Kind>(x, out, rows, len);
      } else {
        parallel_for((rows + W - 1) / W, threads, [&](std::size_t g0, std::size_t g1) {
          const std::size_t r0 = g0 * W, r1 = std::min(g1 * W, rows);
          detail::softmax_short_rows<Kind>(x + r0 * len, out + r0 * len, r1 - r0, len);
        });
      }
    } else if (threads <= 1 || rows < 2) {
      for (std::size_t r = 0; r < rows; ++r) detail::softmax_row<Kind, T>(x + r * len, out + r * len, len);
    } else {
      parallel_for(rows, threads, [&](std::size_t r0, std::size_t r1) {
        for (std::size_t r = r0; r < r1; ++r) detail::softmax_row<Kind, T>(x + r * len, out + r * len, len);
      });
    }
  } else {
    detail::softmax_columns<Kind>(x, out, size / (len * inner), len, inner);
  }
}

}  // namespace staticflow::cpu

STATICFLOW_DETAIL_INTRINSICS_END
