// staticflow/graph/masking.hpp -- ops whose result size is data: sf::boolean_mask
// (tf.boolean_mask), sf::repeat with a tensor of repeats (tf.repeat) and sf::where(condition)
// with one argument (tf.where: the coordinates of the true elements).
//
//   boolean_mask(tensor, mask, axis):  mask.shape == tensor.shape[axis : axis + K]  (K = mask's rank)
//       result shape = tensor.shape[:axis] + [number of trues] + tensor.shape[axis + K:]
//   repeat(tensor, repeats, axis):     repeats a scalar or [tensor.shape[axis]] (or [1]) of integers
//       result shape = tensor.shape[:axis] + [sum of repeats] + tensor.shape[axis + 1:]
//   where(condition):  int64 [number of non-zero elements, rank(condition)], in row-major order
//
// The size is known only when the selector's values are, so the result's extent there is sf::dyn
// whatever the input shapes, and the node is a self-allocating slot of the plan (as cond and loops
// are): the backend computes the selector, lists the rows it takes (each as often as it is taken,
// in order), then allocates the result and copies those rows (gather's row loops, with the listed
// positions as the indices). Later slots read the extent from the slot's view. The gradient puts
// each row of the adjoint back where it was read, summed for a repeated row, zeros for a dropped
// one (TF's: the IndexedSlices of the gather inside tf.boolean_mask made dense; tf.repeat's
// segment sum); its own adjoint is the selection again, so second derivatives work.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "staticflow/core/axes.hpp"
#include "staticflow/core/errors.hpp"
#include "staticflow/core/shape.hpp"
#include "staticflow/core/static_value.hpp"
#include "staticflow/graph/child_refs.hpp"
#include "staticflow/graph/gather.hpp"
#include "staticflow/graph/operators.hpp"
#include "staticflow/graph/segment.hpp"
#include "staticflow/graph/shape_ops.hpp"
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
}  // namespace detail

/// The two ways rows are selected by data. Each says how many of the tensor's axes its selector
/// covers (`covered<M>`), checks the selector's extents against the tensor's (`layout`: gather's
/// [outer, n, inner] view of the tensor, n the rows selected from), counts the rows it takes
/// (`count`) and lists them in order, each as often as it is taken (`list`: the positions the
/// kernels gather).
struct by_mask {
  static constexpr const char* function = "boolean_mask";
  static constexpr const char* tf_name = "BooleanMask";
  template <class M>
  static constexpr std::size_t covered = M::shape_type::rank;
  /// The mask's shape must be the tensor's at [Axis, Axis + K): TF's check, with TF's lists.
  template <std::size_t Axis, std::size_t XR, std::size_t MR>
  static detail::gather_layout layout(const extents<XR>& xe, const extents<MR>& me) {
    for (std::size_t d = 0; d < MR; ++d)
      if (xe[Axis + d] != me[d])
        throw shape_error("boolean_mask: mask.shape = " + detail::tf_list(me) + " does not match tensor.shape[" +
                          std::to_string(Axis) + ":" + std::to_string(Axis + MR) + "] of tensor.shape = " + detail::tf_list(xe));
    detail::gather_layout l;
    for (std::size_t d = 0; d < XR; ++d) (d < Axis ? l.outer : d < Axis + MR ? l.n : l.inner) *= xe[d];
    l.positions = 0;
    return l;
  }
  /// How many positions the mask takes (its trues), then the positions themselves, in order
  /// (host memory; `out` holds count() of them).
  static std::size_t count(const bool* mask, std::size_t, std::size_t n) {
    std::size_t taken = 0;
    for (std::size_t p = 0; p < n; ++p) taken += mask[p] ? 1 : 0;
    return taken;
  }
  static void list(const bool* mask, std::size_t, std::size_t n, std::int64_t* out) {
    for (std::size_t p = 0; p < n; ++p)
      if (mask[p]) *out++ = static_cast<std::int64_t>(p);
  }
};
struct by_repeats {
  static constexpr const char* function = "repeat";
  static constexpr const char* tf_name = "Repeat";
  template <class M>
  static constexpr std::size_t covered = 1;
  /// repeats: a scalar, or one count per element of the axis (TF's broadcast: a single count too).
  template <std::size_t Axis, std::size_t XR, std::size_t MR>
  static detail::gather_layout layout(const extents<XR>& xe, const extents<MR>& re) {
    const std::size_t counts = staticflow::detail::product(re);
    if (MR == 1 && counts != xe[Axis] && counts != 1)
      throw shape_error("repeat: repeats has " + std::to_string(counts) + " elements for an axis of " + std::to_string(xe[Axis]) +
                        " (it must have one per element, or one)");
    detail::gather_layout l;
    for (std::size_t d = 0; d < XR; ++d) (d < Axis ? l.outer : d == Axis ? l.n : l.inner) *= xe[d];
    l.positions = 0;
    return l;
  }
  /// The sum of the counts (a negative one throws TF's error before anything is written), then
  /// position p `repeats[p]` times, in order.
  template <class J>
  static std::size_t count(const J* repeats, std::size_t counts, std::size_t n) {
    std::size_t taken = 0;
    for (std::size_t p = 0; p < n; ++p) {
      const J r = repeats[counts == 1 ? 0 : p];
      if (r < 0)
        throw shape_error("repeat: repeats[" + std::to_string(counts == 1 ? 0 : p) + "] = " + std::to_string(r) + " is negative");
      taken += static_cast<std::size_t>(r);
    }
    return taken;
  }
  template <class J>
  static void list(const J* repeats, std::size_t counts, std::size_t n, std::int64_t* out) {
    for (std::size_t p = 0; p < n; ++p)
      for (J k = 0, r = repeats[counts == 1 ? 0 : p]; k < r; ++k) *out++ = static_cast<std::int64_t>(p);
  }
};

