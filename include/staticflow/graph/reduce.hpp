// staticflow/graph/reduce.hpp -- reductions (reduce_sum, reduce_mean, ..., argmax): nodes that are
// not elementwise, so the planner computes each one once per call into a buffer of its own.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticflow/core/axes.hpp"
#include "staticflow/core/shape.hpp"
#include "staticflow/core/static_value.hpp"
#include "staticflow/graph/child_refs.hpp"
#include "staticflow/graph/elementwise.hpp"
#include "staticflow/graph/operators.hpp"
#include "staticflow/graph/scalar_ops.hpp"

namespace staticflow {
namespace op {

/// A reduction: its identity, how two partial results combine, and how the total is finished.
template <class Self, operands Req>
struct reduction_op {
  static constexpr operands requirement = Req;
  template <class T>
  using result = T;
  template <class T>
  STATICFLOW_HD static constexpr T finish(T total, std::size_t) { return total; }
};

struct reduce_sum : reduction_op<reduce_sum, operands::numeric> {
  static constexpr std::string_view name = "reduce_sum";
  template <class T> STATICFLOW_HD static constexpr T identity() { return T(0); }
  template <class T> STATICFLOW_HD static constexpr T combine(T a, T b) { return add::apply(a, b); }
};
struct reduce_prod : reduction_op<reduce_prod, operands::numeric> {
  static constexpr std::string_view name = "reduce_prod";
  template <class T> STATICFLOW_HD static constexpr T identity() { return T(1); }
  template <class T> STATICFLOW_HD static constexpr T combine(T a, T b) { return multiply::apply(a, b); }
};
/// reduce_max / reduce_min propagate NaN, like tf.maximum; an empty reduction gives -inf / +inf
/// (the lowest / highest integer).
struct reduce_max : reduction_op<reduce_max, operands::numeric> {
  static constexpr std::string_view name = "reduce_max";
  template <class T> STATICFLOW_HD static constexpr T identity() {
    if constexpr (floating_dtype<T>) return -std::numeric_limits<T>::infinity();
    else return std::numeric_limits<T>::lowest();
  }
  template <class T> STATICFLOW_HD static constexpr T combine(T a, T b) { return maximum::apply(a, b); }
};
struct reduce_min : reduction_op<reduce_min, operands::numeric> {
  static constexpr std::string_view name = "reduce_min";
  template <class T> STATICFLOW_HD static constexpr T identity() {
    if constexpr (floating_dtype<T>) return std::numeric_limits<T>::infinity();
    else return std::numeric_limits<T>::max();
  }
  template <class T> STATICFLOW_HD static constexpr T combine(T a, T b) { return minimum::apply(a, b); }
};
struct reduce_any : reduction_op<reduce_any, operands::boolean> {
  static constexpr std::string_view name = "reduce_any";
  template <class T> STATICFLOW_HD static constexpr T identity() { return false; }
  template <class T> STATICFLOW_HD static constexpr T combine(T a, T b) { return a || b; }
};
struct reduce_all : reduction_op<reduce_all, operands::boolean> {
  static constexpr std::string_view name = "reduce_all";
  template <class T> STATICFLOW_HD static constexpr T identity() { return true; }
  template <class T> STATICFLOW_HD static constexpr T combine(T a, T b) { return a && b; }
};
/// The sum divided by the count; integer means truncate (tf.reduce_mean on integers).
struct reduce_mean : reduction_op<reduce_mean, operands::numeric> {
  static constexpr std::string_view name = "reduce_mean";
  template <class T> STATICFLOW_HD static constexpr T identity() { return T(0); }
  template <class T> STATICFLOW_HD static constexpr T combine(T a, T b) { return add::apply(a, b); }
  template <class T> STATICFLOW_HD static constexpr T finish(T total, std::size_t count) {
    return divide::apply(total, static_cast<T>(count));
  }
};
/// argmax / argmin: the index (int64) of the first largest / smallest element along one axis.
struct argmax {
  static constexpr operands requirement = operands::numeric;
  static constexpr std::string_view name = "argmax";
  template <class T> STATICFLOW_HD static constexpr bool better(T candidate, T best) {
    return candidate > best || (candidate != candidate && best == best);
  }
};
struct argmin {
  static constexpr operands requirement = operands::numeric;
  static constexpr std::string_view name = "argmin";
  template <class T> STATICFLOW_HD static constexpr bool better(T candidate, T best) {
    return candidate < best || (candidate != candidate && best == best);
  }
};
}  // namespace op

namespace graph {
namespace detail {
template <int A, std::size_t R>
struct checked_axis {
  static constexpr bool in_range = staticflow::detail::axis_in_range(A, R);
  static_assert(in_range, "staticflow: axis out of range for the tensor's rank");
  static constexpr std::size_t value = in_range ? static_cast<std::size_t>(staticflow::detail::normalize_axis(A, R)) : 0;
};

/// Which of R axes a reduction covers, at compile time.
template <class Axes, std::size_t R>
struct reduced_axes;
template <std::size_t R>
struct reduced_axes<all_axes, R> {
  static constexpr std::array<bool, R> mask = [] {
    std::array<bool, R> m{};
    for (auto& b : m) b = true;
    return m;
  }();
};
template <int... A, std::size_t R>
struct reduced_axes<axes<A...>, R> {
  static constexpr std::array<bool, R> mask = [] {
    std::array<bool, R> m{};
    ([&] {  // an axis out of range is reported and marks nothing
      if constexpr (checked_axis<A, R>::in_range) m[checked_axis<A, R>::value] = true;
    }(), ...);
    return m;
  }();
};

template <class S, class Axes, bool Keep>
struct reduced_shape {
  static constexpr std::size_t R = S::rank;
  static constexpr auto mask = reduced_axes<Axes, R>::mask;
  static constexpr std::size_t kept = [] {
    std::size_t count = 0;
    for (bool b : mask) count += (Keep || !b);
    return count;
  }();
  static constexpr std::array<std::size_t, kept> dims = [] {
    std::array<std::size_t, kept> d{};
    std::size_t j = 0;
    for (std::size_t i = 0; i < R; ++i) {
      if (!mask[i]) d[j++] = S::dims[i];
      else if (Keep) d[j++] = 1;
    }
    return d;
  }();
  using type = decltype([]<std::size_t... I>(std::index_sequence<I...>) {
    return shape<dims[I]...>{};
  }(std::make_index_sequence<kept>{}));
};
/// A run-time axis: the rank is known, a dim only where every axis would give it the same extent.
template <class S, bool Keep>
struct reduced_shape<S, runtime_axis, Keep> {
  static_assert(S::rank > 0, "staticflow: a reduction along an axis needs a tensor of rank 1 or more");
  using type = typename staticflow::detail::runtime_axis_shape<
      Keep ? staticflow::detail::runtime_axis_change::set_one : staticflow::detail::runtime_axis_change::remove, S>::type;
};

/// The reduced-axis mask at run time (the static mask, or the run-time axis).
template <std::size_t R, class Axes>
std::array<bool, R> runtime_mask(const Axes& a) {
  if constexpr (std::is_same<Axes, runtime_axis>::value) {
    std::array<bool, R> m{};
    m[staticflow::detail::checked_axis(a.axis, R)] = true;
    return m;
  } else {
    return reduced_axes<Axes, R>::mask;
  }
}

/// A reduction's result extents: in's, without the masked axes (with Keep: 1 along them).
template <std::size_t Out, bool Keep, std::size_t In>
extents<Out> reduced_extents(const std::array<bool, In>& mask, const extents<In>& in) {
  extents<Out> out{};
  std::size_t j = 0;
  for (std::size_t i = 0; i < In; ++i) {
    if (!mask[i]) out[j++] = in[i];
    else if (Keep) out[j++] = 1;
  }
  return out;
}

template <std::size_t R, class Axes>
std::string axes_string(const Axes& a) {
  std::string s = "[axes=(";
  if constexpr (std::is_same<Axes, runtime_axis>::value) {
    s += std::to_string(a.axis) + ",";
  } else {
    std::size_t n = 0;
    for (std::size_t i = 0; i < R; ++i)
      if (runtime_mask<R>(a)[i]) s += (n++ ? "," : "") + std::to_string(i);
    if (n == 1) s += ",";
  }
  return s + ")";
}
}  // namespace detail

/// Op reduced over Axes of A; Keep keeps reduced axes with extent 1.
template <class Op, class A, class Axes, bool Keep>
struct reduce : node<reduce<Op, A, Axes, Keep>> {
  static constexpr bool materialized = true;
  using op_type = Op;
  using axes_type = Axes;
  static constexpr bool keep_dims = Keep;
  using compute_type = typename detail::checked_operands<Op, typename A::value_type>::type;
  using value_type = typename Op::template result<compute_type>;
  using shape_type = typename detail::reduced_shape<typename A::shape_type, Axes, Keep>::type;
  A a;
  Axes axes;
  constexpr reduce(A a_, Axes ax) : a(a_), axes(ax) {}

