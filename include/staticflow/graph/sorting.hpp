// staticflow/graph/sorting.hpp -- sorting along an axis: sf::argsort (the primitive, int32 positions),
// sf::take_along_axis (values picked along an axis by positions, and its gradient), and sf::sort and
// sf::top_k built from them, as tf.argsort / tf.sort / tf.math.top_k.
//
// Every sort here is stable (equal values keep their order: top_k's "the lower index first" rule,
// tf.argsort(stable=True)) and orders NaN as the largest value, as NumPy does: last when ascending,
// first when descending (so top_k picks NaNs first). Gradients flow through take_along_axis (the
// positions are integers): sort's and top_k's adjoint goes back to where each value came from
// (TF's TopKV2 gradient, a scatter-add along the axis).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticflow/core/axes.hpp"
#include "staticflow/core/config.hpp"
#include "staticflow/core/errors.hpp"
#include "staticflow/core/shape.hpp"
#include "staticflow/graph/child_refs.hpp"
#include "staticflow/graph/data_movement.hpp"
#include "staticflow/graph/gather.hpp"
#include "staticflow/graph/operators.hpp"
#include "staticflow/graph/traversal.hpp"

namespace staticflow {

/// The order of a sort: `sf::ascending` (the default) or `sf::descending`.
enum class sort_direction { ascending, descending };
inline constexpr std::integral_constant<sort_direction, sort_direction::ascending> ascending{};
inline constexpr std::integral_constant<sort_direction, sort_direction::descending> descending{};

namespace graph {
namespace detail {
/// x seen as [outer, n, inner] around an axis.
struct axis_layout {
  std::size_t outer = 1, n = 1, inner = 1;
};
template <std::size_t R>
axis_layout layout_around(const extents<R>& e, std::size_t axis) {
  axis_layout l;
  for (std::size_t d = 0; d < R; ++d) (d < axis ? l.outer : d > axis ? l.inner : l.n) *= e[d];
  return l;
}

/// Whether a comes before b in a sort of direction D (NaN the largest value; ties: neither).
template <sort_direction D, class T>
STATICFLOW_HD constexpr bool sorts_before(T a, T b) {
  const bool a_nan = a != a, b_nan = b != b;  // (false for integers)
  if constexpr (D == sort_direction::ascending) return !a_nan && (b_nan || a < b);
  else return (a_nan && !b_nan) || (!a_nan && !b_nan && a > b);
}

/// top_k's positions in one line of n values by selection, every backend's kernel for a small k:
/// the k best positions so far kept in order in best[0, k) (k <= n). A value goes in only when it
/// sorts strictly before the k-th best so far, so of equal values the lower position comes first,
/// as in a stable descending sort. About n comparisons on random data, n k at worst (an
/// ascending line), against a sort's n log n.
template <class T>
STATICFLOW_HD void select_top_k(const T* line, std::size_t n, std::int32_t* best, std::size_t k) {
  std::size_t count = 0;
  for (std::size_t j = 0; j < n; ++j) {
    const T v = line[j];
    if (count == k && !sorts_before<sort_direction::descending>(v, line[best[k - 1]])) continue;
    std::size_t at = count < k ? count++ : k - 1;
    for (; at > 0 && sorts_before<sort_direction::descending>(v, line[best[at - 1]]); --at) best[at] = best[at - 1];
    best[at] = static_cast<std::int32_t>(j);
  }
}
/// Up to which k top_k selects rather than sorts.
inline constexpr std::size_t top_k_selection_limit = 32;
}  // namespace detail

/// tf.argsort(x, axis, direction, stable=True): the positions (int32) that sort x along Axis.
template <class X, std::size_t Axis, sort_direction D>
struct argsort : node<argsort<X, Axis, D>> {
  static constexpr bool materialized = true;
  static constexpr std::size_t axis = Axis, rank = X::shape_type::rank;
  static constexpr sort_direction direction = D;
  using value_type = std::int32_t;
  using shape_type = typename X::shape_type;
  X x;
  constexpr explicit argsort(X x_) : x(x_) {}
  constexpr child_refs<const X&> children() const { return {x}; }
  template <class Y>
  constexpr auto with_children(const Y& y) const { return argsort<Y, Axis, D>(y); }
  static constexpr bool parameters_in_type = true;
  constexpr bool same_parameters(const argsort&) const { return true; }
  std::string name() const {
    return "ArgSort[axis=" + std::to_string(Axis) + (D == sort_direction::ascending ? " direction=ASCENDING" : " direction=DESCENDING") +
           " stable=True]";
  }
  extents<rank> result_extents(const extents<rank>& e) const {
    if (e[Axis] > std::size_t{2147483647})
      throw shape_error("argsort: an axis of " + std::to_string(e[Axis]) + " elements does not fit int32 positions");
    return e;
  }
};

/// take_along_axis(x, positions, Axis): out[.., j, ..] = x[.., positions[.., j, ..], ..]; positions
/// has x's rank and extents except along the axis.
template <class X, class P, std::size_t Axis>
struct take_along_axis : node<take_along_axis<X, P, Axis>> {
  static constexpr bool materialized = true;
  static constexpr std::size_t axis = Axis, rank = X::shape_type::rank;
  using value_type = typename X::value_type;
  using shape_type = typename P::shape_type;
  X x;
  P positions;
  constexpr take_along_axis(X x_, P p) : x(x_), positions(p) {}
  constexpr child_refs<const X&, const P&> children() const { return {{{x}, {positions}}}; }
  template <class Y, class Q>
  constexpr auto with_children(const Y& y, const Q& q) const { return take_along_axis<Y, Q, Axis>(y, q); }
  static constexpr bool parameters_in_type = true;
  constexpr bool same_parameters(const take_along_axis&) const { return true; }
  std::string name() const { return "TakeAlongAxis[axis=" + std::to_string(Axis) + "]"; }
  static void check(const extents<rank>& xe, const extents<rank>& pe) {
    for (std::size_t d = 0; d < rank; ++d)
      if (d != Axis && xe[d] != pe[d])
        throw shape_error("take_along_axis: positions of shape " + staticflow::detail::extents_string(pe) +
                          " for a tensor of shape " + staticflow::detail::extents_string(xe) + " (they must agree off axis " +
                          std::to_string(Axis) + ")");
  }
  extents<rank> result_extents(const extents<rank>& xe, const extents<rank>& pe) const {
    check(xe, pe);
    return pe;
  }
};

/// The gradient of take_along_axis with respect to x: zeros of x's shape with each adjoint
/// element added where it was read, along each line in order (x: a child for its extents only).
template <class G, class X, class P, std::size_t Axis>
struct take_along_axis_gradient : node<take_along_axis_gradient<G, X, P, Axis>> {
  static constexpr bool materialized = true;
  static constexpr std::size_t axis = Axis, rank = X::shape_type::rank;
  using value_type = typename G::value_type;
  using shape_type = typename X::shape_type;
  G g;
  X x;
  P positions;
  constexpr take_along_axis_gradient(G g_, X x_, P p) : g(g_), x(x_), positions(p) {}
  constexpr child_refs<const G&, const X&, const P&> children() const { return {{{g}, {x}, {positions}}}; }
  template <class H, class Y, class Q>
  constexpr auto with_children(const H& h, const Y& y, const Q& q) const { return take_along_axis_gradient<H, Y, Q, Axis>(h, y, q); }
  static constexpr bool parameters_in_type = true;
  constexpr bool same_parameters(const take_along_axis_gradient&) const { return true; }
  std::string name() const { return "TakeAlongAxisGrad[axis=" + std::to_string(Axis) + "]"; }
  extents<rank> result_extents(const extents<rank>& ge, const extents<rank>& xe, const extents<rank>& pe) const {
    take_along_axis<X, P, Axis>::check(xe, pe);
    if (!staticflow::detail::same_extents(ge, pe))
      throw shape_error("take_along_axis gradient: an adjoint of shape " + staticflow::detail::extents_string(ge) +
                        " for positions of shape " + staticflow::detail::extents_string(pe));
    return xe;
  }
};

/// tf.math.top_k's indices: the positions of the K (or k, at run time) largest values of each line
/// of the last axis, largest first, equal values lower position first (the first K of a stable
/// descending argsort, found by a partial sort).
template <class X, std::size_t K>
struct top_k_positions : node<top_k_positions<X, K>> {
  static constexpr bool materialized = true;
  static constexpr std::size_t rank = X::shape_type::rank, axis = rank - 1;
  using value_type = std::int32_t;
  struct dims {
    static constexpr std::size_t dim(std::size_t i, std::size_t n) { return i == axis ? K : n; }
  };
  using shape_type = typename detail::mapped_shape<typename X::shape_type, dims>::type;
  X x;
  std::size_t k;
  constexpr top_k_positions(X x_, std::size_t k_) : x(x_), k(k_) {}
  constexpr child_refs<const X&> children() const { return {x}; }
  template <class Y>
  constexpr auto with_children(const Y& y) const { return top_k_positions<Y, K>(y, k); }
  constexpr bool same_parameters(const top_k_positions& o) const { return k == o.k; }
  std::string name() const { return "TopKV2[k=" + std::to_string(k) + " sorted=True]"; }
  extents<rank> result_extents(const extents<rank>& in) const {
    if (k > in[axis])
      throw shape_error("top_k: k = " + std::to_string(k) + " is more than the last axis's " + std::to_string(in[axis]) +
                        " elements (shape " + staticflow::detail::extents_string(in) + ")");
    if (in[axis] > std::size_t{2147483647})
      throw shape_error("top_k: an axis of " + std::to_string(in[axis]) + " elements does not fit int32 positions");
    extents<rank> out = in;
    out[axis] = k;
    return out;
  }
};
}  // namespace graph

namespace detail {
// Keyed on k and the extent (not on the node types): one report for the traced and the eager call.
template <auto K, std::size_t Extent>
struct top_k_check {
  static_assert(K >= 0, "staticflow: top_k: k must be non-negative");
  static_assert(K < 0 || Extent == dyn || static_cast<std::size_t>(K) <= Extent,
                "staticflow: top_k: k is more than the last axis's extent");
  static constexpr std::size_t k = K < 0 ? 0 : static_cast<std::size_t>(K);
};
template <class X, int A>
struct sort_check {
  static constexpr std::size_t rank = X::shape_type::rank;
  using T = typename X::value_type;
  static constexpr bool numeric = std::is_arithmetic<T>::value && !std::is_same<T, bool>::value;
  static_assert(numeric, "staticflow: argsort / sort / top_k: the tensor must have a numeric dtype (not bool)");
  static_assert(rank >= 1, "staticflow: argsort / sort / top_k: a scalar (rank-0 tensor) has no axis to sort along");
  static constexpr bool axis_ok = rank >= 1 && axis_in_range(A, rank);
  static_assert(rank == 0 || axis_ok, "staticflow: argsort / sort / take_along_axis: the axis is out of range for the tensor's rank");
  static constexpr bool ok = numeric && axis_ok;
};
}  // namespace detail

/// tf.argsort(x, axis=-1, direction, stable=True): `sf::argsort(x)`, `sf::argsort(x, sf::axes<0>{},
/// sf::descending)`; int32 positions.
template <detail::tensor_operand X, int A = -1, sort_direction D = sort_direction::ascending>
constexpr auto argsort(const X& x, axes<A> = {}, std::integral_constant<sort_direction, D> = {}) {
  const auto xn = detail::as_node<void>(x);
  using XN = std::remove_cvref_t<decltype(xn)>;
  if constexpr (!detail::sort_check<spec_of_node_t<XN>, A>::ok) {
    return graph::argsort<XN, 0, D>(xn);
  } else {
    constexpr auto axis = static_cast<std::size_t>(detail::normalize_axis(A, XN::shape_type::rank));
    return graph::argsort<XN, axis, D>(xn);
  }
}
template <detail::tensor_operand X, sort_direction D>
constexpr auto argsort(const X& x, std::integral_constant<sort_direction, D> d) {
  return argsort(x, axes<-1>{}, d);
}

/// take_along_axis(x, positions, axis) as NumPy / JAX (tf.experimental.numpy.take_along_axis):
/// positions (int32 / int64) of x's rank, x's extents off the axis; a position outside the axis
/// throws sf::shape_error before anything is written.
template <detail::tensor_operand X, detail::tensor_operand P, int A>
constexpr auto take_along_axis(const X& x, const P& positions, axes<A>) {
  const auto xn = detail::as_node<void>(x);
  const auto pn = detail::as_node<void>(positions);
  using XN = std::remove_cvref_t<decltype(xn)>;
  using PN = std::remove_cvref_t<decltype(pn)>;
  using J = typename PN::value_type;
  static_assert(std::is_integral<J>::value && !std::is_same<J, bool>::value, "staticflow: take_along_axis: the positions must be an int32 or int64 tensor");
  static_assert(PN::shape_type::rank == XN::shape_type::rank, "staticflow: take_along_axis: the positions must have the tensor's rank");
  constexpr bool ok = std::is_integral<J>::value && !std::is_same<J, bool>::value && PN::shape_type::rank == XN::shape_type::rank &&
                      XN::shape_type::rank >= 1 && detail::axis_in_range(A, XN::shape_type::rank);
  static_assert(XN::shape_type::rank == 0 || detail::axis_in_range(A, XN::shape_type::rank),
                "staticflow: argsort / sort / take_along_axis: the axis is out of range for the tensor's rank");
  if constexpr (!ok) {
    return xn;
  } else {
    constexpr auto axis = static_cast<std::size_t>(detail::normalize_axis(A, XN::shape_type::rank));
    return graph::take_along_axis<XN, PN, axis>(xn, pn);
  }
}

/// tf.sort(x, axis=-1, direction): x's values in order along the axis (stable; NaN the largest).
template <detail::tensor_operand X, int A = -1, sort_direction D = sort_direction::ascending>
constexpr auto sort(const X& x, axes<A> a = {}, std::integral_constant<sort_direction, D> d = {}) {
  const auto xn = detail::as_node<void>(x);
  using XN = std::remove_cvref_t<decltype(xn)>;
  if constexpr (!detail::sort_check<spec_of_node_t<XN>, A>::ok) return xn;
  else return take_along_axis(xn, argsort(xn, a, d), a);
}
template <detail::tensor_operand X, sort_direction D>
constexpr auto sort(const X& x, std::integral_constant<sort_direction, D> d) {
  return sort(x, axes<-1>{}, d);
}

/// tf.math.top_k(x, k): the k largest values along the last axis, largest first (equal values:
/// the lower position first), and their positions (int32), as a std::tuple{values, indices}. k is
/// a C++ integer (a run-time extent) or a static value such as 3_c (static); more than the last
/// axis's extent is an error (compile time where both are static).
template <detail::tensor_operand X, class K>
  requires(std::is_integral<K>::value || static_value_type<K>)
constexpr auto top_k(const X& x, K k) {
  const auto xn = detail::as_node<void>(x);
  using XN = std::remove_cvref_t<decltype(xn)>;
  using S = typename XN::shape_type;
  constexpr std::size_t R = S::rank;
  if constexpr (!detail::sort_check<spec_of_node_t<XN>, -1>::ok) {
    return std::tuple{xn, xn};
  } else {
    const auto first = [&] {
      if constexpr (static_value_type<K>) {
        constexpr auto kk = detail::top_k_check<K::value, S::dims[R - 1]>::k;
        return graph::top_k_positions<XN, kk>(xn, kk);
      } else {
        return graph::top_k_positions<XN, dyn>(xn, detail::checked_extent(k, "top_k: k"));
      }
    }();
    return std::tuple{take_along_axis(xn, first, axes<-1>{}), first};
  }
}

}  // namespace staticflow
