// staticflow/control/fori_loop.hpp -- sf::fori_loop: a counted loop (lax.fori_loop, a Python
// `for i in range(lo, hi)` under AutoGraph).
//
// With run-time bounds it is a while_loop whose first variable is the counter. With compile-time
// bounds (std::integral_constant, e.g. sf::static_value<4>) and at most STATICFLOW_UNROLL_LIMIT
// iterations the body is unrolled at trace time, each copy seeing its index as a constant, so the
// graph has no loop at all (longer static loops run as while loops with constant bounds).
#pragma once

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticflow/control/structure.hpp"
#include "staticflow/control/tensor_array.hpp"
#include "staticflow/control/while_loop.hpp"

/// The longest compile-time-bounded fori_loop that is unrolled at trace time.
#ifndef STATICFLOW_UNROLL_LIMIT
#define STATICFLOW_UNROLL_LIMIT 16
#endif

namespace staticflow {
namespace detail {
template <class V>
constexpr bool is_integral_constant_v = [] {
  if constexpr (static_value_type<V>) return std::is_integral_v<typename V::value_type> && !std::is_same_v<typename V::value_type, bool>;
  else return false;
}();

/// The counter's dtype: int32, or int64 when a bound is an int64 tensor.
template <class B>
constexpr bool is_int64_tensor() {
  if constexpr (symbolic<B>) return std::is_same_v<typename B::value_type, std::int64_t>;
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

template <class C, class B>
constexpr auto counter_bound(const B& b) {
  if constexpr (symbolic<B>) {
    using S = spec_of_node_t<B>;
    static_assert(std::is_integral_v<typename S::value_type> && !std::is_same_v<typename S::value_type, bool> &&
                      S::shape_type::rank == 0,
                  "staticflow: sf::fori_loop: a bound must be a scalar integer (a C++ integer or an int32/int64 tensor)");
    if constexpr (std::is_same_v<typename S::value_type, C>) return b;
    else return cast<C>(b);
  } else {
    static_assert(std::is_integral_v<std::remove_cvref_t<decltype(literal_value(b))>>,
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

template <std::int64_t I, std::int64_t Hi, class Body, class State>
constexpr auto unroll(Body& body, const State& state) {
  if constexpr (I >= Hi) {
    return state;
  } else {
    auto next = as_tuple(std::apply(
        [&](const auto&... v) { return body(graph::literal<std::int32_t>(static_cast<std::int32_t>(I)), v...); }, state));
    static_assert(std::tuple_size_v<decltype(next)> == std::tuple_size_v<State>,
                  "staticflow: sf::fori_loop: the body must return one value per loop variable");
    return unroll<I + 1, Hi>(body, next);
  }
}

struct fori_scope_tag {};
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
    using Scope = std::tuple<detail::fori_scope_tag, std::remove_cvref_t<Body>>;
    auto cond = [&](const auto& i, const auto&...) { return i < last; };
    auto step = [&](const auto& i, const auto&... v) {
      auto next = detail::as_tuple(body(i, v...));
      static_assert(std::tuple_size_v<decltype(next)> == sizeof...(Vars),
                    "staticflow: sf::fori_loop: the body must return one value per loop variable");
      return std::tuple_cat(std::tuple{i + C(1)}, next);
    };
    auto all = detail::as_tuple(detail::while_loop_in<Scope>(cond, step, std::int64_t{-1}, first, vars...));
    return detail::unwrap_single([&]<std::size_t... K>(std::index_sequence<K...>) {
      return std::tuple{std::get<K + 1>(all)...};
    }(std::index_sequence_for<Vars...>{}));
  }
}

}  // namespace staticflow
