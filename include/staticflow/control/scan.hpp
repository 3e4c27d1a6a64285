// staticflow/control/scan.hpp -- sf::scan and sf::map_fn over the leading axis (lax.scan,
// tf.map_fn): a loop over x[0], x[1], ... whose per-step results are stacked.
//
// Both are while loops with a counter, the carry, and a fixed-size tensor array of results that
// the loop writes in place; the result's leading extent is x's (static when x's is).
#pragma once

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/control/binding.hpp"
#include "staticflow/control/index.hpp"
#include "staticflow/control/structure.hpp"
#include "staticflow/control/tensor_array.hpp"
#include "staticflow/control/while_loop.hpp"

namespace staticflow {
namespace detail {
struct scan_scope_tag {};
struct map_scope_tag {};

/// A tensor array of `n` elements of spec Y for results stacked along a leading axis of extent
/// Lead (static or dyn).
template <class Y, std::size_t Lead, class N>
constexpr auto results_array(const N& n) {
  using S = typename prepend_dim<Lead, typename Y::shape_type>::type;
  using Z = graph::ta_zeros<typename Y::value_type, S, N>;
  return traced_tensor_array<Z>(Z(n), false);
}

template <class X>
using counter_var = graph::bound_variable<X, 0, std::int32_t, shape<>>;
}  // namespace detail

/// lax.scan: carry = init; for each x in xs (along the leading axis): (carry, y) = fn(carry, x);
/// returns std::tuple{final carry, ys} with ys the y's stacked. fn returns a std::tuple of the
/// new carry (same spec as init) and y.
template <class Fn, class Init, symbolic Xs>
constexpr auto scan(Fn&& fn, const Init& init, const Xs& xs) {
  static_assert(Xs::shape_type::rank >= 1, "staticflow: sf::scan: xs must have a leading axis to scan over");
  using Scope = std::tuple<detail::scan_scope_tag, std::remove_cvref_t<Fn>>;
  using carry_node = decltype(detail::to_node(init));
  using carry_var = graph::bound_variable<Scope, 1, typename carry_node::value_type, typename carry_node::shape_type>;
  using step_result = decltype(detail::as_tuple(fn(std::declval<const carry_var&>(),
                                                   std::declval<const Xs&>()[std::declval<detail::counter_var<Scope>>()])));
  static_assert(std::tuple_size<step_result>::value == 2,
                "staticflow: sf::scan: fn(carry, x) must return std::tuple{new_carry, y}");
  using y_spec = spec_of_node_t<decltype(detail::to_node(std::declval<std::tuple_element_t<1, step_result>>()))>;
  const auto n = dim<0>(xs);
  auto cond = [&](const auto& i, const auto&, const auto&) { return i < n; };
  auto step = [&](const auto& i, const auto& carry, const auto& ys) {
    auto [next, y] = detail::as_tuple(fn(carry, xs[i]));
    return std::tuple{i + 1, next, ys.write(i, y)};
  };
  auto r = detail::while_loop_in<Scope>(cond, step, std::int64_t{-1}, std::int32_t{0}, init,
                                        detail::results_array<y_spec, Xs::shape_type::dims[0]>(n));
  return std::tuple{staticflow::detail::get<1>(r), staticflow::detail::get<2>(r).stack()};
}

/// tf.map_fn: fn applied to each x in xs along the leading axis, the results stacked.
template <class Fn, symbolic Xs>
constexpr auto map_fn(Fn&& fn, const Xs& xs) {
  static_assert(Xs::shape_type::rank >= 1, "staticflow: sf::map_fn: xs must have a leading axis to map over");
  using Scope = std::tuple<detail::map_scope_tag, std::remove_cvref_t<Fn>>;
  using y_node = decltype(detail::to_node(fn(std::declval<const Xs&>()[std::declval<detail::counter_var<Scope>>()])));
  using y_spec = spec_of_node_t<y_node>;
  const auto n = dim<0>(xs);
  auto cond = [&](const auto& i, const auto&) { return i < n; };
  auto step = [&](const auto& i, const auto& ys) { return std::tuple{i + 1, ys.write(i, fn(xs[i]))}; };
  auto r = detail::while_loop_in<Scope>(cond, step, std::int64_t{-1}, std::int32_t{0},
                                        detail::results_array<y_spec, Xs::shape_type::dims[0]>(n));
  return staticflow::detail::get<1>(r).stack();
}

}  // namespace staticflow
