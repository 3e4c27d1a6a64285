// staticflow/autodiff/gradients.hpp -- sf::gradients(y, xs...) inside a traced function (the
// graph-mode tf.gradients), and sf::stop_gradient.
//
//   auto f = sf::function([](auto x, auto w) {
//     auto y = sf::reduce_sum(sf::tanh(x * w));
//     auto [dx, dw] = sf::gradients(y, x, w);    // graphs, planned and fused with y
//     return std::tuple{y, dw};
//   });
//
// A non-scalar y is summed first (TensorFlow's rule: the gradient of reduce_sum(y)). A source y
// does not depend on gets zeros of its spec (tf.UnconnectedGradients.ZERO). Integer and bool
// values on the way stop the gradient (their adjoint is not defined), as in TensorFlow.
#pragma once

#include <concepts>
#include <tuple>
#include <type_traits>

#include "staticflow/autodiff/adjoint_shape.hpp"
#include "staticflow/autodiff/backprop.hpp"
#include "staticflow/graph/child_refs.hpp"
#include "staticflow/graph/external.hpp"
#include "staticflow/graph/leaf.hpp"
#include "staticflow/graph/operators.hpp"
#include "staticflow/graph/shared.hpp"
#include "staticflow/plan/plan.hpp"

namespace staticflow {
namespace autodiff::detail {
template <class X> struct is_source_leaf : std::false_type {};
template <std::size_t I, class T, class S> struct is_source_leaf<graph::argument<I, T, S>> : std::true_type {};
template <class T, class S, class K> struct is_source_leaf<graph::external_leaf<T, S, K>> : std::true_type {};

/// An sf::variable (or anything that, like it, has a spec and a live external source): a
/// gradient with respect to it gathers every read of it in the graph.
template <class X>
concept variable_like = !symbolic<X> && requires(const X& x) {
  typename X::value_type;
  typename X::shape_type;
  { x.live_source() } -> std::convertible_to<const graph::external_source*>;
};

template <class X>
struct is_source : is_source_leaf<X> {};
template <variable_like X>
struct is_source<X> : std::true_type {};

/// What backprop looks for (the leaf itself, or every read of a variable), and a node with the
/// source's spec and run-time extents (the shape its gradient takes).
template <class X>
constexpr auto source_key(const X& x) {
  if constexpr (variable_like<X>) return variable_source<typename X::value_type, typename X::shape_type>{x.live_source()->origin};
  else return x;
}
template <class X>
constexpr auto source_value(const X& x) {
  if constexpr (variable_like<X>) return graph::external<typename X::value_type, typename X::shape_type>(x.live_source());
  else return x;
}

/// The reverse walk of y seeded with the cotangent `seed` (a graph that broadcasts to y's shape),
/// brought to the spec of the source x: seed^T dy/dx (sf::jvp seeds it with a symbolic tensor).
template <class Y, class Seed, class X>
constexpr auto vector_jacobian_product(const Y& y, const Seed& seed, const X& x) {
  const auto total = backprop<Y, std::index_sequence<>>(share_materialized<Y, std::index_sequence<>>(y), seed, source_key(x));
  if constexpr (is_zero<decltype(total)>) return zero_adjoint_like(source_value(x));
  else return to_value_spec(total, source_value(x));
}

/// The gradient of y (summed over its elements) with respect to the source x, with x's spec.
template <class Y, class X>
constexpr auto gradient_of(const Y& y, const X& x) {
  using T = typename Y::value_type;
  return vector_jacobian_product(y, graph::literal<T>(T(1)), x);
}

/// Whether each source is one (a template of the answers, not of the node types: a lambda
/// traced and run eagerly reports once).
template <bool... IsSource>
constexpr bool check_sources() {
  static_assert((IsSource && ...), "staticflow: sf::gradients: each source must be an argument of the traced function as the "
                                   "lambda received it, or an sf::variable, not an expression computed from one");
  return (IsSource && ...);
}
}  // namespace autodiff::detail

/// The gradients of y with respect to xs... (tf.gradients in graph mode): one tensor with x's spec
/// for each x, alone for one x, a std::tuple for several. Each x is a leaf of the traced function
/// (one of its arguments as the lambda received it, or in eager mode the value it was handed) or an
/// sf::variable (the gradient with respect to its value: the sum over every read of it).
template <symbolic Y, class... X>
constexpr auto gradients(const Y& y, const X&... xs) {
  static_assert(sizeof...(X) >= 1, "staticflow: sf::gradients(y, xs...) needs at least one source x");
  static_assert(floating_dtype<typename Y::value_type>,
                "staticflow: sf::gradients: the target y is not a float tensor, so it has no gradient");
  constexpr bool sources = autodiff::detail::check_sources<autodiff::detail::is_source<X>::value...>();
  constexpr bool float_sources = [] {
    if constexpr (sources) return (floating_dtype<typename X::value_type> && ...);
    else return true;  // (one error per mistake: the one above)
  }();
  static_assert(float_sources,
                "staticflow: sf::gradients: a gradient is defined for float32 / float64 sources, not for "
                "integer or bool ones");
  // one error per mistake: nothing below is instantiated once a check above has failed
  constexpr bool valid = floating_dtype<typename Y::value_type> && sources && float_sources;
  if constexpr (!valid) return graph::literal<float>(0.f);
  else if constexpr (sizeof...(X) == 1) return autodiff::detail::gradient_of(y, xs...);
  else return std::tuple{autodiff::detail::gradient_of(y, xs)...};
}

/// x in the forward pass; no gradient flows through it (tf.stop_gradient, lax.stop_gradient).
template <detail::tensor_operand A>
constexpr auto stop_gradient(const A& a) {
  const auto n = detail::as_node<void>(a);
  return graph::unary<op::stop_gradient, std::remove_cvref_t<decltype(n)>>(n);
}

}  // namespace staticflow
