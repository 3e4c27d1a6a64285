// staticflow/backend/cpu/diagonal.hpp -- diag_part and set_diag (graph/linalg.hpp) on the CPU:
// a strided copy per matrix (element i of the diagonal is element i * (n + 1) of its matrix),
// matrices split across threads when there is enough work.
#pragma once

#include <algorithm>
#include <cstddef>

#include "staticflow/backend/cpu/operand.hpp"
#include "staticflow/backend/cpu/parallel.hpp"
#include "staticflow/graph/linalg.hpp"

namespace staticflow::cpu {

template <class Sig, class X, bool Square, class Views, std::size_t R, class T>
void materialize(const graph::diag_part<X, Square>& n, const Views& views, const extents<R>&, T* out) {
  const auto xe = graph::node_extents(n.x, staticflow::detail::extents_of_views(views));
  const graph::detail::diagonal_layout l = graph::detail::diagonal_layout_of(xe);
  const std::size_t k = l.k();
  if (l.batch * k == 0) return;
  const T* x = detail::contiguous_operand<T, Sig>(n.x, views, xe);
  parallel_for(l.batch, threads_for(l.batch * k), [&](std::size_t b, std::size_t e) {
    for (std::size_t m = b; m < e; ++m) {
      const T* from = x + m * l.m * l.n;
      T* to = out + m * k;
      for (std::size_t i = 0; i < k; ++i) to[i] = from[i * (l.n + 1)];
    }
  });
}

template <class Sig, class X, class D, class Views, std::size_t R, class T>
void materialize(const graph::set_diag<X, D>& n, const Views& views, const extents<R>& out_ext, T* out) {
  const auto ext_views = staticflow::detail::extents_of_views(views);
  const auto xe = graph::node_extents(n.x, ext_views);
  const graph::detail::diagonal_layout l = graph::detail::diagonal_layout_of(xe);
  const std::size_t k = l.k(), size = staticflow::detail::product(out_ext);
  if (size == 0) return;
  const T* x = detail::contiguous_operand<T, Sig>(n.x, views, xe);
  const T* d = k == 0 ? nullptr : detail::contiguous_operand<T, Sig>(n.diagonal, views, graph::node_extents(n.diagonal, ext_views));
  parallel_for(l.batch, threads_for(size), [&](std::size_t b, std::size_t e) {
    for (std::size_t m = b; m < e; ++m) {
      T* to = out + m * l.m * l.n;
      if (to != x + m * l.m * l.n) std::copy_n(x + m * l.m * l.n, l.m * l.n, to);
      for (std::size_t i = 0; i < k; ++i) to[i * (l.n + 1)] = d[m * k + i];
    }
  });
}

}  // namespace staticflow::cpu
