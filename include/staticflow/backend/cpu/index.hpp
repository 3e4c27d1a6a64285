// staticflow/backend/cpu/index.hpp -- evaluating x[i] (graph::take), its gradient and the extent
// queries (sf::size, sf::dim, sf::shape_of) on the CPU.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/backend/cpu/kernel.hpp"
#include "staticflow/backend/cpu/operand.hpp"
#include "staticflow/backend/cpu/shape_ops.hpp"
#include "staticflow/control/index.hpp"
#include "staticflow/core/errors.hpp"
#include "staticflow/graph/shape_gradients.hpp"

namespace staticflow::cpu {
namespace detail {
/// A scalar node's value (a rank-0 evaluation).
template <class Sig, class N, class Views>
STATICFLOW_INLINE typename N::value_type scalar_value(const N& n, const Views& views) {
  if constexpr (graph::detail::is_literal<N>::value) {
    return n.value;
  } else if constexpr (graph::detail::is_argument<N>::value) {
    return *staticflow::detail::get<N::index>(views).data;
  } else {
    // every input of a rank-0 node has rank 0: read each one's only element (no loop)
    const auto cursors = flat_cursors<Sig, N>(views, std::make_index_sequence<std::tuple_size<Views>::value>{});
    return static_cast<typename N::value_type>(scalar_at(n, cursors, 0));
  }
}

/// Position i of an axis of `extent` elements, Python style (negative counts from the end);
/// throws sf::shape_error when out of range.
inline std::size_t checked_position(std::int64_t i, std::size_t extent, const char* what) {
  const std::int64_t n = static_cast<std::int64_t>(extent);
  const std::int64_t k = i < 0 ? i + n : i;
  if (k < 0 || k >= n)
    throw shape_error(std::string(what) + ": index " + std::to_string(i) + " is out of range for an axis of size " +
                      std::to_string(extent));
  return static_cast<std::size_t>(k);
}
}  // namespace detail

/// x[i] over an argument or a slot: where its row lies (checked first: an index out of range throws
/// here as it does below). run_plan.hpp points the slot's view there when nothing overwrites the
/// operand during the call (plan::reads_stable_operand), instead of copying the row.
template <class Sig, class X, class I, class Views, std::size_t R>
const typename X::value_type* row_in_operand(const graph::take<X, I>& n, const Views& views, const extents<R>& out_ext) {
  static_assert(graph::detail::is_argument<X>::value);
  const auto& operand = staticflow::detail::get<X::index>(views);
  const std::size_t row = detail::checked_position(static_cast<std::int64_t>(detail::scalar_value<Sig>(n.index, views)),
                                                   operand.ext[0], "x[i]");
  return operand.data + row * staticflow::detail::product(out_ext);
}

template <class Sig, class X, class I, class Views, std::size_t R, class T>
void materialize(const graph::take<X, I>& n, const Views& views, const extents<R>& out_ext, T* out) {
  const auto xe = graph::node_extents(n.a, staticflow::detail::extents_of_views(views));
  const std::size_t row = detail::checked_position(static_cast<std::int64_t>(detail::scalar_value<Sig>(n.index, views)),
                                                   xe[0], "x[i]");
  const std::size_t inner = staticflow::detail::product(out_ext);
  const T* in = detail::contiguous_operand<T, Sig>(n.a, views, xe);  // an argument is read where it lies
  std::copy_n(in + row * inner, inner, out);
}

template <class Sig, class G, class X, class I, class Views, std::size_t R, class T>
void materialize(const graph::take_gradient<G, X, I>& n, const Views& views, const extents<R>& out_ext, T* out) {
  const std::size_t row = detail::checked_position(static_cast<std::int64_t>(detail::scalar_value<Sig>(n.index, views)),
                                                   out_ext[0], "x[i] gradient");
  const auto ge = graph::node_extents(n.g, staticflow::detail::extents_of_views(views));
  detail::embed_window(detail::contiguous_operand<T, Sig>(n.g, views, ge), 0, row, 1, out, out_ext);
}

template <class Sig, class X, int Axis, class Views, std::size_t R>
void materialize(const graph::extent_query<X, Axis>& n, const Views& views, const extents<R>&, std::int32_t* out) {
  graph::extent_query<X, Axis>::compute(graph::node_extents(n.a, staticflow::detail::extents_of_views(views)), out);
}

}  // namespace staticflow::cpu
