// staticflow/graph/slicing.hpp -- TF's strided slices, `x[1:-1, ::2]` in Python:
// `sf::strided_slice(x, sf::axes<0, 1>{}, sf::span(1, -1), sf::span(sf::none, sf::none, 2))`, or
// `x(sf::span(1, -1), sf::span(sf::none, sf::none, 2))` over the leading axes. Negative positions
// count from the end and omitted ones cover the axis in the step's direction (negative steps
// reverse), resolved against the extent when the function runs: a function traced on a length-8
// input slices a length-16 one correctly. An axis_map op (graph/data_movement.hpp): the same
// kernels, and the gradient (TF's StridedSliceGrad) puts the adjoint back where it was read.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>

#include "staticflow/core/span.hpp"
#include "staticflow/graph/data_movement.hpp"

namespace staticflow {
namespace graph {
namespace detail {
/// The static extent of `S` over an axis of static extent n (dyn where either is run-time).
template <class S>
constexpr std::size_t static_slice_extent(std::size_t n) {
  if constexpr (staticflow::detail::is_span<S>::value && requires { staticflow::detail::is_span<S>::is_static; }) {
    return n == dyn ? dyn : S{}.resolve(n).length;
  } else {
    return dyn;
  }
}
}  // namespace detail

/// The slices `spans` of axes Axes... (E...: each sliced axis's static extent, or sf::dyn).
template <std::size_t R, class E, int... Axes>
struct strided_slice_kind;
template <std::size_t R, std::size_t... E, int... Axes>
struct strided_slice_kind<R, std::index_sequence<E...>, Axes...> {
  static constexpr std::array<std::size_t, sizeof...(Axes)> axis = detail::normalized_axes<R>(std::array<int, sizeof...(Axes)>{Axes...});
  struct dims {
    static constexpr std::array<std::size_t, sizeof...(Axes)> sliced{E...};
    static constexpr std::size_t dim(std::size_t i, std::size_t n) {
      for (std::size_t k = 0; k < axis.size(); ++k)
        if (axis[k] == i) return sliced[k];
      return n;
    }
  };
  template <class S>
  using result_shape = typename detail::mapped_shape<S, dims>::type;
  std::array<span, sizeof...(Axes)> spans{};
  bool operator==(const strided_slice_kind&) const = default;
  std::string name() const {
    std::string s = "StridedSlice[axis=" + detail::list_string(axis) + " slices=(";
    for (std::size_t k = 0; k < spans.size(); ++k) s += (k ? ", " : "") + spans[k].text();
    return s + ")]";
  }
  extents<R> extents_of(const extents<R>& in) const {
    extents<R> out = in;
    for (std::size_t k = 0; k < axis.size(); ++k) out[axis[k]] = spans[k].resolve(in[axis[k]]).length;
    return out;
  }
  std::array<axis_rule, R> rules(const extents<R>& in, const extents<R>& out) const {
    auto r = detail::identity_rules(in);
    for (std::size_t k = 0; k < axis.size(); ++k) {
      const resolved_span s = spans[k].resolve(in[axis[k]]);
      r[axis[k]] = {axis_rule::form::strided, s.start, s.step, in[axis[k]], out[axis[k]]};
    }
    return r;
  }
};
}  // namespace graph

namespace detail {
template <class X, class Spans, int... A>
struct strided_slice_check {
  static constexpr std::size_t rank = X::shape_type::rank;
  static constexpr bool in_range = (axis_in_range(A, rank) && ...);
  static_assert(in_range, "staticflow: strided_slice: an axis is out of range for the tensor's rank");
  static constexpr bool distinct = axes_are_distinct<rank, A...>();
  static_assert(!in_range || distinct, "staticflow: strided_slice: an axis is sliced twice");
  static constexpr bool ok = in_range && distinct;
};
}  // namespace detail

/// tf.strided_slice as Python writes it: one sf::span (start:stop:step) per axis in sf::axes<...>.
template <detail::tensor_operand X, int... A, class... S>
  requires(sizeof...(A) == sizeof...(S) && sizeof...(A) >= 1 && (detail::is_span_v<S> && ...))
constexpr auto strided_slice(const X& x, axes<A...>, const S&... spans) {
  const auto xn = detail::data_movement_operand(x);
  using XN = std::remove_cvref_t<decltype(xn)>;
  using Sh = typename XN::shape_type;
  if constexpr (!detail::strided_slice_check<spec_of_node_t<XN>, std::tuple<S...>, A...>::ok) {
    return xn;
  } else {
    using extents_t = std::index_sequence<graph::detail::static_slice_extent<std::remove_cvref_t<S>>(
        Sh::dims[static_cast<std::size_t>(detail::normalize_axis(A, Sh::rank))])...>;
    using kind = graph::strided_slice_kind<Sh::rank, extents_t, A...>;
    return graph::axis_map<kind, XN>(xn, kind{{span(spans)...}});
  }
}

/// sf::slice with spans: `sf::slice(x, sf::axes<1>{}, sf::span(1, -1))` (strided_slice).
template <detail::tensor_operand X, int... A, class... S>
  requires(sizeof...(A) == sizeof...(S) && sizeof...(A) >= 1 && (detail::is_span_v<S> && ...))
constexpr auto slice(const X& x, axes<A...> a, const S&... spans) {
  return strided_slice(x, a, spans...);
}

namespace graph {
/// What `x(spans...)` builds (found by node::operator() through argument-dependent lookup): the
/// spans slice the leading axes, the others are whole.
template <class X, class... S>
constexpr auto slice_tensor(const X& x, const S&... spans) {
  static_assert(sizeof...(S) <= X::shape_type::rank, "staticflow: x(spans...): more spans than the tensor has axes");
  if constexpr (sizeof...(S) > X::shape_type::rank) {
    return x;
  } else {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return strided_slice(x, axes<static_cast<int>(I)...>{}, spans...);
    }(std::index_sequence_for<S...>{});
  }
}
}  // namespace graph

}  // namespace staticflow
