// staticflow/control/fori_loop.hpp -- sf::fori_loop: a counted loop (lax.fori_loop, a Python
// `for i in range(lo, hi)` under AutoGraph).
//
// With run-time bounds it is a while_loop whose first variable is the counter. With compile-time
// bounds (std::integral_constant, e.g. sf::static_value<4>) and at most STATICFLOW_UNROLL_LIMIT
// iterations the body is unrolled at trace time, each copy seeing its index as a constant, so the
// graph has no loop at all (longer static loops run as while loops with constant bounds). A value
// the body reads twice or more is handed to it as one shared node (graph/shared.hpp), computed
// once into a slot, so the graph grows linearly with the steps rather than as uses^steps; a body
// that reads each variable once fuses all its steps into one loop.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/control/structure.hpp"
#include "staticflow/control/tensor_array.hpp"
#include "staticflow/control/while_loop.hpp"
#include "staticflow/graph/shape_ops.hpp"
#include "staticflow/graph/shared.hpp"
#include "staticflow/plan/plan.hpp"

/// The longest compile-time-bounded fori_loop that is unrolled at trace time.
#ifndef STATICFLOW_UNROLL_LIMIT
#define STATICFLOW_UNROLL_LIMIT 16
#endif

namespace staticflow {
namespace detail {
template <class V>
constexpr bool is_integral_constant_v = [] {
  if constexpr (static_value_type<V>) return std::is_integral<typename V::value_type>::value && !std::is_same<typename V::value_type, bool>::value;
  else return false;
}();

/// The counter's dtype: int32, or int64 when a bound is an int64 tensor.
template <class B>
constexpr bool is_int64_tensor() {
  if constexpr (symbolic<B>) return std::is_same<typename B::value_type, std::int64_t>::value;
  else return false;
}
template <class Lo, class Hi>
using counter_t = std::conditional_t<is_int64_tensor<Lo>() || is_int64_tensor<Hi>(), std::int64_t, std::int32_t>;

/// Whether fori_loop(lo, hi, ...) is unrolled at trace time.
template <class Lo, class Hi>
constexpr bool unrolls() {
  if constexpr (is_integral_constant_v<Lo> && is_integral_constant_v<Hi>)
    return std::int64_t(Hi::value) - std::int64_t(Lo::value) <= STATICFLOW_UNROLL_LIMIT;
  else return false;
}

/// A tensor bound's check, a template of its spec (a lambda traced and run eagerly reports once).
template <class S>
constexpr bool check_counter_bound() {
  constexpr bool ok = std::is_integral<typename S::value_type>::value && !std::is_same<typename S::value_type, bool>::value &&
                      S::shape_type::rank == 0;
  static_assert(ok, "staticflow: sf::fori_loop: a bound must be a scalar integer (a C++ integer or an int32/int64 tensor)");
  return ok;
}

template <class C, class B>
constexpr auto counter_bound(const B& b) {
  if constexpr (symbolic<B>) {
    using S = spec_of_node_t<B>;
    if constexpr (!check_counter_bound<S>()) return graph::literal<C>(C{});  // (reported: nothing more)
    else if constexpr (std::is_same<typename S::value_type, C>::value) return b;
    else return cast<C>(b);
  } else {
    static_assert(std::is_integral<std::remove_cvref_t<decltype(literal_value(b))>>::value,
                  "staticflow: sf::fori_loop: a bound must be a scalar integer (a C++ integer or an int32/int64 tensor)");
    return graph::literal<C>(static_cast<C>(literal_value(b)));
  }
}

/// What an unrolled body starts from: tensors, literals, traced tensor arrays.
template <class V>
constexpr auto unrolled_value(const V& v) {
  if constexpr (is_tensor_array<V>::value) return v.traced();
  else if constexpr (is_traced_tensor_array<V>::value) return v;
  else return to_node(v);
}

/// The tag of the value loop variable J holds entering step I of the unrolled loop whose body is
/// Body (graph/shared.hpp: the planner computes one value per tag).
template <class Body, std::int64_t I, std::size_t J>
struct unrolled_step {};

/// The key of that value's shared node (graph/shared.hpp): a local class, so that the node's type
/// does not nest the type of the value it holds.
template <class Body, std::int64_t I, std::size_t J, class M>
constexpr auto unrolled_step_key() {
  struct key : graph::shared_key<unrolled_step<Body, I, J>, M> {};
  return key{};
}

// effects/eager.hpp
template <class N>
constexpr bool eager_graph();
template <class Spec, class N>
auto eager_materialize(const N& n);

template <class V, class T>
constexpr std::size_t occurrences_in();
/// How many times node type V occurs in T (a node, or a tuple of nodes or of tuples), the graphs
/// that cond branches and loops hold besides their children included. (A variable, so that each
/// node type is counted once however many paths lead to it.)
template <class V, class T>
inline constexpr std::size_t occurrences_v = occurrences_in<V, T>();
template <class V, class T>
constexpr std::size_t occurrences() {
  return occurrences_v<V, T>;
}
template <class V, class Tuple>
constexpr std::size_t occurrences_in_tuple() {
  return []<std::size_t... K>(std::index_sequence<K...>) {
    return (std::size_t{0} + ... + occurrences_v<V, std::remove_cvref_t<std::tuple_element_t<K, Tuple>>>);
  }(std::make_index_sequence<std::tuple_size<Tuple>::value>{});
}
template <class V, class T>
constexpr std::size_t occurrences_in() {
  if constexpr (std::is_same<T, V>::value) {
    return 1;
  } else if constexpr (is_tuple<T>::value) {
    return occurrences_in_tuple<V, T>();
  } else if constexpr (symbolic<T>) {
    std::size_t n = occurrences_in_tuple<V, decltype(graph::children(std::declval<const T&>()))>();
    if constexpr (requires(const T& t) { t.subgraphs(); })
      n += occurrences_in_tuple<V, std::remove_cvref_t<decltype(std::declval<const T&>().subgraphs())>>();
    if constexpr (requires(const T& t) { t.cond; t.body; t.inits; })
      n += occurrences_v<V, std::remove_cvref_t<decltype(std::declval<const T&>().cond)>> +
           occurrences_v<V, std::remove_cvref_t<decltype(std::declval<const T&>().body)>>;
    return n;
  } else {
    return 0;
  }
}

/// Whether a step's value is a computation (not a leaf, nor already one shared value).
template <class V>
constexpr bool computed_value() {
  if constexpr (!symbolic<V> || graph::detail::is_shared<V>::value) return false;
  else return std::tuple_size<decltype(graph::children(std::declval<const V&>()))>::value > 0;
}

/// Loop variable J's value v as step I hands it to a body that reads it Uses times. A computed
/// value read more than once becomes one shared node (evaluated now, in an eager call): each
/// step would otherwise copy the previous step's whole graph into every read, and the graph
/// would grow as Uses^steps (a body `x * x + x` unrolled 16 times: 3^16 copies of x).
template <class Body, std::int64_t I, std::size_t J, std::size_t Uses, class V>
constexpr auto step_input(const V& v) {
  if constexpr (Uses < 2 || !computed_value<V>()) {
    return v;
  } else if constexpr (eager_graph<V>()) {
    return eager_materialize<spec_of_node_t<V>>(v);
  } else if constexpr (plan::shareable_as_is<V>::value) {
    return graph::shared_node<decltype(unrolled_step_key<Body, I, J, V>())>(v);
  } else {
    return graph::shared_node<decltype(unrolled_step_key<Body, I, J, graph::stored<V>>())>(graph::stored<V>(v));
  }
}

/// What the body returns for state State (as a tuple).
template <class Body, class State>
struct step_result;
template <class Body, class... V>
struct step_result<Body, std::tuple<V...>> {
  using type = decltype(as_tuple(
      std::declval<Body&>()(std::declval<const graph::literal<std::int32_t>&>(), std::declval<const V&>()...)));
};

template <std::int64_t I, class Body, class State>
constexpr auto unrolled_step_inputs(const State& state) {
  using result = typename step_result<Body, State>::type;
  return [&]<std::size_t... J>(std::index_sequence<J...>) {
    return std::tuple{step_input<Body, I, J, occurrences<std::tuple_element_t<J, State>, result>()>(staticflow::detail::get<J>(state))...};
  }(std::make_index_sequence<std::tuple_size<State>::value>{});
}

template <std::int64_t I, std::int64_t Hi, class Body, class State>
constexpr auto unroll(Body& body, const State& state) {
  if constexpr (I >= Hi) {
    return state;
  } else {
    auto next = as_tuple(staticflow::detail::apply(
        [&](const auto&... v) { return body(graph::literal<std::int32_t>(static_cast<std::int32_t>(I)), v...); },
        unrolled_step_inputs<I, Body>(state)));
    static_assert(std::tuple_size<decltype(next)>::value == std::tuple_size<State>::value,
                  "staticflow: sf::fori_loop: the body must return one value per loop variable");
    return unroll<I + 1, Hi>(body, next);
  }
}

struct fori_scope_tag {};
/// The scope tag of a loop with sf::static_value bounds too long to unroll: the listing says so.
template <std::int64_t Steps>
struct fori_not_unrolled_tag {
  static std::string listing_note() {
    return "not_unrolled=" + std::to_string(Steps) + " static steps > STATICFLOW_UNROLL_LIMIT " +
           std::to_string(STATICFLOW_UNROLL_LIMIT);
  }
};
template <class Lo, class Hi>
constexpr auto fori_scope_tag_of() {
  if constexpr (is_integral_constant_v<Lo> && is_integral_constant_v<Hi>) return fori_not_unrolled_tag<std::int64_t(Hi::value) - std::int64_t(Lo::value)>{};
  else return fori_scope_tag{};
}
}  // namespace detail

/// lax.fori_loop: for i in [lo, hi): vars = body(i, vars...); returns the final variables (one
/// value, or a std::tuple). Bounds are C++ integers, scalar integer tensors, or
/// std::integral_constant (then short loops are unrolled at trace time).
template <class Lo, class Hi, class Body, class... Vars>
constexpr auto fori_loop(const Lo& lo, const Hi& hi, Body&& body, const Vars&... vars) {
  static_assert(sizeof...(Vars) > 0,
                "staticflow: sf::fori_loop needs at least one loop variable (a loop run only for its effects "
                "is sf::for_range)");
  if constexpr (detail::unrolls<Lo, Hi>()) {
    return detail::unwrap_single(
        detail::unroll<std::int64_t(Lo::value), std::int64_t(Hi::value)>(body, std::tuple{detail::unrolled_value(vars)...}));
  } else {
    using C = detail::counter_t<Lo, Hi>;
    const auto first = detail::counter_bound<C>(lo);
    const auto last = detail::counter_bound<C>(hi);
    using Scope = std::tuple<decltype(detail::fori_scope_tag_of<Lo, Hi>()), std::remove_cvref_t<Body>>;
    auto cond = [&](const auto& i, const auto&...) { return i < last; };
    auto step = [&](const auto& i, const auto&... v) {
      auto next = detail::as_tuple(body(i, v...));
      static_assert(std::tuple_size<decltype(next)>::value == sizeof...(Vars),
                    "staticflow: sf::fori_loop: the body must return one value per loop variable");
      return staticflow::detail::pack_to_tuple(staticflow::detail::values_concat(staticflow::detail::pack_of(i + C(1)), next));
    };
    auto all = detail::as_tuple(detail::while_loop_in<Scope>(cond, step, std::int64_t{-1}, first, vars...));
    return detail::unwrap_single([&]<std::size_t... K>(std::index_sequence<K...>) {
      return std::tuple{staticflow::detail::get<K + 1>(all)...};
    }(std::index_sequence_for<Vars...>{}));
  }
}

}  // namespace staticflow
