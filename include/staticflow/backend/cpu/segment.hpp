// staticflow/backend/cpu/segment.hpp -- the segment sums and their gradient (graph/segment.hpp) on
// the CPU, with gather's row loops (backend/cpu/gather.hpp): the sum is gather's gradient into
// num_segments rows with negative ids skipped (without num_segments: counted from the ids, then
// allocated), the gradient is gather with zeros for them. Every
// id is checked before anything is written; each segment adds its rows in position order, so 1 or
// 2 threads give the same bits.
#pragma once

#include <algorithm>
#include <cstddef>
#include <type_traits>

#include "staticflow/backend/cpu/gather.hpp"
#include "staticflow/backend/cpu/operand.hpp"
#include "staticflow/graph/segment.hpp"

namespace staticflow::cpu {
namespace detail {
/// A segment node's operands, and its ids read and checked before the kernel writes anything.
template <class Sig, class N, class Views>
auto checked_segment_inputs(const N& n, const Views& views) {
  using J = typename std::remove_cvref_t<decltype(n.ids)>::value_type;
  const auto found = graph::detail::segment_operands_of(n, staticflow::detail::extents_of_views(views));
  const J* ids = contiguous_operand<J, Sig>(n.ids, views, found.id_extents);
  graph::detail::check_segment_ids<typename N::kind>(ids, found.id_extents, found.layout.n);
  struct inputs {
    std::remove_const_t<decltype(found)> operands;
    const J* ids;
  };
  return inputs{found, ids};
}
}  // namespace detail

template <class Sig, class Kind, class X, class I, std::size_t N, class Views, std::size_t R, class T>
void materialize(const graph::segment_sum<Kind, X, I, N>& n, const Views& views, const extents<R>& out_ext, T* out) {
  const auto in = detail::checked_segment_inputs<Sig>(n, views);
  const graph::detail::gather_layout l = in.operands.layout;
  const bool empty = l.positions * l.inner == 0;
  // data is evaluated before anything is written: if it throws, out is untouched
  const T* data = empty ? nullptr : detail::contiguous_operand<T, Sig>(n.data, views, in.operands.data_extents);
  std::fill_n(out, staticflow::detail::product(out_ext), T(0));
  if (!empty) detail::add_rows<true>(data, in.ids, l, out);
}

template <class Node>
struct slot_evaluator;  // (declared in backend/cpu/run_plan.hpp, which includes this header)

/// tf.math.segment_sum without num_segments: the ids read and counted, checked, then the result
/// allocated with that many rows and summed into.
template <class X, class I, std::size_t N>
struct slot_evaluator<graph::segment_sum<graph::counted_segments, X, I, N>> {
  using node_type = graph::segment_sum<graph::counted_segments, X, I, N>;
  template <class FullSig, class All, class Out>
  static void run(const node_type& n, All& all, const Out& out) {
    using T = typename X::value_type;
    using J = typename I::value_type;
    const auto found = graph::detail::counted_operands_of(n, staticflow::detail::extents_of_views(all));
    const auto& xe = found.data_extents;
    const auto& ie = found.id_extents;
    graph::detail::gather_layout l = found.layout;
    const J* ids = l.positions > 0 ? detail::contiguous_operand<J, FullSig>(n.ids, all, ie) : nullptr;
    l.n = graph::detail::counted_segments_of(ids, l.positions);
    graph::detail::check_segment_ids<graph::counted_segments>(ids, ie, l.n);
    // data is evaluated before the result is allocated: if it throws, nothing is written
    const bool empty = l.positions * l.inner == 0;
    const T* data = empty ? nullptr : detail::contiguous_operand<T, FullSig>(n.data, all, xe);
    T* result = out.template allocate<0>(node_type::counted_extents(xe, l.n));
    std::fill_n(result, l.n * l.inner, T(0));
    if (!empty) detail::add_rows<true>(data, ids, l, result);
  }
};

template <class Sig, class Kind, class G, class X, class I, std::size_t N, class Views, std::size_t R, class T>
void materialize(const graph::segment_sum_gradient<Kind, G, X, I, N>& n, const Views& views, const extents<R>&, T* out) {
  const auto in = detail::checked_segment_inputs<Sig>(n, views);
  const graph::detail::gather_layout l = in.operands.layout;
  if (l.positions * l.inner == 0) return;
  const T* g = detail::contiguous_operand<T, Sig>(n.g, views, n.adjoint_extents(in.operands.data_extents, in.operands.id_extents, l.n));
  constexpr std::size_t static_inner = detail::static_inner_size<typename X::shape_type, I::shape_type::rank - 1>();
  detail::copy_rows<true, static_inner>(g, in.ids, l, out);
}

}  // namespace staticflow::cpu
