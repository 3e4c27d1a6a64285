// staticflow/graph/masking.hpp -- ops whose result size is data: sf::boolean_mask
// (tf.boolean_mask) and sf::where(condition) with one argument (tf.where: the coordinates of the
// true elements).
//
//   boolean_mask(tensor, mask, axis):  mask.shape == tensor.shape[axis : axis + K]  (K = mask's rank)
//       result shape = tensor.shape[:axis] + [number of trues] + tensor.shape[axis + K:]
//   where(condition):  int64 [number of non-zero elements, rank(condition)], in row-major order
//
// The number of trues is known only when the mask's values are, so the result's extent there is
// sf::dyn whatever the input shapes, and the node is a self-allocating slot of the plan (as cond
// and loops are): the backend computes the mask, counts it, then allocates the result and copies
// the kept rows (gather's row loops, with the kept positions as the indices). Later slots read the
// extent from the slot's view. The gradient of boolean_mask puts each row of the adjoint back at
// the position it came from, zeros elsewhere (TF's: the IndexedSlices of the gather inside
// tf.boolean_mask, made dense); its own adjoint is boolean_mask again, so second derivatives work.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "staticflow/core/axes.hpp"
#include "staticflow/core/errors.hpp"
#include "staticflow/core/shape.hpp"
#include "staticflow/graph/child_refs.hpp"
#include "staticflow/graph/gather.hpp"
#include "staticflow/graph/operators.hpp"
#include "staticflow/graph/segment.hpp"
#include "staticflow/graph/traversal.hpp"

