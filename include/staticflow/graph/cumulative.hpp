// staticflow/graph/cumulative.hpp -- sf::cumsum and sf::cumprod as tf.math's: the running sum or
// product along one axis, optionally exclusive (each element leaves itself out) and reversed
// (running from the end). The result has the operand's shape, so the axis may be a compile-time
// `sf::axes<A>{}` or a plain run-time int.
//
// A materialized node computed by the backend (backend/cpu/cumulative.hpp: one pass per line,
// vectorized across the lines when the axis is not the last one).
#pragma once

#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>

#include "staticflow/core/axes.hpp"
#include "staticflow/core/dtype.hpp"
#include "staticflow/graph/child_refs.hpp"
#include "staticflow/graph/operators.hpp"

namespace staticflow {

/// `sf::exclusive`: each element of a cumsum / cumprod leaves itself out (the first is 0 / 1).
struct exclusive_t {};
inline constexpr exclusive_t exclusive{};
/// `sf::reversed`: a cumsum / cumprod runs from the end of the axis (TF's `reverse=True`; the
/// name `sf::reverse` stays free for tf.reverse).
struct reversed_t {};
inline constexpr reversed_t reversed{};

namespace graph {

struct cumulative_sum {
  static constexpr const char* name = "Cumsum";
};
struct cumulative_product {
  static constexpr const char* name = "Cumprod";
};

/// The running sum or product (Kind) of x along `axis` (normalized at run time).
template <class Kind, class X, bool Exclusive, bool Reverse>
struct cumulative : node<cumulative<Kind, X, Exclusive, Reverse>> {
  static constexpr bool materialized = true;
  static constexpr bool is_sum = std::is_same<Kind, cumulative_sum>::value;
  using value_type = typename X::value_type;
  using shape_type = typename X::shape_type;
  static constexpr std::size_t rank = shape_type::rank;
  X x;
  int axis;
  constexpr cumulative(X x_, int a) : x(x_), axis(a) {}
  constexpr child_refs<const X&> children() const { return {x}; }
  template <class A>
  constexpr auto with_children(const A& a) const { return cumulative<Kind, A, Exclusive, Reverse>(a, axis); }
  constexpr bool same_parameters(const cumulative& o) const { return axis == o.axis; }
  std::string name() const {
    return std::string(Kind::name) + "[axis=" + std::to_string(axis) + (Exclusive ? ", exclusive" : "") +
           (Reverse ? ", reverse" : "") + "]";
  }
  extents<rank> result_extents(const extents<rank>& ex) const {
    staticflow::detail::checked_axis(axis, rank);
    return ex;
  }
  /// The operand seen as [outer, n, inner] around the axis (what the kernels walk).
  struct line_layout {
    std::size_t outer = 1, n = 1, inner = 1;
    std::size_t size() const { return outer * n * inner; }
  };
  line_layout lines(const extents<rank>& e) const {
    const std::size_t ax = staticflow::detail::checked_axis(axis, rank);
    line_layout l;
    for (std::size_t i = 0; i < rank; ++i) (i < ax ? l.outer : i > ax ? l.inner : l.n) *= e[i];
    return l;
  }
};
}  // namespace graph

namespace detail {
/// The flags after the axis: sf::exclusive and sf::reversed, in any order, each at most once.
template <class... Options>
struct cumulative_options {
  static constexpr std::size_t exclusives = (std::size_t{std::is_same<Options, exclusive_t>::value} + ... + 0);
  static constexpr std::size_t reverses = (std::size_t{std::is_same<Options, reversed_t>::value} + ... + 0);
  static constexpr bool valid = exclusives <= 1 && reverses <= 1 && exclusives + reverses == sizeof...(Options);
  static_assert(valid, "staticflow: cumsum / cumprod take an axis, then at most one sf::exclusive and one sf::reversed");
};

template <class T>
struct cumulative_dtype_check {
  static constexpr bool ok = std::is_arithmetic<T>::value && !std::is_same<T, bool>::value;
  static_assert(ok, "staticflow: cumsum / cumprod need a numeric tensor (cast a bool one first)");
};

/// (a template of the axis and the rank, not of the node: a lambda traced and run eagerly
/// reports the mistake once)
template <int A, std::size_t Rank>
constexpr bool check_cumulative_axis() {
  static_assert(axis_in_range(A, Rank), "staticflow: cumsum / cumprod axis out of range");
  return axis_in_range(A, Rank);
}

template <class Kind, class X, class Axis, class... Options>
constexpr auto make_cumulative(const X& x, Axis axis) {
  using T = typename X::value_type;
  constexpr std::size_t rank = X::shape_type::rank;
  if constexpr (!cumulative_options<Options...>::valid || !cumulative_dtype_check<T>::ok) {
    return x;
  } else {
    constexpr bool is_exclusive = cumulative_options<Options...>::exclusives == 1;
    constexpr bool is_reversed = cumulative_options<Options...>::reverses == 1;
    if constexpr (std::is_same<Axis, int>::value) {
      return graph::cumulative<Kind, X, is_exclusive, is_reversed>(x, axis);
    } else {
      if constexpr (!check_cumulative_axis<Axis::values[0], rank>()) return x;
      else return graph::cumulative<Kind, X, is_exclusive, is_reversed>(x, normalize_axis(Axis::values[0], rank));
    }
  }
}
}  // namespace detail

/// tf.math.cumsum(x, axis, exclusive, reverse): `sf::cumsum(x)` (axis 0), `sf::cumsum(x,
/// sf::axes<-1>{}, sf::reversed)`, `sf::cumsum(x, axis, sf::exclusive)` with a run-time int axis.
template <detail::tensor_operand X, class... Options>
constexpr auto cumsum(const X& x, Options... options) {
  return cumsum(x, axes<0>{}, options...);
}
template <detail::tensor_operand X, int A, class... Options>
constexpr auto cumsum(const X& x, axes<A> axis, Options...) {
  const auto xn = detail::as_node<void>(x);
  return detail::make_cumulative<graph::cumulative_sum, std::remove_cvref_t<decltype(xn)>, axes<A>, Options...>(xn, axis);
}
template <detail::tensor_operand X, class... Options>
constexpr auto cumsum(const X& x, int axis, Options...) {
  const auto xn = detail::as_node<void>(x);
  return detail::make_cumulative<graph::cumulative_sum, std::remove_cvref_t<decltype(xn)>, int, Options...>(xn, axis);
}
/// tf.math.cumprod(x, axis, exclusive, reverse), spelled as cumsum.
template <detail::tensor_operand X, class... Options>
constexpr auto cumprod(const X& x, Options... options) {
  return cumprod(x, axes<0>{}, options...);
}
template <detail::tensor_operand X, int A, class... Options>
constexpr auto cumprod(const X& x, axes<A> axis, Options...) {
  const auto xn = detail::as_node<void>(x);
  return detail::make_cumulative<graph::cumulative_product, std::remove_cvref_t<decltype(xn)>, axes<A>, Options...>(xn, axis);
}
template <detail::tensor_operand X, class... Options>
constexpr auto cumprod(const X& x, int axis, Options...) {
  const auto xn = detail::as_node<void>(x);
  return detail::make_cumulative<graph::cumulative_product, std::remove_cvref_t<decltype(xn)>, int, Options...>(xn, axis);
}

}  // namespace staticflow
