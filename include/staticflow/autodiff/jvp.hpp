// staticflow/autodiff/jvp.hpp -- sf::jvp (JAX's jvp: a Jacobian-vector product) and
// sf::hessian_vector_product, both built from the reverse walk: no second set of rules.
//
//   auto layer = [](auto w, auto x) { return sf::tanh(sf::matmul(x, w)); };
//   auto [y, dy] = sf::jvp<0>(layer)(w, x, dw);     // y = layer(w, x), dy = (d layer / dw) . dw
//   auto loss = [](auto w, auto x) { return sf::reduce_sum(sf::square(sf::matmul(x, w))); };
//   auto hv = sf::hessian_vector_product<0>(loss)(w, x, v);   // (d^2 loss / dw^2) . v
//
// A call takes the function's arguments, then one tangent per argnum with that argument's spec
// (a static check) and extents (checked when the function is called with tensors: sf::shape_error
// before anything runs; called inside another traced function, the static spec is checked).
// jvp returns (value, J . v) with the value's spec (JAX's (primals_out, tangents_out); several
// argnums give the sum of their products, the directional derivative along all of them);
// hessian_vector_product returns one tensor per argnum (alone for one), the Hessian of the summed
// value (TensorFlow's rule, as for sf::grad) applied to the tangents.
//
// How: the reverse walk with a symbolic cotangent u of the value's spec builds vjp(u) = J^T u, a
// graph linear in u; the reverse walk of <J^T u, v> with respect to u is J v (the transposition
// trick: two reverse walks instead of a forward-mode rule per op). J v does not depend on u, but
// the graph may still name u where a rule took its extents (a broadcast_as reference), so u is
// then replaced by zeros of the value's spec. The Hessian-vector product is the reverse walk of
// the gradient seeded with v (reverse over reverse). Both are graphs like any other: planned,
// fused, cached per signature. (The transposition needs the reverse walk to be linear in its
// seed: an sf::custom_gradient whose vjp is not linear in g, one that clips it, gives a wrong
// jvp; JAX refuses jvp of a custom_vjp for that reason.)
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/autodiff/adjoint_shape.hpp"
#include "staticflow/autodiff/backprop.hpp"
#include "staticflow/autodiff/grad.hpp"
#include "staticflow/autodiff/gradients.hpp"
#include "staticflow/core/errors.hpp"
#include "staticflow/core/shape.hpp"
#include "staticflow/graph/child_refs.hpp"
#include "staticflow/graph/leaf.hpp"
#include "staticflow/graph/traversal.hpp"
#include "staticflow/trace/function.hpp"

namespace staticflow {
namespace autodiff::detail {

template <class A>
constexpr auto sum_of(const A& a) {
  return a;
}
template <class A, class B, class... Rest>
constexpr auto sum_of(const A& a, const B& b, const Rest&... rest) {
  return sum_of(a + b, rest...);
}

/// Whether a tangent of type V fits the argument of type X: one dtype, one rank, equal extents
/// where both are static (run-time extents are checked by the products' own broadcasting).
template <class X, class V>
constexpr bool tangent_fits() {
  if constexpr (!symbolic<X> || !symbolic<V>) {
    return false;
  } else {
    using XS = typename X::shape_type;
    using VS = typename V::shape_type;
    if constexpr (!std::is_same<typename X::value_type, typename V::value_type>::value || XS::rank != VS::rank) {
      return false;
    } else {
      for (std::size_t i = 0; i < XS::rank; ++i)
        if (XS::dims[i] != dyn && VS::dims[i] != dyn && XS::dims[i] != VS::dims[i]) return false;
      return true;
    }
  }
}

/// The index of the cotangent leaf of sf::jvp's first reverse walk.
inline constexpr std::size_t cotangent_index = std::size_t{1} << 40;

template <std::size_t... I>
constexpr bool all_distinct() {
  constexpr std::size_t ids[] = {I...};
  for (std::size_t a = 0; a < sizeof...(I); ++a)
    for (std::size_t b = a + 1; b < sizeof...(I); ++b)
      if (ids[a] == ids[b]) return false;
  return true;
}

enum class product_kind { jvp, hvp };

/// The function sf::jvp / sf::hessian_vector_product trace: (arguments..., tangents...) -> the
/// product. Argnums name the differentiated arguments, in the order of the tangents.
template <product_kind Kind, class Fn, std::size_t... Argnums>
struct differentiated_product {
  [[no_unique_address]] Fn fn;
  /// Run traced under sf::run_functions_eagerly(true), as sf::grad does (autodiff/grad.hpp).
  static constexpr bool traced_in_eager_mode = true;

