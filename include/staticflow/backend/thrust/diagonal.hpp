// staticflow/backend/thrust/diagonal.hpp -- diag_part and set_diag (graph/linalg.hpp) on the
// device: one thread per diagonal element (set_diag first copies the matrices).
#pragma once

#include <cstddef>

#include <thrust/copy.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>

#include "staticflow/backend/thrust/operand.hpp"
#include "staticflow/backend/thrust/system.hpp"
#include "staticflow/core/config.hpp"
#include "staticflow/graph/linalg.hpp"

namespace staticflow::thrust_backend {
namespace detail {
/// Element e of the diagonals (matrix e / k, position e % k) read from or written to the matrices.
template <class T>
struct diagonal_element {
  const T* from;
  T* to;
  graph::detail::diagonal_layout l;
  bool into_matrices;
  STATICFLOW_HD void operator()(std::size_t e) const {
    const std::size_t k = l.k(), at = (e / k) * l.m * l.n + (e % k) * (l.n + 1);
    if (into_matrices) to[at] = from[e];
    else to[e] = from[at];
  }
};
}  // namespace detail

template <class X, bool Square, class Views, std::size_t R, class T>
void materialize(const graph::diag_part<X, Square>& n, const Views& views, const extents<R>&, T* out) {
  const auto xe = graph::node_extents(n.x, staticflow::detail::extents_of_views(views));
  const graph::detail::diagonal_layout l = graph::detail::diagonal_layout_of(xe);
  if (l.batch * l.k() == 0) return;
  const T* x = detail::contiguous_operand<T>(n.x, views, xe);
  ::thrust::for_each_n(async_policy(), ::thrust::counting_iterator<std::size_t>(0), l.batch * l.k(),
                       detail::diagonal_element<T>{x, out, l, false});
}

template <class X, class D, class Views, std::size_t R, class T>
void materialize(const graph::set_diag<X, D>& n, const Views& views, const extents<R>& out_ext, T* out) {
  const auto ext_views = staticflow::detail::extents_of_views(views);
  const auto xe = graph::node_extents(n.x, ext_views);
  const graph::detail::diagonal_layout l = graph::detail::diagonal_layout_of(xe);
  const std::size_t size = staticflow::detail::product(out_ext);
  if (size == 0) return;
  const T* x = detail::contiguous_operand<T>(n.x, views, xe);
  const T* d = l.k() == 0 ? nullptr : detail::contiguous_operand<T>(n.diagonal, views, graph::node_extents(n.diagonal, ext_views));
  if (x != out) ::thrust::copy_n(async_policy(), x, size, out);
  if (l.k() == 0) return;
  ::thrust::for_each_n(async_policy(), ::thrust::counting_iterator<std::size_t>(0), l.batch * l.k(),
                       detail::diagonal_element<T>{d, out, l, true});
}

}  // namespace staticflow::thrust_backend