/// Rows of tensor (seen as [outer, n, inner] around Axis) selected by the data of M, in order:
/// tf.boolean_mask(tensor, mask, axis) (Kind by_mask: the rows where mask is true) and
/// tf.repeat(tensor, repeats, axis) with a tensor of repeats (by_repeats: row p repeats[p] times).
/// Self-allocating: its extent at Axis is the number of rows selected, known when it runs.
template <class Kind, class X, class M, std::size_t Axis>
struct selected_rows : node<selected_rows<Kind, X, M, Axis>> {
  static constexpr bool materialized = true;
  static constexpr bool self_allocating = true;
  static constexpr bool allocates_once = true;  // (its one value, before writing it: call_into's direct slot)
  static constexpr std::size_t axis = Axis, tensor_rank = X::shape_type::rank, covered = Kind::template covered<M>;
  using kind = Kind;
  using value_type = typename X::value_type;
  using shape_type = typename detail::masked_shape<Axis, covered, typename X::shape_type>::type;
  X tensor;
  M mask;  // the selector: a bool mask, or the counts
  constexpr selected_rows(X x, M m) : tensor(x), mask(m) {}
  constexpr child_refs<const X&, const M&> children() const { return {{{tensor}, {mask}}}; }
  template <class Y, class N>
  constexpr auto with_children(const Y& y, const N& m) const { return selected_rows<Kind, Y, N, Axis>(y, m); }
  static constexpr bool parameters_in_type = true;
  constexpr bool same_parameters(const selected_rows&) const { return true; }
  std::string name() const { return std::string(Kind::tf_name) + "[axis=" + std::to_string(Axis) + "]"; }
  /// The result's extents once the rows are listed.
  static extents<shape_type::rank> kept_extents(const extents<tensor_rank>& xe, std::size_t kept) {
    extents<shape_type::rank> out{};
    for (std::size_t d = 0; d < Axis; ++d) out[d] = xe[d];
    out[Axis] = kept;
    for (std::size_t d = Axis + covered; d < tensor_rank; ++d) out[d - covered + 1] = xe[d];
    return out;
  }
};
template <class X, class M, std::size_t Axis>
using boolean_mask = selected_rows<by_mask, X, M, Axis>;

/// The gradient of selected_rows<Kind, X, M, Axis> with respect to the tensor: row p of the
/// result is the sum of the adjoint's rows taken from row p (one or none for a mask), zeros where
/// none were. The tensor is a child for its extents only; that g has one row per row taken is
/// checked when the rows are listed.
template <class Kind, class G, class X, class M, std::size_t Axis>
struct selected_rows_gradient : node<selected_rows_gradient<Kind, G, X, M, Axis>> {
  static constexpr bool materialized = true;
  static constexpr std::size_t extents_child = 1;  // (the tensor's: autodiff/adjoint_shape.hpp)
  static constexpr std::size_t axis = Axis, tensor_rank = X::shape_type::rank, covered = Kind::template covered<M>;
  using kind = Kind;
  using value_type = typename G::value_type;
  using shape_type = typename X::shape_type;
  G g;
  X tensor;
  M mask;
  constexpr selected_rows_gradient(G g_, X x, M m) : g(g_), tensor(x), mask(m) {}
  constexpr child_refs<const G&, const X&, const M&> children() const { return {{{g}, {tensor}, {mask}}}; }
  template <class H, class Y, class N>
  constexpr auto with_children(const H& h, const Y& y, const N& m) const { return selected_rows_gradient<Kind, H, Y, N, Axis>(h, y, m); }
  static constexpr bool parameters_in_type = true;
  constexpr bool same_parameters(const selected_rows_gradient&) const { return true; }
  std::string name() const { return std::string(Kind::tf_name) + "Grad[axis=" + std::to_string(Axis) + "]"; }
  extents<tensor_rank> result_extents(const extents<G::shape_type::rank>& ge, const extents<tensor_rank>& xe,
                                      const extents<M::shape_type::rank>& me) const {
    (void)Kind::template layout<Axis>(xe, me);
    bool fits = true;  // every extent but the selected one is the tensor's
    for (std::size_t d = 0; d < G::shape_type::rank; ++d)
      if (d != Axis) fits = fits && ge[d] == xe[d < Axis ? d : d + covered - 1];
    if (!fits)
      throw shape_error(std::string(Kind::function) + " gradient: an adjoint of shape " + staticflow::detail::extents_string(ge) +
                        " for rows selected from a tensor of shape " + staticflow::detail::extents_string(xe));
    return xe;
  }
};