  /// Each tangent has its argument's run-time extents (a broadcast tangent would differentiate
  /// along another direction, and through a matmul or a reduction give wrong values): called by
  /// the concrete function with every argument's extents before it computes anything.
  template <class Extents>
  static void check_argument_extents(const Extents& extents) {
    constexpr std::size_t tangents = sizeof...(Argnums);
    constexpr std::size_t primals = std::tuple_size<Extents>::value - tangents;
    constexpr std::array<std::size_t, tangents> argnums{Argnums...};
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      ([&] {
        const auto& x = staticflow::detail::get<argnums[K]>(extents);
        const auto& v = staticflow::detail::get<primals + K>(extents);
        if constexpr (std::tuple_size<std::remove_cvref_t<decltype(x)>>::value == std::tuple_size<std::remove_cvref_t<decltype(v)>>::value) {
          if (x != v)
            throw shape_error(std::string(Kind == product_kind::jvp ? "sf::jvp" : "sf::hessian_vector_product") +
                              ": tangent " + std::to_string(K) + " has shape " + staticflow::detail::extents_string(v) +
                              " but argument " + std::to_string(argnums[K]) + ", which it goes with, has shape " +
                              staticflow::detail::extents_string(x));
        }
      }(), ...);
    }(std::make_index_sequence<tangents>{});
  }

  template <class... All>
  constexpr auto operator()(const All&... all) const {
    constexpr std::size_t tangents = sizeof...(Argnums);
    constexpr bool distinct = all_distinct<Argnums...>();
    static_assert(distinct, "staticflow: sf::jvp / sf::hessian_vector_product: an argnum is named twice");
    constexpr bool in_range = sizeof...(All) > tangents && ((Argnums < sizeof...(All) - tangents) && ...);
    static_assert(in_range,
                  "staticflow: sf::jvp / sf::hessian_vector_product: call it with the function's arguments, then "
                  "one tangent per argnum; an argnum is not the index of one of the arguments");
    if constexpr (!distinct || !in_range) {
      return graph::literal<float>(0.f);  // (after the error above: no second one)
    } else {
      return checked(std::forward_as_tuple(all...), std::make_index_sequence<sizeof...(All) - tangents>{},
                     std::make_index_sequence<tangents>{});
    }
  }

 private:
  template <class Tuple, std::size_t... A, std::size_t... K>
  constexpr auto checked(const Tuple& all, std::index_sequence<A...>, std::index_sequence<K...>) const {
    constexpr std::size_t primals = sizeof...(A);
    using args = std::remove_cvref_t<Tuple>;
    constexpr bool symbolic_arguments = (symbolic<std::remove_cvref_t<std::tuple_element_t<Argnums, args>>> && ...);
    static_assert(symbolic_arguments,
                  "staticflow: sf::jvp / sf::hessian_vector_product: an argnum names a static argument, which has no "
                  "derivative");
    constexpr bool sources = !symbolic_arguments || (is_source<std::remove_cvref_t<std::tuple_element_t<Argnums, args>>>::value && ...);
    static_assert(sources,
                  "staticflow: sf::jvp / sf::hessian_vector_product: called inside a traced function, each argnum must "
                  "name a leaf (an argument of that function as its lambda received it), not an expression");
    constexpr bool fits = !symbolic_arguments || !sources ||
                          (tangent_fits<std::remove_cvref_t<std::tuple_element_t<Argnums, args>>,
                                        std::remove_cvref_t<std::tuple_element_t<primals + K, args>>>() && ...);
    static_assert(fits,
                  "staticflow: sf::jvp / sf::hessian_vector_product: each tangent must have the dtype and shape of "
                  "the argument its argnum names (the tangents follow the arguments, in argnum order)");
    if constexpr (!symbolic_arguments || !sources || !fits) {
      return graph::literal<float>(0.f);
    } else {
      const auto value = fn(staticflow::detail::get<A>(all)...);
      static_assert(symbolic<decltype(value)>,
                    "staticflow: sf::jvp / sf::hessian_vector_product: the function must return one tensor");
      if constexpr (!symbolic<decltype(value)>) return graph::literal<float>(0.f);
      else if constexpr (Kind == product_kind::jvp) return jacobian_vector(value, all, std::index_sequence<K...>{});
      else return hessian_vector(value, all, std::index_sequence<K...>{});
    }
  }