namespace staticflow {
namespace graph {
namespace detail {
template <std::size_t Axis, std::size_t K, class X, class Before = std::make_index_sequence<Axis>,
          class After = std::make_index_sequence<X::rank - Axis - K>>
struct masked_shape;
template <std::size_t Axis, std::size_t K, class X, std::size_t... B, std::size_t... A>
struct masked_shape<Axis, K, X, std::index_sequence<B...>, std::index_sequence<A...>> {
  using type = shape<X::dims[B]..., dyn, X::dims[Axis + K + A]...>;
};

/// The mask's shape must be the tensor's at [Axis, Axis + K): TF's check, with TF's shape lists.
/// Returns gather's layout of the tensor: [outer, n = mask size, inner]; `positions` is left for
/// the count of trues.
template <std::size_t Axis, std::size_t XR, std::size_t MR>
gather_layout masked_layout(const extents<XR>& xe, const extents<MR>& me) {
  for (std::size_t d = 0; d < MR; ++d)
    if (xe[Axis + d] != me[d])
      throw shape_error("boolean_mask: mask.shape = " + tf_list(me) + " does not match tensor.shape[" + std::to_string(Axis) +
                        ":" + std::to_string(Axis + MR) + "] of tensor.shape = " + tf_list(xe));
  gather_layout l;
  for (std::size_t d = 0; d < XR; ++d) (d < Axis ? l.outer : d < Axis + MR ? l.n : l.inner) *= xe[d];
  l.positions = 0;
  return l;
}
}  // namespace detail

/// tf.boolean_mask(tensor, mask, axis=Axis): the rows of tensor (seen as [outer, mask size,
/// inner]) where mask is true, in order. Self-allocating: its extent at Axis is the number of trues.
template <class X, class M, std::size_t Axis>
struct boolean_mask : node<boolean_mask<X, M, Axis>> {
  static constexpr bool materialized = true;
  static constexpr bool self_allocating = true;
  static constexpr bool allocates_once = true;  // (its one value, before writing it: call_into's direct slot)
  static constexpr std::size_t axis = Axis, tensor_rank = X::shape_type::rank, mask_rank = M::shape_type::rank;
  using value_type = typename X::value_type;
  using shape_type = typename detail::masked_shape<Axis, mask_rank, typename X::shape_type>::type;
  X tensor;
  M mask;
  constexpr boolean_mask(X x, M m) : tensor(x), mask(m) {}
  constexpr child_refs<const X&, const M&> children() const { return {tensor, mask}; }
  template <class Y, class N>
  constexpr auto with_children(const Y& y, const N& m) const { return boolean_mask<Y, N, Axis>(y, m); }
  static constexpr bool parameters_in_type = true;
  constexpr bool same_parameters(const boolean_mask&) const { return true; }
  std::string name() const { return "BooleanMask[axis=" + std::to_string(Axis) + "]"; }
  /// The result's extents once the trues are counted.
  static extents<shape_type::rank> kept_extents(const extents<tensor_rank>& xe, std::size_t kept) {
    extents<shape_type::rank> out{};
    for (std::size_t d = 0; d < Axis; ++d) out[d] = xe[d];
    out[Axis] = kept;
    for (std::size_t d = Axis + mask_rank; d < tensor_rank; ++d) out[d - mask_rank + 1] = xe[d];
    return out;
  }
};

/// The gradient of boolean_mask<X, M, Axis> with respect to the tensor: zeros of the tensor's
/// shape, with row j of the adjoint g at the position of the j-th true. The tensor is a child for
/// its extents only; that g has one row per true is checked when the mask is counted.
template <class G, class X, class M, std::size_t Axis>
struct boolean_mask_gradient : node<boolean_mask_gradient<G, X, M, Axis>> {
  static constexpr bool materialized = true;
  static constexpr std::size_t axis = Axis, tensor_rank = X::shape_type::rank, mask_rank = M::shape_type::rank;
  static constexpr std::size_t extents_child = 1;  // (the tensor's: autodiff/adjoint_shape.hpp)
  using value_type = typename G::value_type;
  using shape_type = typename X::shape_type;
  G g;
  X tensor;
  M mask;
  constexpr boolean_mask_gradient(G g_, X x, M m) : g(g_), tensor(x), mask(m) {}
  constexpr child_refs<const G&, const X&, const M&> children() const { return {g, tensor, mask}; }
  template <class H, class Y, class N>
  constexpr auto with_children(const H& h, const Y& y, const N& m) const { return boolean_mask_gradient<H, Y, N, Axis>(h, y, m); }
  static constexpr bool parameters_in_type = true;
  constexpr bool same_parameters(const boolean_mask_gradient&) const { return true; }
  std::string name() const { return "BooleanMaskGrad[axis=" + std::to_string(Axis) + "]"; }
  extents<tensor_rank> result_extents(const extents<G::shape_type::rank>& ge, const extents<tensor_rank>& xe,
                                      const extents<mask_rank>& me) const {
    (void)detail::masked_layout<Axis>(xe, me);
    bool fits = true;  // every extent but the kept one is the tensor's
    for (std::size_t d = 0; d < G::shape_type::rank; ++d)
      if (d != Axis) fits = fits && ge[d] == xe[d < Axis ? d : d + mask_rank - 1];
    if (!fits)
      throw shape_error("boolean_mask gradient: an adjoint of shape " + staticflow::detail::extents_string(ge) +
                        " for a mask over a tensor of shape " + staticflow::detail::extents_string(xe));
    return xe;
  }
};

/// The adjoint's row count against the mask's trues (thrown before the gradient writes).
inline void check_kept_rows(std::size_t adjoint_rows, std::size_t kept) {
  if (adjoint_rows != kept)
    throw shape_error("boolean_mask gradient: an adjoint of " + std::to_string(adjoint_rows) + " rows for a mask with " +
                      std::to_string(kept) + " true elements");
}

/// tf.where(condition) with one argument: the int64 coordinates [count, rank] of condition's
/// non-zero elements, in row-major order. Self-allocating as boolean_mask is.
template <class C>
struct true_coordinates : node<true_coordinates<C>> {
  static constexpr bool materialized = true;
  static constexpr bool self_allocating = true;
  static constexpr bool allocates_once = true;
  static constexpr std::size_t condition_rank = C::shape_type::rank;
  using value_type = std::int64_t;
  using shape_type = shape<dyn, condition_rank>;
  C condition;
  constexpr explicit true_coordinates(C c) : condition(c) {}
  constexpr child_refs<const C&> children() const { return {condition}; }
  template <class D>
  constexpr auto with_children(const D& c) const { return true_coordinates<D>(c); }
  static constexpr bool parameters_in_type = true;
  constexpr bool same_parameters(const true_coordinates&) const { return true; }
  std::string name() const { return "Where"; }
};

}  // namespace graph

namespace detail {
template <class X, class M, int A>
struct boolean_mask_check {
  static constexpr std::size_t rank = X::shape_type::rank, mask_rank = M::shape_type::rank;
  static constexpr bool bool_mask = std::is_same_v<typename M::value_type, bool>;
  static_assert(bool_mask, "staticflow: boolean_mask: the mask must be a bool tensor; compare it first, as in x > 0");
  static_assert(mask_rank >= 1, "staticflow: boolean_mask: the mask cannot be a scalar (rank 0), as in TF");
  static constexpr bool axis_ok = rank >= 1 && axis_in_range(A, rank);
  static_assert(rank == 0 || axis_ok, "staticflow: boolean_mask: the axis is out of range for the tensor's rank");
  static_assert(rank >= 1, "staticflow: boolean_mask: a scalar tensor has no axis to mask");
  static constexpr std::size_t axis = axis_ok ? static_cast<std::size_t>(normalize_axis(A, rank)) : 0;
  static constexpr bool fits = !axis_ok || mask_rank == 0 || axis + mask_rank <= rank;
  static_assert(fits, "staticflow: boolean_mask: the mask's rank goes past the tensor's last axis (axis + rank(mask) > rank(tensor))");
  static constexpr bool dims_ok = [] {
    if constexpr (axis_ok && fits) {
      for (std::size_t d = 0; d < mask_rank; ++d)
        if (X::shape_type::dims[axis + d] != dyn && M::shape_type::dims[d] != dyn &&
            X::shape_type::dims[axis + d] != M::shape_type::dims[d])
          return false;
    }
    return true;
  }();
  static_assert(dims_ok, "staticflow: boolean_mask: the mask's shape is not the tensor's shape at the masked axes "
                         "(mask.shape must be tensor.shape[axis:axis + rank(mask)])");
  static constexpr bool ok = bool_mask && mask_rank >= 1 && axis_ok && fits && dims_ok;
};
}  // namespace detail

/// tf.boolean_mask(tensor, mask, axis): the slices of tensor where mask is true, flattened into
/// one axis at `axis` whose extent is the number of trues (sf::dyn: known when it runs).
/// `sf::boolean_mask(x, x > 0)`; `sf::boolean_mask(x, keep, sf::axes<1>{})` masks the columns of
/// every row. mask: a bool tensor whose shape is tensor.shape[axis : axis + rank(mask)]; a
/// negative axis counts from the end (numpy's rule; TF's Python slicing makes it a shape error).
template <detail::tensor_operand X, detail::tensor_operand M, int A>
constexpr auto boolean_mask(const X& tensor, const M& mask, axes<A>) {
  const auto xn = detail::as_node<void>(tensor);
  const auto mn = detail::as_node<void>(mask);
  using XN = std::remove_cvref_t<decltype(xn)>;
  using MN = std::remove_cvref_t<decltype(mn)>;
  using check = detail::boolean_mask_check<XN, MN, A>;
  if constexpr (!check::ok) return xn;
  else return graph::boolean_mask<XN, MN, check::axis>(xn, mn);
}
template <detail::tensor_operand X, detail::tensor_operand M>
constexpr auto boolean_mask(const X& tensor, const M& mask) {
  return boolean_mask(tensor, mask, axes<0>{});
}

/// tf.where(condition) (one argument): int64 [n, rank(condition)], the coordinates of the n
/// elements of condition that are true (non-zero for a numeric tensor), in row-major order.
template <detail::tensor_operand C>
constexpr auto where(const C& condition) {
  const auto cn = detail::as_node<void>(condition);
  return graph::true_coordinates<std::remove_cvref_t<decltype(cn)>>(cn);
}

}  // namespace staticflow