/// The adjoint's row count against the rows taken (thrown before the gradient writes).
template <class Kind>
void check_kept_rows(std::size_t adjoint_rows, std::size_t kept) {
  if (adjoint_rows != kept)
    throw shape_error(std::string(Kind::function) + " gradient: an adjoint of " + std::to_string(adjoint_rows) +
                      " rows for " + std::to_string(kept) + " rows taken");
}

/// tf.where(condition) with one argument: the int64 coordinates [count, rank] of condition's
/// non-zero elements, in row-major order. Self-allocating as selected_rows is.
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
  static constexpr bool bool_mask = std::is_same<typename M::value_type, bool>::value;
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
  using check = detail::boolean_mask_check<spec_of_node_t<XN>, spec_of_node_t<MN>, A>;
  if constexpr (!check::ok) return xn;
  else return graph::boolean_mask<XN, MN, check::axis>(xn, mn);
}
template <detail::tensor_operand X, detail::tensor_operand M>
constexpr auto boolean_mask(const X& tensor, const M& mask) {
  return boolean_mask(tensor, mask, axes<0>{});
}

namespace detail {
template <class X, class R, int A>
struct repeat_by_tensor_check {
  static constexpr std::size_t rank = X::shape_type::rank, repeats_rank = R::shape_type::rank;
  using J = typename R::value_type;
  static constexpr bool integer_repeats = std::is_integral<J>::value && !std::is_same<J, bool>::value;
  static_assert(integer_repeats, "staticflow: repeat: repeats must be an int32 or int64 tensor (or a C++ integer)");
  static_assert(repeats_rank <= 1, "staticflow: repeat: repeats must be a scalar or a vector (one count per element of the axis)");
  static_assert(rank >= 1, "staticflow: repeat: a scalar tensor has no axis to repeat along (flatten it: sf::repeat(x, repeats))");
  static constexpr bool axis_ok = rank >= 1 && axis_in_range(A, rank);
  static_assert(rank == 0 || axis_ok, "staticflow: repeat: the axis is out of range for the tensor's rank");
  static constexpr std::size_t axis = axis_ok ? static_cast<std::size_t>(normalize_axis(A, rank)) : 0;
  static constexpr bool counts_ok = [] {
    if constexpr (axis_ok && repeats_rank == 1) {
      constexpr std::size_t n = X::shape_type::dims[axis], c = R::shape_type::dims[0];
      return n == dyn || c == dyn || c == n || c == 1;
    }
    return true;
  }();
  static_assert(counts_ok, "staticflow: repeat: repeats must have one count per element of the axis, or one");
  static constexpr bool ok = integer_repeats && repeats_rank <= 1 && axis_ok && counts_ok;
};
}  // namespace detail

/// tf.repeat(x, repeats, axis) with a tensor of repeats: element p along the axis repeats[p] times
/// in a row (a scalar tensor, or a vector of one count, repeats every element as often). The
/// result's extent there is the sum of the counts (sf::dyn: known when it runs); a negative
/// count throws sf::shape_error. Without an axis, x is flattened first, as in TF. (A C++ integer
/// or a static value as repeats is the axis_map of graph/data_movement.hpp: its size is known.)
template <detail::tensor_operand X, detail::tensor_operand R, int A>
  requires(!std::is_arithmetic<R>::value && !static_value_type<R>)
constexpr auto repeat(const X& x, const R& repeats, axes<A>) {
  const auto xn = detail::as_node<void>(x);
  const auto rn = detail::as_node<void>(repeats);
  using XN = std::remove_cvref_t<decltype(xn)>;
  using RN = std::remove_cvref_t<decltype(rn)>;
  using check = detail::repeat_by_tensor_check<spec_of_node_t<XN>, spec_of_node_t<RN>, A>;
  if constexpr (!check::ok) return xn;
  else return graph::selected_rows<graph::by_repeats, XN, RN, check::axis>(xn, rn);
}
template <detail::tensor_operand X, detail::tensor_operand R>
  requires(!std::is_arithmetic<R>::value && !static_value_type<R>)
constexpr auto repeat(const X& x, const R& repeats) {
  const auto xn = detail::as_node<void>(x);
  using S = typename std::remove_cvref_t<decltype(xn)>::shape_type;
  return repeat(reshape<shape<S::is_static ? S::size : dyn>>(xn), repeats, axes<0>{});
}

/// tf.where(condition) (one argument): int64 [n, rank(condition)], the coordinates of the n
/// elements of condition that are true (non-zero for a numeric tensor), in row-major order.
template <detail::tensor_operand C>
constexpr auto where(const C& condition) {
  const auto cn = detail::as_node<void>(condition);
  return graph::true_coordinates<std::remove_cvref_t<decltype(cn)>>(cn);
}

}  // namespace staticflow
