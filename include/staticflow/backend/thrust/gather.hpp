// staticflow/backend/thrust/gather.hpp -- sf::gather and its gradient (graph/gather.hpp) on the
// device. The indices are copied to the host and checked there before any kernel writes (the CPU
// backend's error), which waits for the kernels before them: a gather is a synchronization point
// of the call. The forward pass is one thread per result element; the gradient one thread per
// column (outer block, inner element) that adds the positions in index order, the CPU kernel's
// order, so the sums are the same bits and no atomics are needed (but only outer x inner threads:
// 64 for an embedding table of width 64; sorting the positions by index would give one thread
// per element).
#pragma once

#include <cstddef>
#include <type_traits>
#include <vector>

#include <thrust/copy.h>
#include <thrust/device_ptr.h>
#include <thrust/fill.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>

#include "staticflow/backend/thrust/operand.hpp"
#include "staticflow/backend/thrust/system.hpp"
#include "staticflow/core/config.hpp"
#include "staticflow/graph/gather.hpp"

namespace staticflow::thrust_backend {
namespace detail {
/// The indices copied to the host, once the kernels before them have run (a synchronization point).
template <class J>
std::vector<J> indices_on_host(const J* device_indices, std::size_t positions) {
  std::vector<J> host(positions);
  if (positions == 0) return host;
  synchronize();
  ::thrust::copy_n(::thrust::device_pointer_cast(device_indices), positions, host.data());
  return host;
}
template <class J>
void check_indices_on_host(const J* device_indices, std::size_t positions, std::size_t n, const char* what) {
  const std::vector<J> host = indices_on_host(device_indices, positions);
  for (std::size_t p = 0; p < positions; ++p)
    if (host[p] < 0 || static_cast<std::size_t>(host[p]) >= n) graph::detail::throw_bad_index(what, p, host[p], n);
}

/// One result element of gather; with DropNegative zero for a negative index (the segment sums'
/// gradient, graph/segment.hpp).
template <class T, class J, bool DropNegative = false>
struct gather_element {
  const T* x;
  const J* indices;
  T* out;
  graph::detail::gather_layout l;
  STATICFLOW_HD void operator()(std::size_t e) const {
    const std::size_t k = e % l.inner, row = e / l.inner, p = row % l.positions, o = row / l.positions;
    if (DropNegative && indices[p] < 0) out[e] = T(0);
    else out[e] = x[(o * l.n + static_cast<std::size_t>(indices[p])) * l.inner + k];
  }
};

/// One column of gather's gradient, its positions added in order; with DropNegative a negative
/// index is skipped (the segment sums).
template <class T, class J, bool DropNegative = false>
struct scatter_column {
  const T* g;
  const J* indices;
  T* out;
  graph::detail::gather_layout l;
  STATICFLOW_HD void operator()(std::size_t column) const {
    const std::size_t o = column / l.inner, k = column % l.inner;
    for (std::size_t p = 0; p < l.positions; ++p) {
      if (DropNegative && indices[p] < 0) continue;
      out[(o * l.n + static_cast<std::size_t>(indices[p])) * l.inner + k] += g[(o * l.positions + p) * l.inner + k];
    }
  }
};
/// A gather or gather_gradient node's operands, and its indices read and checked against the
/// axis before the kernel writes anything.
template <class N, class Views>
auto checked_gather_inputs(const N& n, const Views& views, const char* what) {
  using J = typename std::remove_cvref_t<decltype(n.indices)>::value_type;
  const auto found = graph::detail::operands_of(n, staticflow::detail::extents_of_views(views));
  const J* indices = contiguous_operand<J>(n.indices, views, found.index_extents);
  check_indices_on_host(indices, found.layout.positions, found.layout.n, what);
  struct inputs {
    std::remove_const_t<decltype(found)> operands;
    const J* indices;
  };
  return inputs{found, indices};
}
}  // namespace detail

template <class X, class I, std::size_t Axis, class Views, std::size_t R, class T>
void materialize(const graph::gather<X, I, Axis>& n, const Views& views, const extents<R>&, T* out) {
  // named members, not a structured binding: clang 14 cannot capture one in a lambda
  const auto in = detail::checked_gather_inputs(n, views, "gather");
  const auto& xe = in.operands.x_extents;
  const graph::detail::gather_layout l = in.operands.layout;
  const auto* indices = in.indices;
  const std::size_t size = l.outer * l.positions * l.inner;
  if (size == 0) return;
  const T* x = detail::contiguous_operand<T>(n.x, views, xe);
  ::thrust::for_each_n(async_policy(), ::thrust::counting_iterator<std::size_t>(0), size,
                       detail::gather_element<T, typename I::value_type>{x, indices, out, l});
}

template <class G, class X, class I, std::size_t Axis, class Views, std::size_t R, class T>
void materialize(const graph::gather_gradient<G, X, I, Axis>& n, const Views& views, const extents<R>& out_ext, T* out) {
  // named members, not a structured binding: clang 14 cannot capture one in a lambda
  const auto in = detail::checked_gather_inputs(n, views, "gather gradient");
  const auto& xe = in.operands.x_extents;
  const graph::detail::gather_layout l = in.operands.layout;
  const auto* indices = in.indices;
  const std::size_t size = staticflow::detail::product(out_ext);
  if (size == 0) return;
  // the adjoint is evaluated before anything is written: if it throws, out is untouched
  const T* g = l.positions == 0 ? nullptr : detail::contiguous_operand<T>(n.g, views, n.gathered(xe, in.operands.index_extents));
  ::thrust::fill_n(async_policy(), out, size, T(0));
  if (l.positions == 0) return;
  ::thrust::for_each_n(async_policy(), ::thrust::counting_iterator<std::size_t>(0), l.outer * l.inner,
                       detail::scatter_column<T, typename I::value_type>{g, indices, out, l});
}

}  // namespace staticflow::thrust_backend
