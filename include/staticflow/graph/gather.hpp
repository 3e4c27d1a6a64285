// staticflow/graph/gather.hpp -- sf::gather as tf.gather (batch_dims 0): slices of x picked along
// one axis by an integer tensor of indices, and its gradient (the adjoint of each picked slice
// added back where it came from: TF's UnsortedSegmentSum of the IndexedSlices, dense here).
//
//   result shape = x.shape[:axis] + indices.shape + x.shape[axis + 1:]
//
// The embedding lookup of a model (`sf::gather(table, token_ids)`) is the common case. An index
// outside [0, x.shape[axis]) throws sf::shape_error naming it, as TF's CPU kernel does (its GPU
// kernel writes zeros; JAX clamps): the backend checks every index before it writes anything.
#pragma once

#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticflow/core/axes.hpp"
#include "staticflow/core/errors.hpp"
#include "staticflow/core/shape.hpp"
#include "staticflow/graph/child_refs.hpp"
#include "staticflow/graph/operators.hpp"
#include "staticflow/graph/traversal.hpp"

namespace staticflow {
namespace graph {
namespace detail {
template <std::size_t Axis, class X, class I, class Before = std::make_index_sequence<Axis>,
          class After = std::make_index_sequence<X::rank - Axis - 1>, class Idx = std::make_index_sequence<I::rank>>
struct gathered_shape;
template <std::size_t Axis, class X, class I, std::size_t... B, std::size_t... A, std::size_t... K>
struct gathered_shape<Axis, X, I, std::index_sequence<B...>, std::index_sequence<A...>, std::index_sequence<K...>> {
  using type = shape<X::dims[B]..., I::dims[K]..., X::dims[Axis + 1 + A]...>;
};

/// The layout both kernels walk: x as [outer, n, inner] around the axis, `positions` indices.
struct gather_layout {
  std::size_t outer = 1, n = 1, inner = 1, positions = 1;
};

/// What both backends' kernels read of a gather or gather_gradient node: the run-time extents of
/// x and of the indices, and the layout from them.
template <std::size_t XR, std::size_t IR>
struct gather_operands {
  extents<XR> x_extents;
  extents<IR> index_extents;
  gather_layout layout;
};
template <class N, class ArgExtents>
gather_operands<N::x_rank, N::index_rank> operands_of(const N& n, const ArgExtents& args) {
  gather_operands<N::x_rank, N::index_rank> o{node_extents(n.x, args), node_extents(n.indices, args), {}};
  for (std::size_t d = 0; d < N::x_rank; ++d)
    (d < N::axis ? o.layout.outer : d > N::axis ? o.layout.inner : o.layout.n) *= o.x_extents[d];
  for (std::size_t d = 0; d < N::index_rank; ++d) o.layout.positions *= o.index_extents[d];
  return o;
}

/// The first index outside [0, n), as the error TF gives ("indices[2] = 7 is not in [0, 5)").
template <class J>
[[noreturn]] inline void throw_bad_index(const char* what, std::size_t position, J value, std::size_t n) {
  throw shape_error(std::string(what) + ": indices[" + std::to_string(position) + "] = " + std::to_string(value) +
                    " is not in [0, " + std::to_string(n) + ")");
}
}  // namespace detail

/// tf.gather(x, indices, axis=Axis). Materialized: the indices are data, known when it runs.
template <class X, class I, std::size_t Axis>
struct gather : node<gather<X, I, Axis>> {
  static constexpr bool materialized = true;
  static constexpr std::size_t axis = Axis;
  using value_type = typename X::value_type;
  using shape_type = typename detail::gathered_shape<Axis, typename X::shape_type, typename I::shape_type>::type;
  static constexpr std::size_t x_rank = X::shape_type::rank, index_rank = I::shape_type::rank;
  X x;
  I indices;
  constexpr gather(X x_, I i) : x(x_), indices(i) {}
  constexpr child_refs<const X&, const I&> children() const { return {{{x}, {indices}}}; }
  template <class Y, class J>
  constexpr auto with_children(const Y& y, const J& j) const { return gather<Y, J, Axis>(y, j); }
  static constexpr bool parameters_in_type = true;
  constexpr bool same_parameters(const gather&) const { return true; }
  std::string name() const { return "GatherV2[axis=" + std::to_string(Axis) + "]"; }
  extents<shape_type::rank> result_extents(const extents<x_rank>& xe, const extents<index_rank>& ie) const {
    extents<shape_type::rank> out{};
    std::size_t k = 0;
    for (std::size_t d = 0; d < Axis; ++d) out[k++] = xe[d];
    for (std::size_t d = 0; d < index_rank; ++d) out[k++] = ie[d];
    for (std::size_t d = Axis + 1; d < x_rank; ++d) out[k++] = xe[d];
    return out;
  }
};

/// The gradient of gather<X, I, Axis> with respect to x: zeros of x's shape, and the adjoint of
/// each gathered slice added at the slice it was read from (repeated indices add up). x is a child
/// for its extents only.
template <class G, class X, class I, std::size_t Axis>
struct gather_gradient : node<gather_gradient<G, X, I, Axis>> {
  static constexpr bool materialized = true;
  static constexpr std::size_t extents_child = 1;  // (x's: autodiff/adjoint_shape.hpp)
  static constexpr std::size_t axis = Axis;
  using value_type = typename G::value_type;
  using shape_type = typename X::shape_type;
  static constexpr std::size_t x_rank = X::shape_type::rank, index_rank = I::shape_type::rank;
  G g;
  X x;
  I indices;
  constexpr gather_gradient(G g_, X x_, I i) : g(g_), x(x_), indices(i) {}
  constexpr child_refs<const G&, const X&, const I&> children() const { return {{{g}, {x}, {indices}}}; }
  template <class H, class Y, class J>
  constexpr auto with_children(const H& h, const Y& y, const J& j) const { return gather_gradient<H, Y, J, Axis>(h, y, j); }
  static constexpr bool parameters_in_type = true;
  constexpr bool same_parameters(const gather_gradient&) const { return true; }
  std::string name() const { return "UnsortedSegmentSum[axis=" + std::to_string(Axis) + "]"; }
  extents<G::shape_type::rank> gathered(const extents<x_rank>& xe, const extents<index_rank>& ie) const {
    return gather<X, I, Axis>(x, indices).result_extents(xe, ie);
  }
  extents<x_rank> result_extents(const extents<G::shape_type::rank>& ge, const extents<x_rank>& xe,
                                 const extents<index_rank>& ie) const {
    static_assert(G::shape_type::rank == gather<X, I, Axis>::shape_type::rank);
    if (!staticflow::detail::same_extents(gathered(xe, ie), ge))
      throw shape_error("gather gradient: an adjoint of shape " + staticflow::detail::extents_string(ge) +
                        " for a gather from " + staticflow::detail::extents_string(xe));
    return xe;
  }
};

}  // namespace graph

namespace detail {
// (a template of the rank and the index dtype, not of the node types: a lambda traced and run
// eagerly reports a mistake once)
template <std::size_t Rank, class J, int A>
struct gather_check {
  static constexpr std::size_t rank = Rank;
  static constexpr bool integer_indices = std::is_integral<J>::value && !std::is_same<J, bool>::value;
  static_assert(integer_indices, "staticflow: gather: the indices must be an int32 or int64 tensor");
  static_assert(rank >= 1, "staticflow: gather: a scalar (rank-0 tensor) has no axis to gather along");
  static constexpr bool axis_ok = rank >= 1 && axis_in_range(A, rank);
  static_assert(rank == 0 || axis_ok, "staticflow: gather: the axis is out of range for the tensor's rank");
  static constexpr bool ok = integer_indices && axis_ok;
};
}  // namespace detail

/// tf.gather(x, indices, axis): `sf::gather(table, ids)` (axis 0) or `sf::gather(x, ids,
/// sf::axes<1>{})` (negative axes count from the end). indices: an int32 / int64 tensor of any
/// rank, or a C++ integer (rank 0); x: any dtype.
template <detail::tensor_operand X, class I, int A>
constexpr auto gather(const X& x, const I& indices, axes<A>) {
  const auto xn = detail::as_node<void>(x);
  const auto in = detail::as_node<void>(indices);
  using XN = std::remove_cvref_t<decltype(xn)>;
  using IN = std::remove_cvref_t<decltype(in)>;
  if constexpr (!detail::gather_check<XN::shape_type::rank, typename IN::value_type, A>::ok) {
    return xn;
  } else {
    constexpr auto axis = static_cast<std::size_t>(detail::normalize_axis(A, XN::shape_type::rank));
    return graph::gather<XN, IN, axis>(xn, in);
  }
}
template <detail::tensor_operand X, class I>
constexpr auto gather(const X& x, const I& indices) {
  return gather(x, indices, axes<0>{});
}

}  // namespace staticflow
