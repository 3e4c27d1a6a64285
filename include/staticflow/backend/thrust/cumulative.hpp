// staticflow/backend/thrust/cumulative.hpp -- cumsum / cumprod (graph/cumulative.hpp) on the
// device: one thread per line along the axis, running it in the CPU kernel's order (the same
// additions or multiplications, so the same values).
#pragma once

#include <cstddef>

#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>

#include "staticflow/backend/thrust/operand.hpp"
#include "staticflow/backend/thrust/system.hpp"
#include "staticflow/core/config.hpp"
#include "staticflow/graph/cumulative.hpp"

namespace staticflow::thrust_backend {
namespace detail {

template <bool IsSum, bool Exclusive, bool Reverse, class T>
struct cumulative_line {
  const T* x;
  T* y;
  std::size_t n, inner;
  STATICFLOW_HD void operator()(std::size_t line) const {
    const std::size_t o = line / inner, i = line % inner;
    const T* in = x + o * n * inner + i;
    T* out = y + o * n * inner + i;
    T acc = IsSum ? T(0) : T(1);
    for (std::size_t step = 0; step < n; ++step) {
      const std::size_t a = Reverse ? n - 1 - step : step;
      const T v = in[a * inner];
      if (Exclusive) {
        out[a * inner] = acc;
        acc = step == 0 ? v : (IsSum ? acc + v : acc * v);
      } else {
        acc = step == 0 ? v : (IsSum ? acc + v : acc * v);
        out[a * inner] = acc;
      }
    }
  }
};

}  // namespace detail

template <class Kind, class X, bool Exclusive, bool Reverse, class Views, std::size_t R, class T>
void materialize(const graph::cumulative<Kind, X, Exclusive, Reverse>& n, const Views& views, const extents<R>& out_ext,
                 T* out) {
  const auto lines = n.lines(out_ext);
  if (lines.size() == 0) return;
  const T* x = detail::contiguous_operand<T>(n.x, views, out_ext);
  constexpr bool is_sum = graph::cumulative<Kind, X, Exclusive, Reverse>::is_sum;
  ::thrust::for_each_n(async_policy(), ::thrust::counting_iterator<std::size_t>(0), lines.outer * lines.inner,
                       detail::cumulative_line<is_sum, Exclusive, Reverse, T>{x, out, lines.n, lines.inner});
}

}  // namespace staticflow::thrust_backend
