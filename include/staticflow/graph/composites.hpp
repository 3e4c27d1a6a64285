// staticflow/graph/composites.hpp -- functions built from other ops, as TensorFlow defines them:
// softmax, log_softmax, reduce_logsumexp, l2_normalize. The max is subtracted before exp, so
// large inputs do not overflow.
//
// softmax and log_softmax of a float32/float64 tensor are one materialized node each
// (`graph::softmax_node`): the CPU backend computes them row by row (backend/cpu/softmax.hpp),
// three short passes over a row that stays in L1 (max; exp, stored and summed; scale), so exp is
// computed once per element. As a graph of reductions and elementwise ops the same function is
// three passes over the whole tensor with exp computed twice (measured 0.50x the speed of a
// hand-written row loop, docs/benchmarks.md). `softmax_node::expanded()` is that graph, for a
// backend that has no kernel for the node. Integer inputs take the composite form.
#pragma once

#include <cstddef>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>

#include "staticflow/core/axes.hpp"
#include "staticflow/graph/child_refs.hpp"
#include "staticflow/graph/operators.hpp"
#include "staticflow/graph/reduce.hpp"
#include "staticflow/graph/shape_ops.hpp"

namespace staticflow {

namespace graph {
/// The two functions a softmax_node computes along its axis.
struct softmax_kind {
  static constexpr const char* name = "softmax";
};
struct log_softmax_kind {
  static constexpr const char* name = "log_softmax";
};

/// softmax / log_softmax of A along static axis K (negative counts from the end): materialized,
/// same dtype and shape as A.
template <class Kind, class A, int K>
struct softmax_node : node<softmax_node<Kind, A, K>> {
  static constexpr bool materialized = true;
  using kind = Kind;
  using value_type = typename A::value_type;
  using shape_type = typename A::shape_type;
  static_assert(floating_dtype<value_type>, "staticflow: internal: softmax_node needs a float input");
  static_assert(shape_type::rank >= 1 && staticflow::detail::axis_in_range(K, shape_type::rank),
                "staticflow: softmax / log_softmax: the axis is out of range for the input's rank");
  /// The axis, in [0, rank).
  static constexpr std::size_t axis = static_cast<std::size_t>(staticflow::detail::normalize_axis(K, shape_type::rank));
  A a;
  constexpr explicit softmax_node(A a_) : a(a_) {}
  constexpr child_refs<const A&> children() const { return {a}; }
  template <class C>
  constexpr auto with_children(const C& c) const { return softmax_node<Kind, C, K>(c); }
  static constexpr bool parameters_in_type = true;
  constexpr bool same_parameters(const softmax_node&) const { return true; }
  std::string name() const { return std::string(Kind::name) + "[axis=" + std::to_string(axis) + "]"; }
  extents<shape_type::rank> result_extents(const extents<shape_type::rank>& in) const { return in; }

  /// The same function as a graph of reductions and elementwise ops (TensorFlow's definition).
  constexpr auto expanded() const {
    const auto shifted = a - reduce_max(a, axes<K>{}, keepdims);
    if constexpr (std::is_same<Kind, softmax_kind>::value) {
      const auto e = exp(shifted);
      return e / reduce_sum(e, axes<K>{}, keepdims);
    } else {
      return shifted - log(reduce_sum(exp(shifted), axes<K>{}, keepdims));
    }
  }
};
}  // namespace graph

/// tf.nn.softmax along a static axis (the last by default).
template <symbolic A, int K = -1>
constexpr auto softmax(const A& x, axes<K> ax = {}) {
  if constexpr (floating_dtype<typename A::value_type>) {
    return graph::softmax_node<graph::softmax_kind, A, K>(x);
  } else {
    const auto e = exp(x - reduce_max(x, ax, keepdims));
    return e / reduce_sum(e, ax, keepdims);
  }
}

/// tf.nn.log_softmax along a static axis (the last by default).
template <symbolic A, int K = -1>
constexpr auto log_softmax(const A& x, axes<K> ax = {}) {
  if constexpr (floating_dtype<typename A::value_type>) {
    return graph::softmax_node<graph::log_softmax_kind, A, K>(x);
  } else {
    const auto shifted = x - reduce_max(x, ax, keepdims);
    return shifted - log(reduce_sum(exp(shifted), ax, keepdims));
  }
}

namespace detail {
/// The shift reduce_logsumexp subtracts before exp: the max where it is finite, else 0 (a slice of
/// -inf only, or one holding +inf or NaN), as tf.math.reduce_logsumexp does; no gradient flows
/// through it (it cancels out of the value).
template <class M>
constexpr auto logsumexp_shift(const M& m) {
  using T = typename M::value_type;
  const auto shift = where(abs(m) < std::numeric_limits<T>::infinity(), m, T(0));
  return graph::unary<op::stop_gradient, std::remove_cvref_t<decltype(shift)>>(shift);
}
/// log(s) + shift for s = sum(exp(x - shift)): -inf where s is 0 (every element -inf), and there
/// log reads 1 instead of 0, so the gradient of such a slice is 0 rather than 0 / 0 = NaN
/// (jax#6811).
template <class S, class Shift>
constexpr auto logsumexp_from(const S& s, const Shift& shift) {
  using T = typename S::value_type;
  const auto empty = s == T(0);
  return where(empty, -std::numeric_limits<T>::infinity(), log(where(empty, T(1), s))) + shift;
}
}  // namespace detail

/// tf.math.reduce_logsumexp over static axes (all of them by default): -inf for a slice of -inf
/// only, whose gradient is 0.
template <symbolic A>
constexpr auto reduce_logsumexp(const A& x) {
  return detail::logsumexp_from(reduce_sum(exp(x - detail::logsumexp_shift(reduce_max(x, keepdims)))),
                                detail::logsumexp_shift(reduce_max(x)));
}
template <symbolic A, int... K>
constexpr auto reduce_logsumexp(const A& x, axes<K...> ax) {
  return detail::logsumexp_from(reduce_sum(exp(x - detail::logsumexp_shift(reduce_max(x, ax, keepdims))), ax),
                                detail::logsumexp_shift(reduce_max(x, ax)));
}

/// tf.math.l2_normalize along static axes: x / sqrt(max(sum(x^2), epsilon)).
template <symbolic A, int... K>
constexpr auto l2_normalize(const A& x, axes<K...> ax, double epsilon = 1e-12) {
  return x / sqrt(maximum(reduce_sum(square(x), ax, keepdims), epsilon));
}

}  // namespace staticflow
