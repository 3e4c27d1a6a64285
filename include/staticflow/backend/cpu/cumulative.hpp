// staticflow/backend/cpu/cumulative.hpp -- cumsum / cumprod (graph/cumulative.hpp) on the CPU.
//
// x seen as [outer, n, inner] around the axis (n elements along it). Each outer block runs along
// the axis once, carrying a row of `inner` running values: the inner loops are contiguous and
// vectorized by the compiler; with the last axis (inner = 1) each line is a sequential scan.
// Outer blocks are independent and split across threads; every element's value is the same
// sequence of additions (multiplications) whatever the thread count.
#pragma once

#include <algorithm>
#include <cstddef>

#include "staticflow/backend/cpu/operand.hpp"
#include "staticflow/backend/cpu/parallel.hpp"
#include "staticflow/graph/cumulative.hpp"

namespace staticflow::cpu {
namespace detail {

/// One line along the last axis (inner = 1): a scan with the running value in a register.
template <bool IsSum, bool Exclusive, bool Reverse, class T>
void cumulative_scan(const T* in, T* out, std::size_t n) {
  T acc = IsSum ? T(0) : T(1);
  for (std::size_t step = 0; step < n; ++step) {
    const std::size_t a = Reverse ? n - 1 - step : step;
    const T v = in[a];
    if constexpr (Exclusive) out[a] = acc;
    acc = step == 0 ? v : (IsSum ? acc + v : acc * v);
    if constexpr (!Exclusive) out[a] = acc;
  }
}

template <bool IsSum, bool Exclusive, bool Reverse, class T>
void cumulative_lines(const T* x, T* y, std::size_t outer, std::size_t n, std::size_t inner) {
  const T identity = IsSum ? T(0) : T(1);
  parallel_for(outer, threads_for(outer * n * inner), [&](std::size_t begin, std::size_t end) {
    for (std::size_t o = begin; o < end; ++o) {
      const T* in = x + o * n * inner;
      T* out = y + o * n * inner;
      if (inner == 1) {
        cumulative_scan<IsSum, Exclusive, Reverse>(in, out, n);
        continue;
      }
      // a row of `inner` running values carried along the axis: contiguous, vectorized
      for (std::size_t step = 0; step < n; ++step) {
        const std::size_t a = Reverse ? n - 1 - step : step;
        const T* xs = in + a * inner;
        T* ys = out + a * inner;
        if (step == 0) {  // the first element along the axis: x itself, or the identity
          for (std::size_t i = 0; i < inner; ++i) ys[i] = Exclusive ? identity : xs[i];
          continue;
        }
        const std::size_t prev = Reverse ? a + 1 : a - 1;
        const T* xp = in + prev * inner;
        const T* yp = out + prev * inner;
        for (std::size_t i = 0; i < inner; ++i) {
          if constexpr (Exclusive) ys[i] = IsSum ? yp[i] + xp[i] : yp[i] * xp[i];
          else ys[i] = IsSum ? yp[i] + xs[i] : yp[i] * xs[i];
        }
      }
    }
  });
}

}  // namespace detail

template <class Sig, class Kind, class X, bool Exclusive, bool Reverse, class Views, std::size_t R, class T>
void materialize(const graph::cumulative<Kind, X, Exclusive, Reverse>& n, const Views& views, const extents<R>& out_ext,
                 T* out) {
  const auto lines = n.lines(out_ext);
  if (lines.size() == 0) return;
  const T* x = detail::contiguous_operand<T, Sig>(n.x, views, out_ext);
  detail::cumulative_lines<graph::cumulative<Kind, X, Exclusive, Reverse>::is_sum, Exclusive, Reverse>(x, out, lines.outer,
                                                                                                      lines.n, lines.inner);
}

}  // namespace staticflow::cpu
