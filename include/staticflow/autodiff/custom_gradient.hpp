// staticflow/autodiff/custom_gradient.hpp -- sf::custom_gradient: a function whose gradient is
// given rather than derived (tf.custom_gradient, jax.custom_vjp).
//
//   // log(1 + e^x), whose derived gradient e^x / (1 + e^x) is NaN at x = 100 in float32
//   auto log1pexp = sf::custom_gradient(
//       [](auto x) { return sf::log(1.f + sf::exp(x)); },                    // the forward function
//       [](auto g, auto x) { return g * (1.f - 1.f / (1.f + sf::exp(x))); });  // g and the inputs -> dx
//   auto loss = [log1pexp](auto x) { return sf::reduce_sum(log1pexp(x)); };  // any traced function
//   auto dx = sf::grad(loss)(x);                                              // 1.0 where x = 100
//
// Two spellings:
//  * `sf::custom_gradient(fwd, vjp)`: fwd(xs...) is the value; vjp(g, xs...) returns the adjoint of
//    each input given the adjoint g of the value (one graph for one input, a std::tuple for
//    several), as jax.custom_vjp's bwd.
//  * `sf::custom_gradient(f)`: f(xs...) returns `std::pair{y, grad_fn}` and grad_fn(g) returns the
//    inputs' adjoints, tf.custom_gradient's form: grad_fn captures the intermediate values it needs
//    (by value: they are symbolic tensors), JAX's residuals.
// Inputs are symbolic tensors, sf::variables (read where the function is called) or numbers
// (constants: no gradient). The result is y (graph::custom_gradient, graph/custom_gradient.hpp): it
// computes exactly what fwd's graph computes, fused like any graph; only the reverse walk differs,
// which continues from each input with what vjp returned, brought to the input's spec (summed over
// the axes it was broadcast along; a number is broadcast). A gradient flows to the inputs only:
// sources fwd reads in another way (a variable it captures) get none through this function
// (tf.custom_gradient asks for a `variables` argument there; not supported).
#pragma once

#include <tuple>
#include <type_traits>
#include <utility>

#include "staticflow/autodiff/backprop.hpp"
#include "staticflow/graph/custom_gradient.hpp"
#include "staticflow/graph/operators.hpp"

namespace staticflow {
namespace autodiff::detail {
template <class P> struct is_pair : std::false_type {};
template <class A, class B> struct is_pair<std::pair<A, B>> : std::true_type {};

/// The node of y = forward value with adjoint function vjp over the inputs.
template <class Y, class Vjp, class... X>
constexpr auto custom_gradient_node(const Y& y, const Vjp& vjp, const X&... inputs) {
  static_assert(symbolic<Y>,
                "staticflow: sf::custom_gradient: the forward function must return a symbolic tensor (one "
                "value; a number has no gradient to customize)");
  if constexpr (!symbolic<Y>) return y;
  else return graph::custom_gradient<Y, Vjp, X...>(y, vjp, std::tuple<X...>{inputs...});
}

/// The call of a function with a custom gradient: its inputs as the function sees them, symbolic
/// tensors (a variable is read where the function is called, a number is a literal).
template <class Derived>
struct custom_gradient_call {
  template <class... X>
    requires((staticflow::detail::operand<X> && ...) && (staticflow::detail::tensor_operand<X> || ...))
  constexpr auto operator()(const X&... xs) const {
    return static_cast<const Derived&>(*this).apply(staticflow::detail::as_node<void>(xs)...);
  }
};

/// custom_gradient(fwd, vjp).
template <class Fwd, class Vjp>
struct custom_vjp_function : custom_gradient_call<custom_vjp_function<Fwd, Vjp>> {
  [[no_unique_address]] Fwd fwd;
  [[no_unique_address]] Vjp vjp;

  template <class... N>
  constexpr auto apply(const N&... inputs) const {
    // the adjoint function as the node holds it: vjp over the inputs as the function saw them
    auto adjoint = [vjp = vjp, inputs...](const auto& g) { return vjp(g, inputs...); };
    return custom_gradient_node(fwd(inputs...), adjoint, inputs...);
  }
};

/// custom_gradient(f), f returning std::pair{y, grad_fn}.
template <class F>
struct tf_custom_gradient_function : custom_gradient_call<tf_custom_gradient_function<F>> {
  [[no_unique_address]] F f;

  template <class... N>
  constexpr auto apply(const N&... inputs) const {
    const auto result = f(inputs...);
    static_assert(is_pair<std::remove_cvref_t<decltype(result)>>::value,
                  "staticflow: sf::custom_gradient(f): f must return std::pair{y, grad_fn}, grad_fn(g) giving "
                  "the inputs' gradients (or use sf::custom_gradient(fwd, vjp))");
    if constexpr (!is_pair<std::remove_cvref_t<decltype(result)>>::value) return result;
    else return custom_gradient_node(result.first, result.second, inputs...);
  }
};
}  // namespace autodiff::detail

/// A function with a given gradient: fwd(xs...) is its value, vjp(g, xs...) the adjoints of xs...
/// for the adjoint g of the value (jax.custom_vjp). Call it inside a traced function.
template <class Fwd, class Vjp>
constexpr auto custom_gradient(Fwd fwd, Vjp vjp) {
  return autodiff::detail::custom_vjp_function<Fwd, Vjp>{{}, std::move(fwd), std::move(vjp)};
}

/// tf.custom_gradient: f(xs...) returns std::pair{y, grad_fn}; grad_fn(g) gives the adjoints of
/// xs... (one, or a std::tuple of several).
template <class F>
constexpr auto custom_gradient(F f) {
  return autodiff::detail::tf_custom_gradient_function<F>{{}, std::move(f)};
}

}  // namespace staticflow
