// staticflow/backend/thrust/segment.hpp -- the segment sums and their gradient (graph/segment.hpp)
// on the device, with gather's functors (backend/thrust/gather.hpp): the sum is one thread per
// column adding the positions in order (the CPU kernel's order: the same bits, no atomics), the
// gradient one thread per element. The ids are copied to the host and checked there before any
// kernel writes (a synchronization point, as for gather).
#pragma once

#include <cstddef>
#include <type_traits>
#include <vector>

#include <thrust/fill.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>

#include "staticflow/backend/thrust/gather.hpp"
#include "staticflow/backend/thrust/operand.hpp"
#include "staticflow/backend/thrust/system.hpp"
#include "staticflow/graph/segment.hpp"

namespace staticflow::thrust_backend {
namespace detail {
/// A segment node's operands, and its ids checked on the host before the kernel writes anything.
template <class N, class Views>
auto checked_segment_inputs(const N& n, const Views& views) {
  using J = typename std::remove_cvref_t<decltype(n.ids)>::value_type;
  const auto found = graph::detail::segment_operands_of(n, staticflow::detail::extents_of_views(views));
  const J* ids = contiguous_operand<J>(n.ids, views, found.id_extents);
  const std::vector<J> host = indices_on_host(ids, found.layout.positions);
  graph::detail::check_segment_ids<typename N::kind>(host.data(), found.id_extents, found.layout.n);
  struct inputs {
    std::remove_const_t<decltype(found)> operands;
    const J* ids;
  };
  return inputs{found, ids};
}
}  // namespace detail

template <class Kind, class X, class I, std::size_t N, class Views, std::size_t R, class T>
void materialize(const graph::segment_sum<Kind, X, I, N>& n, const Views& views, const extents<R>& out_ext, T* out) {
  const auto in = detail::checked_segment_inputs(n, views);
  const graph::detail::gather_layout l = in.operands.layout;
  const std::size_t size = staticflow::detail::product(out_ext);
  if (size == 0) return;
  // data is evaluated before anything is written: if it throws, out is untouched
  const T* data = l.positions == 0 ? nullptr : detail::contiguous_operand<T>(n.data, views, in.operands.data_extents);
  ::thrust::fill_n(async_policy(), out, size, T(0));
  if (l.positions == 0) return;
  ::thrust::for_each_n(async_policy(), ::thrust::counting_iterator<std::size_t>(0), l.inner,
                       detail::scatter_column<T, typename I::value_type, true>{data, in.ids, out, l});
}

template <class Node>
struct slot_evaluator;  // (declared in backend/thrust/run_plan.hpp, which includes this header)

/// tf.math.segment_sum without num_segments: the ids copied to the host, counted and checked,
/// then the result allocated with that many rows and summed into on the device.
template <class X, class I, std::size_t N>
struct slot_evaluator<graph::segment_sum<graph::counted_segments, X, I, N>> {
  using node_type = graph::segment_sum<graph::counted_segments, X, I, N>;
  template <class All, class Out>
  static void run(const node_type& n, All& all, const Out& out) {
    using T = typename X::value_type;
    using J = typename I::value_type;
    const auto found = graph::detail::counted_operands_of(n, staticflow::detail::extents_of_views(all));
    const auto& xe = found.data_extents;
    const auto& ie = found.id_extents;
    graph::detail::gather_layout l = found.layout;
    const J* ids = l.positions > 0 ? detail::contiguous_operand<J>(n.ids, all, ie) : nullptr;
    const std::vector<J> host = detail::indices_on_host(ids, l.positions);
    l.n = graph::detail::counted_segments_of(host.data(), l.positions);
    graph::detail::check_segment_ids<graph::counted_segments>(host.data(), ie, l.n);
    // data is evaluated before the result is allocated: if it throws, nothing is written
    const T* data = l.positions * l.inner == 0 ? nullptr : detail::contiguous_operand<T>(n.data, all, xe);
    T* result = out.template allocate<0>(node_type::counted_extents(xe, l.n));
    if (l.n * l.inner == 0) return;
    ::thrust::fill_n(async_policy(), result, l.n * l.inner, T(0));
    if (l.positions == 0) return;
    ::thrust::for_each_n(async_policy(), ::thrust::counting_iterator<std::size_t>(0), l.inner,
                         detail::scatter_column<T, J, true>{data, ids, result, l});
  }
};

template <class Kind, class G, class X, class I, std::size_t N, class Views, std::size_t R, class T>
void materialize(const graph::segment_sum_gradient<Kind, G, X, I, N>& n, const Views& views, const extents<R>&, T* out) {
  const auto in = detail::checked_segment_inputs(n, views);
  const graph::detail::gather_layout l = in.operands.layout;
  const std::size_t size = l.positions * l.inner;
  if (size == 0) return;
  const T* g = detail::contiguous_operand<T>(n.g, views, n.adjoint_extents(in.operands.data_extents, in.operands.id_extents, l.n));
  ::thrust::for_each_n(async_policy(), ::thrust::counting_iterator<std::size_t>(0), size,
                       detail::gather_element<T, typename I::value_type, true>{g, in.ids, out, l});
}

}  // namespace staticflow::thrust_backend