  template <class Y, class Tuple, std::size_t... K>
  static constexpr auto jacobian_vector(const Y& value, const Tuple& all, std::index_sequence<K...>) {
    constexpr bool float_value = floating_dtype<typename Y::value_type>;
    static_assert(float_value, "staticflow: sf::jvp: the function's value is not a float tensor, so it has no derivative");
    constexpr bool float_arguments =
        (floating_dtype<typename std::remove_cvref_t<std::tuple_element_t<Argnums, Tuple>>::value_type> && ...);
    static_assert(float_arguments,
                  "staticflow: sf::jvp: a derivative is defined for float32 / float64 arguments, not for integer or "
                  "bool ones");
    if constexpr (!float_value || !float_arguments) return graph::literal<float>(0.f);
    else return transposed(value, all, std::index_sequence<K...>{});
  }

  template <class Y, class Tuple, std::size_t... K>
  static constexpr auto transposed(const Y& value, const Tuple& all, std::index_sequence<K...>) {
    // the cotangent: a leaf that no argument is, of this call or of a function that calls this
    // one while it is traced (an inner product's cotangent is gone before it returns)
    using U = graph::argument<cotangent_index, typename Y::value_type, typename Y::shape_type>;
    const U u{};
    constexpr std::size_t primals = std::tuple_size<Tuple>::value - sizeof...(K);
    const auto jv = sum_of(vector_jacobian_product(vector_jacobian_product(value, u, staticflow::detail::get<Argnums>(all)),
                                                   staticflow::detail::get<primals + K>(all), u)...);
    // (the value as the walks shared it: a zeros node that names it reads the same slots)
    const auto shared_value = share_materialized<Y, std::index_sequence<>>(value);
    const auto product = replace_leaf<U>(jv, zero_adjoint_like(shared_value));
    static_assert(!reaches_node<U, std::remove_cvref_t<decltype(product)>>::value,
                  "staticflow: sf::jvp: the function's graph holds a cond, switch_case or loop whose derivative "
                  "sf::jvp cannot transpose yet");
    return std::tuple{shared_value, product};
  }

  template <class Y, class Tuple, std::size_t... K>
  static constexpr auto hessian_vector(const Y& value, const Tuple& all, std::index_sequence<K...>) {
    constexpr std::size_t primals = std::tuple_size<Tuple>::value - sizeof...(K);
    const auto grads = std::tuple{gradients(value, staticflow::detail::get<Argnums>(all))...};
    const auto product = [&](const auto& x) {
      return sum_of(vector_jacobian_product(staticflow::detail::get<K>(grads), staticflow::detail::get<primals + K>(all), x)...);
    };
    if constexpr (sizeof...(Argnums) == 1) return (product(staticflow::detail::get<Argnums>(all)), ...);
    else return std::tuple{product(staticflow::detail::get<Argnums>(all))...};
  }
};

template <product_kind Kind, class Fn, std::size_t... Argnums>
constexpr auto make_product(Fn fn, std::index_sequence<Argnums...>) {
  return differentiated_product<Kind, Fn, Argnums...>{std::move(fn)};
}
}  // namespace autodiff::detail

/// fn's Jacobian-vector product with respect to arguments Argnums... (default 0), untraced: a
/// function of (arguments..., tangents...) returning (value, J . tangents).
template <std::size_t... Argnums, class Fn>
constexpr auto jvp_fn(Fn fn) {
  return autodiff::detail::make_product<autodiff::detail::product_kind::jvp>(
      std::move(fn), autodiff::detail::argnums_or_first<Argnums...>{});
}
/// The Hessian (of fn's summed value) with respect to arguments Argnums... (default 0) applied to
/// the tangents, untraced: a function of (arguments..., tangents...).
template <std::size_t... Argnums, class Fn>
constexpr auto hessian_vector_product_fn(Fn fn) {
  return autodiff::detail::make_product<autodiff::detail::product_kind::hvp>(
      std::move(fn), autodiff::detail::argnums_or_first<Argnums...>{});
}

/// jax.jvp as an sf::function: `sf::jvp<0>(f)(x, y, dx)` is (f(x, y), the derivative of f along dx).
template <std::size_t... Argnums, class Fn, class... Options>
auto jvp(Fn fn, Options... options) {
  return function(jvp_fn<Argnums...>(std::move(fn)), std::move(options)...);
}
/// The Hessian-vector product as an sf::function: `sf::hessian_vector_product<0>(loss)(w, x, v)`.
template <std::size_t... Argnums, class Fn, class... Options>
auto hessian_vector_product(Fn fn, Options... options) {
  return function(hessian_vector_product_fn<Argnums...>(std::move(fn)), std::move(options)...);
}

}  // namespace staticflow
