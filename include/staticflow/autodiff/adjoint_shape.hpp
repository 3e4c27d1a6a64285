// staticflow/autodiff/adjoint_shape.hpp -- bringing an adjoint back to the spec of the value it
// belongs to.
//
// Adjoints flow down elementwise chains *unreduced*: the adjoint handed to an operand that was
// broadcast keeps the broadcast shape, so the whole backward chain stays one fused loop, and is
// summed over the broadcast axes only where an exact shape is needed (at a materialized node, and
// for the final gradient of a source). That is valid because every factor met on the way down an
// elementwise chain is constant along the axes the operand was broadcast over.
#pragma once

#include <array>
#include <cstddef>
#include <type_traits>
#include <utility>

#include "staticflow/core/axes.hpp"
#include "staticflow/core/shape.hpp"
#include "staticflow/graph/elementwise.hpp"
#include "staticflow/graph/leaf.hpp"
#include "staticflow/graph/reduce.hpp"
#include "staticflow/graph/shape_ops.hpp"
#include "staticflow/plan/plan.hpp"

namespace staticflow::autodiff {

/// The adjoint of a value the target does not depend on (no node is built for it).
struct zero_adjoint {};

namespace detail {
template <class X>
inline constexpr bool is_zero = std::is_same<std::remove_cvref_t<X>, zero_adjoint>::value;

/// The axes of an adjoint of shape GS that broadcasting against a value of shape S added: the
/// leading axes beyond S's rank (summed away) and the aligned axes where S has extent 1 and GS
/// does not (summed, kept with extent 1). A run-time extent of S is taken to equal the adjoint's
/// (a run-time dimension of extent 1 broadcast against a larger one is the case this misses).
template <class GS, class S>
struct broadcast_added_axes {
  static constexpr std::size_t R = GS::rank, r = S::rank;
  static constexpr std::size_t lead = R > r ? R - r : 0;
  static constexpr bool added(std::size_t i) {
    if (i < lead) return false;
    const std::size_t s = i + r - R;  // the aligned axis of S
    return S::dims[s] == 1 && GS::dims[i] != 1;
  }
  static constexpr std::size_t inner_count = [] {
    std::size_t count = 0;
    for (std::size_t i = 0; i < R; ++i) count += added(i);
    return count;
  }();
  static constexpr std::array<int, inner_count> inner = [] {
    std::array<int, inner_count> a{};
    for (std::size_t i = 0, j = 0; i < R; ++i)
      if (added(i)) a[j++] = static_cast<int>(i);
    return a;
  }();
};

/// g summed over the axes broadcasting against shape S added (a reduce node, fused over g).
template <class S, class G>
constexpr auto sum_to_shape(const G& g) {
  using added = broadcast_added_axes<typename G::shape_type, S>;
  const auto inner = [&] {
    if constexpr (added::inner_count == 0) return g;
    else
      return [&]<std::size_t... K>(std::index_sequence<K...>) {
        return graph::reduce<op::reduce_sum, G, axes<added::inner[K]...>, true>(g, {});
      }(std::make_index_sequence<added::inner_count>{});
  }();
  using I = std::remove_cvref_t<decltype(inner)>;
  if constexpr (added::lead == 0) return inner;
  else
    return [&]<std::size_t... K>(std::index_sequence<K...>) {
      return graph::reduce<op::reduce_sum, I, axes<static_cast<int>(K)...>, false>(inner, {});
    }(std::make_index_sequence<added::lead>{});
}

/// x as dtype T (a cast node only where the dtypes differ).
template <class T, class X>
constexpr auto as_dtype(const X& x) {
  if constexpr (std::is_same<typename X::value_type, T>::value) return x;
  else return graph::cast<T, X>(x);
}

/// x broadcast to the shape of ref (x must broadcast to it): a static broadcast, or one that takes
/// ref's run-time extents (ref is not evaluated).
template <class X, class Ref>
constexpr auto broadcast_like(const X& x, const Ref& ref) {
  using S = typename Ref::shape_type;
  if constexpr (std::is_same<typename X::shape_type, S>::value) return x;
  else if constexpr (S::is_static) return graph::broadcast<S, X>(x);
  else return graph::broadcast_as<X, Ref>(x, ref);
}

/// Whether an adjoint of shape GS may be wider than a value of shape S at run time, in a way the
/// static shapes do not show: an aligned axis where S's extent is run-time and GS's is not 1 (the
/// value broadcast along a run-time extent of 1).
template <class GS, class S>
constexpr bool may_be_wider() {
  if constexpr (GS::rank < S::rank) {
    return false;
  } else {
    for (std::size_t s = 0; s < S::rank; ++s)
      if (S::dims[s] == dyn && GS::dims[s + GS::rank - S::rank] != 1) return true;
    return false;
  }
}

/// Whether adjoint X has the extents of leaf V by construction: a gradient node whose extents are
/// those of its child `X::extents_child` (gather's, a segment sum's, boolean_mask's: the value
/// the forward op read), when that child is V. A leaf's type names it (an argument's index), so
/// the check a broadcast_as would make is then always true, and the copy it costs is saved.
template <class X, class V>
constexpr bool has_extents_of_leaf() {
  if constexpr (!requires { X::extents_child; }) {
    return false;
  } else {
    using kids = decltype(graph::children(std::declval<const X&>()));
    using child = std::remove_cvref_t<std::tuple_element_t<X::extents_child, kids>>;
    return std::is_same<child, V>::value && std::tuple_size<decltype(graph::children(std::declval<const V&>()))>::value == 0;
  }
}

/// The adjoint g brought to the spec of `value`: summed over broadcast axes, cast to its dtype,
/// broadcast up where g is smaller (a reduction's adjoint, a scalar seed). Where run-time extents
/// could hide a broadcast of the value (may_be_wider), the result is a broadcast_as of the value,
/// whose extents are checked when the gradient runs: TensorFlow sums over such axes at run time
/// (BroadcastGradientArgs); staticflow's sums are planned at compile time, so it throws
/// sf::shape_error before the call has any effect instead of returning a gradient of the wrong
/// shape. The check is made where the adjoint reaches a source (a leaf: every gradient ends
/// there), not at a materialized node's rule (a matmul's): there the reference to the node would
/// make the adjoint hold a materialized node, stored in a slot of its own (share_adjoint), and a
/// wider adjoint passed on stays wider (or meets a matmul's inner-dimension check) down to the leaf.
template <class G, class V>
constexpr auto to_value_spec(const G& g, const V& value) {
  const auto x = as_dtype<typename V::value_type>(sum_to_shape<typename V::shape_type>(g));
  using X = std::remove_cvref_t<decltype(x)>;
  if constexpr (std::is_same<typename X::shape_type, typename V::shape_type>::value && has_extents_of_leaf<X, V>())
    return x;
  else if constexpr (may_be_wider<typename X::shape_type, typename V::shape_type>() && !plan::materializes<V>::value)
    return graph::broadcast_as<X, V>(x, value);
  else
    return broadcast_like(x, value);
}

/// Zeros of value's spec (TensorFlow's UnconnectedGradients.ZERO).
template <class V>
constexpr auto zero_adjoint_like(const V& value) {
  using T = typename V::value_type;
  return broadcast_like(graph::literal<T>(T(0)), value);
}

/// Whether two contributions of shapes GA and GB to the adjoint of a value of shape S may be
/// added before they are summed to S: only with the same shape, and static extents on every axis
/// the summing removes. Otherwise the sum would count a contribution once per element of the
/// other's broadcast axes (a [3] bias used as `x [2, 3] + b` and as `b * b`), or meet run-time
/// extents that differ (one bias added to batches of different run-time sizes).
template <class GA, class GB, class S>
constexpr bool addable_unreduced() {
  if constexpr (!std::is_same<GA, GB>::value) {
    return false;
  } else {
    using added = broadcast_added_axes<GA, S>;
    for (std::size_t i = 0; i < GA::rank; ++i)
      if ((i < added::lead || added::added(i)) && GA::dims[i] == dyn) return false;
    return true;
  }
}

/// a + b, two contributions to the adjoint of a value of shape S (either may be the zero
/// adjoint): added as they are where that is exact, each summed to S first where it is not.
template <class S, class A, class B>
constexpr auto add_adjoints(const A& a, const B& b) {
  if constexpr (is_zero<A>) {
    return b;
  } else if constexpr (is_zero<B>) {
    return a;
  } else if constexpr (addable_unreduced<typename A::shape_type, typename B::shape_type, S>()) {
    return graph::binary<op::add, A, B>(a, b);
  } else {
    const auto ra = sum_to_shape<S>(a);
    const auto rb = sum_to_shape<S>(b);
    return graph::binary<op::add, std::remove_cvref_t<decltype(ra)>, std::remove_cvref_t<decltype(rb)>>(ra, rb);
  }
}
template <class S>
constexpr zero_adjoint sum_adjoints() {
  return {};
}
/// The sum of several contributions to the adjoint of a value of shape S.
template <class S, class A, class... Rest>
constexpr auto sum_adjoints(const A& a, const Rest&... rest) {
  return add_adjoints<S>(a, sum_adjoints<S>(rest...));
}

}  // namespace detail
}  // namespace staticflow::autodiff