  constexpr child_refs<const A&> children() const { return {a}; }
  template <class C>
  constexpr auto with_children(const C& c) const { return reduce<Op, C, Axes, Keep>(c, axes); }
  static constexpr bool parameters_in_type = !std::is_same<Axes, runtime_axis>::value;
  constexpr bool same_parameters(const reduce& o) const {
    if constexpr (std::is_same<Axes, runtime_axis>::value) return axes.axis == o.axes.axis;
    else return true;
  }
  std::string name() const {
    std::string s = std::string(Op::name) + detail::axes_string<A::shape_type::rank>(axes);
    return s + (Keep ? " keepdims=True]" : "]");
  }
  /// The reduced-axis mask for this call.
  std::array<bool, A::shape_type::rank> mask() const { return detail::runtime_mask<A::shape_type::rank>(axes); }

  extents<shape_type::rank> result_extents(const extents<A::shape_type::rank>& in) const {
    return detail::reduced_extents<shape_type::rank, Keep>(mask(), in);
  }
};

/// argmax / argmin of A along one axis (int64 indices; the axis is removed).
template <class Op, class A, class Axis>
struct arg_reduce : node<arg_reduce<Op, A, Axis>> {
  static constexpr bool materialized = true;
  using op_type = Op;
  using compute_type = typename detail::checked_operands<Op, typename A::value_type>::type;
  using value_type = std::int64_t;
  using shape_type = typename detail::reduced_shape<typename A::shape_type, Axis, false>::type;
  static_assert([] {
    if constexpr (std::is_same<Axis, runtime_axis>::value) return true;
    else return Axis::count == 1;
  }(), "staticflow: argmax / argmin take exactly one axis");
  A a;
  Axis axes;
  constexpr arg_reduce(A a_, Axis ax) : a(a_), axes(ax) {}
  constexpr child_refs<const A&> children() const { return {a}; }
  template <class C>
  constexpr auto with_children(const C& c) const { return arg_reduce<Op, C, Axis>(c, axes); }
  static constexpr bool parameters_in_type = !std::is_same<Axis, runtime_axis>::value;
  constexpr bool same_parameters(const arg_reduce& o) const {
    if constexpr (std::is_same<Axis, runtime_axis>::value) return axes.axis == o.axes.axis;
    else return true;
  }
  std::string name() const {
    return std::string(Op::name) + detail::axes_string<A::shape_type::rank>(axes) + "]";
  }
  std::size_t axis(std::size_t rank) const {
    const auto m = detail::runtime_mask<A::shape_type::rank>(axes);
    for (std::size_t i = 0; i < rank; ++i)
      if (m[i]) return i;
    return 0;
  }
  extents<shape_type::rank> result_extents(const extents<A::shape_type::rank>& in) const {
    const std::size_t ax = axis(in.size());
    extents<shape_type::rank> out{};
    for (std::size_t i = 0, j = 0; i < in.size(); ++i)
      if (i != ax) out[j++] = in[i];
    return out;
  }
};
}  // namespace graph

namespace detail {
template <class Op, bool Keep, class A, class Axes>
constexpr auto make_reduce(const A& a, Axes axes) {
  return graph::reduce<Op, A, Axes, Keep>(a, axes);
}
template <class Op, class Axes, class A>
constexpr auto arg_reduce_of(const A& a, Axes axes) {
  return graph::arg_reduce<Op, A, Axes>(a, axes);
}
}  // namespace detail

namespace detail {
/// An integer static value given as an axis (`-1_c`): sf::axes<V>.
template <class V>
concept static_axis = static_value_type<V> && std::is_integral<typename V::value_type>::value && !std::is_same<typename V::value_type, bool>::value;
}  // namespace detail

// reduce_sum(x), reduce_sum(x, sf::axes<1>{}), reduce_sum(x, 1), each optionally followed by
// sf::keepdims. A plain int axis is a run-time value: the result's dims become sf::dyn; a static
// value (`1_c`, `-1_c`) is sf::axes<1> / sf::axes<-1>. x may be an
// sf::variable, read at that point of the traced function.
#define STATICFLOW_REDUCTION(NAME)                                                             \
  template <detail::tensor_operand A>                                                                        \
  constexpr auto NAME(const A& a) { return detail::make_reduce<op::NAME, false>(detail::as_node<void>(a), all_axes{}); } \
  template <detail::tensor_operand A>                                                                        \
  constexpr auto NAME(const A& a, keepdims_t) { return detail::make_reduce<op::NAME, true>(detail::as_node<void>(a), all_axes{}); } \
  template <detail::tensor_operand A, int... X>                                                              \
  constexpr auto NAME(const A& a, axes<X...> ax) { return detail::make_reduce<op::NAME, false>(detail::as_node<void>(a), ax); } \
  template <detail::tensor_operand A, int... X>                                                              \
  constexpr auto NAME(const A& a, axes<X...> ax, keepdims_t) {                                 \
    return detail::make_reduce<op::NAME, true>(detail::as_node<void>(a), ax);                                         \
  }                                                                                            \
  template <detail::tensor_operand A, detail::static_axis V>                                                 \
  constexpr auto NAME(const A& a, V) { return NAME(a, axes<static_cast<int>(V::value)>{}); }                 \
  template <detail::tensor_operand A, detail::static_axis V>                                                 \
  constexpr auto NAME(const A& a, V, keepdims_t k) { return NAME(a, axes<static_cast<int>(V::value)>{}, k); } \
  template <detail::tensor_operand A>                                                                        \
  constexpr auto NAME(const A& a, int axis) { return detail::make_reduce<op::NAME, false>(detail::as_node<void>(a), runtime_axis{axis}); } \
  template <detail::tensor_operand A>                                                                        \
  constexpr auto NAME(const A& a, int axis, keepdims_t) {                                      \
    return detail::make_reduce<op::NAME, true>(detail::as_node<void>(a), runtime_axis{axis});                         \
  }
STATICFLOW_REDUCTION(reduce_sum)
STATICFLOW_REDUCTION(reduce_prod)
STATICFLOW_REDUCTION(reduce_max)
STATICFLOW_REDUCTION(reduce_min)
STATICFLOW_REDUCTION(reduce_mean)
STATICFLOW_REDUCTION(reduce_any)
STATICFLOW_REDUCTION(reduce_all)
#undef STATICFLOW_REDUCTION

/// argmax(x, sf::axes<1>{}) or argmax(x, 1); without an axis, axis 0 (as tf.math.argmax).
template <detail::tensor_operand A, int X>
constexpr auto argmax(const A& a, axes<X>) { return arg_reduce_of<op::argmax, axes<X>>(detail::as_node<void>(a), {}); }
template <detail::tensor_operand A, detail::static_axis V>
constexpr auto argmax(const A& a, V) { return argmax(a, axes<static_cast<int>(V::value)>{}); }
template <detail::tensor_operand A, detail::static_axis V>
constexpr auto argmin(const A& a, V) { return argmin(a, axes<static_cast<int>(V::value)>{}); }
template <detail::tensor_operand A>
constexpr auto argmax(const A& a, int axis = 0) { return arg_reduce_of<op::argmax, runtime_axis>(detail::as_node<void>(a), {axis}); }
template <detail::tensor_operand A, int X>
constexpr auto argmin(const A& a, axes<X>) { return arg_reduce_of<op::argmin, axes<X>>(detail::as_node<void>(a), {}); }
template <detail::tensor_operand A>
constexpr auto argmin(const A& a, int axis = 0) { return arg_reduce_of<op::argmin, runtime_axis>(detail::as_node<void>(a), {axis}); }

}  // namespace staticflow
