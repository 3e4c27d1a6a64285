// staticflow/autodiff/grad.hpp -- sf::grad and sf::value_and_grad (JAX's names and argnums):
// functions that return gradients, traced and cached per signature like any sf::function.
//
//   auto loss = [](auto w, auto b, auto x, auto y) { return sf::reduce_mean(sf::square(x * w + b - y)); };
//   auto vg = sf::value_and_grad<0, 1>(loss);      // d/dw and d/db
//   auto [l, dw, db] = vg(w, b, x, y);              // the value first, then one gradient per argnum
//   auto g = sf::grad<0>(loss);                     // g(w, b, x, y) is dl/dw alone
//
// Without argnums, argument 0 (JAX's default). The result is flat (C++ binds it with one
// structured binding): value_and_grad gives (value, grad...), grad gives the gradient alone for
// one argnum and a std::tuple for several. The value may be any float tensor; the gradient is that
// of its sum (TensorFlow's rule; jax.grad asks for a scalar). `sf::grad_fn` / `sf::value_and_grad_fn`
// are the same functions untraced, to hand to sf::function with an input signature.
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticflow/autodiff/gradients.hpp"
#include "staticflow/core/value_pack.hpp"
#include "staticflow/trace/function.hpp"

namespace staticflow {
namespace autodiff::detail {

template <bool WithValue, class Fn, std::size_t... Argnums>
struct differentiated {
  [[no_unique_address]] Fn fn;
  /// Under sf::run_functions_eagerly(true) a gradient function runs its traced graph: handed
  /// eager values (which all share one type per spec), the lambda would build the adjoint of
  /// every leaf of that spec and select at run time, a graph that took the compiler over 6 GB for
  /// a 3-op loss. For an op-by-op reference, build it with sf::backend::eager.
  static constexpr bool traced_in_eager_mode = true;

  template <class... Args>
  constexpr auto operator()(const Args&... args) const {
    static_assert(((Argnums < sizeof...(Args)) && ...),
                  "staticflow: sf::grad / sf::value_and_grad: an argnum is not the index of an argument of the call");
    if constexpr (((Argnums < sizeof...(Args)) && ...)) return differentiate(args...);
    else return graph::literal<float>(0.f);  // (after the error above: no second one)
  }

 private:
  template <class... Args>
  constexpr auto differentiate(const Args&... args) const {
    const auto value = fn(args...);
    static_assert(symbolic<decltype(value)>,
                  "staticflow: sf::grad / sf::value_and_grad: the function must return one tensor (the value "
                  "to differentiate)");
    const auto all = std::forward_as_tuple(args...);
    static_assert((symbolic<std::tuple_element_t<Argnums, std::tuple<Args...>>> && ...),
                  "staticflow: sf::grad / sf::value_and_grad: an argnum names a static argument, which has no gradient");
    const auto grads = gradients(value, staticflow::detail::get<Argnums>(all)...);
    // the value's materialized nodes marked as the gradients' are (graph/shared.hpp): one slot each
    using V = std::remove_cvref_t<decltype(value)>;
    if constexpr (WithValue) return std::tuple_cat(std::tuple{share_materialized<V, std::index_sequence<>>(value)}, staticflow::detail::as_tuple(grads));
    else return grads;
  }
};

template <bool WithValue, class Fn, std::size_t... Argnums>
constexpr auto make_differentiated(Fn fn, std::index_sequence<Argnums...>) {
  return differentiated<WithValue, Fn, Argnums...>{std::move(fn)};
}
template <std::size_t... Argnums>
using argnums_or_first = std::conditional_t<sizeof...(Argnums) == 0, std::index_sequence<0>, std::index_sequence<Argnums...>>;
}  // namespace autodiff::detail

/// fn's gradient with respect to arguments Argnums... (default 0), as an untraced function.
template <std::size_t... Argnums, class Fn>
constexpr auto grad_fn(Fn fn) {
  return autodiff::detail::make_differentiated<false>(std::move(fn), autodiff::detail::argnums_or_first<Argnums...>{});
}
/// fn's value and its gradient with respect to arguments Argnums... (default 0), untraced.
template <std::size_t... Argnums, class Fn>
constexpr auto value_and_grad_fn(Fn fn) {
  return autodiff::detail::make_differentiated<true>(std::move(fn), autodiff::detail::argnums_or_first<Argnums...>{});
}

/// jax.grad as an sf::function: options (backend, names, cache capacity) as for sf::function.
template <std::size_t... Argnums, class Fn, class... Options>
auto grad(Fn fn, Options... options) {
  return function(grad_fn<Argnums...>(std::move(fn)), std::move(options)...);
}
/// jax.value_and_grad as an sf::function: calls return (value, grad...).
template <std::size_t... Argnums, class Fn, class... Options>
auto value_and_grad(Fn fn, Options... options) {
  return function(value_and_grad_fn<Argnums...>(std::move(fn)), std::move(options)...);
}

}  // namespace staticflow
