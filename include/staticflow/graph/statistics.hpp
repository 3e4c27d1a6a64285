// staticflow/graph/statistics.hpp -- moments, norms and the normalization layers' ops, as fused
// composites of reductions and elementwise ops (so each is differentiable through their rules and
// runs on every backend): tf.math.reduce_variance / reduce_std / reduce_euclidean_norm, tf.norm,
// tf.nn.moments, tf.nn.batch_normalization and Keras' LayerNormalization.
//
// The formulas are TF's, op for op, so the values are TF's up to the order of a reduction's
// additions: variance = mean(square(x - mean(x))), moments' variance reads a stop_gradient of
// the mean (its gradient through the mean is zero anyway), and normalization is
// `x * inv + (offset - mean * inv)` with `inv = rsqrt(variance + epsilon) * scale`.
// Axes are static (`sf::axes<...>`, negative from the end; all of them when none are given);
// `sf::keepdims` keeps them with extent 1. Inputs are float or double (TF's variance, std,
// moments and normalizations require floats; its euclidean norm also takes integers, cast them).
#pragma once

#include <tuple>
#include <type_traits>

#include "staticflow/core/axes.hpp"
#include "staticflow/graph/math.hpp"
#include "staticflow/graph/operators.hpp"
#include "staticflow/graph/reduce.hpp"

namespace staticflow {
namespace detail {
// (a template of the dtype, not of the node: a lambda traced and run eagerly reports once)
template <class T>
constexpr bool check_statistics_dtype() {
  static_assert(std::is_floating_point<T>::value,
                "staticflow: moments / variance / norms / normalization take a float or double tensor (cast integers "
                "first, as TF requires)");
  return std::is_floating_point<T>::value;
}
/// layer_normalization's axes (a template of the rank and the axes, as above).
template <int Rank, int... K>
constexpr bool check_layer_normalization_axes() {
  constexpr int count = static_cast<int>(sizeof...(K));
  constexpr bool last = (((K < 0 ? K + Rank : K) >= Rank - count) && ...);
  static_assert(last, "staticflow: layer_normalization: the normalized axes must be the last ones (sf::axes<-1>{}, "
                      "sf::axes<-2, -1>{}, ...), so that gamma and beta broadcast against them");
  return last;
}
template <class A>
constexpr auto floating_operand(const A& x) {
  const auto n = as_node<void>(x);
  check_statistics_dtype<typename decltype(n)::value_type>();
  return n;
}
/// The reduction arguments with keepdims appended: (axes<K...>) or () -> (..., keepdims).
template <class A, class... Axes>
constexpr auto mean_kept(const A& x, Axes... ax) {
  return reduce_mean(x, ax..., keepdims);
}
/// What may follow the tensor in a reduction here: static axes and keepdims (not a plain int,
/// which `sf::norm(x, 1)` would read as an axis where a TF user means ord=1).
template <class R>
struct is_reduction_option : std::is_same<R, keepdims_t> {};
template <int... K>
struct is_reduction_option<axes<K...>> : std::true_type {};
template <class... R>
concept reduction_options = (is_reduction_option<R>::value && ...);

template <class X>
constexpr auto no_gradient(const X& x) {
  return graph::unary<op::stop_gradient, X>(x);
}
}  // namespace detail

/// tf.math.reduce_variance(x, axis, keepdims): the population variance, mean(square(x - mean)).
template <detail::tensor_operand A>
constexpr auto reduce_variance(const A& x) {
  const auto n = detail::floating_operand(x);
  return reduce_mean(square(n - detail::mean_kept(n)));
}
template <detail::tensor_operand A>
constexpr auto reduce_variance(const A& x, keepdims_t) {
  const auto n = detail::floating_operand(x);
  return reduce_mean(square(n - detail::mean_kept(n)), keepdims);
}
template <detail::tensor_operand A, int... K>
constexpr auto reduce_variance(const A& x, axes<K...> ax) {
  const auto n = detail::floating_operand(x);
  return reduce_mean(square(n - detail::mean_kept(n, ax)), ax);
}
template <detail::tensor_operand A, int... K>
constexpr auto reduce_variance(const A& x, axes<K...> ax, keepdims_t) {
  const auto n = detail::floating_operand(x);
  return reduce_mean(square(n - detail::mean_kept(n, ax)), ax, keepdims);
}

/// tf.math.reduce_std(x, axis, keepdims): sqrt(reduce_variance(...)) (its gradient is inf / NaN
/// where the variance is 0, as TF's).
template <detail::tensor_operand A, class... R>
  requires detail::reduction_options<R...>
constexpr auto reduce_std(const A& x, R... r) {
  return sqrt(reduce_variance(x, r...));
}

/// tf.math.reduce_euclidean_norm(x, axis, keepdims): sqrt(sum(square(x))).
template <detail::tensor_operand A, class... R>
  requires detail::reduction_options<R...>
constexpr auto reduce_euclidean_norm(const A& x, R... r) {
  return sqrt(reduce_sum(square(detail::floating_operand(x)), r...));
}

/// tf.norm's orders: euclidean (2 for vectors, Frobenius for matrices), 1 and infinity.
enum class norm_order { euclidean, one, infinity };

namespace detail {
template <class... R>
struct norm_axes {
  static constexpr std::size_t count = 0;
};
template <int... K, class... R>
struct norm_axes<axes<K...>, R...> {
  static constexpr std::size_t count = sizeof...(K);
};

template <norm_order Ord, class M, int K0, int K1, class... Keep>
constexpr auto matrix_norm(const M& magnitude, axes<K0, K1>, Keep...) {
  constexpr int rank = static_cast<int>(M::shape_type::rank);
  constexpr int a0 = K0 < 0 ? K0 + rank : K0, a1 = K1 < 0 ? K1 + rank : K1;
  constexpr int first = Ord == norm_order::one ? a0 : a1, second = Ord == norm_order::one ? a1 : a0;
  // the summed axis kept, so the other keeps its position; then both reduced (or kept)
  const auto sums = reduce_sum(magnitude, axes<first>{}, keepdims);
  if constexpr (sizeof...(Keep) == 1) return reduce_max(sums, axes<second>{}, keepdims);
  else return reduce_max(sums, axes<a0, a1>{});
}

/// |x| reduced as a vector norm (sum for one, max for infinity) over no axis list or one axis,
/// or as a matrix norm over two axes (TF: ord 1 sums over axis[0] then takes the max over
/// axis[1]; infinity the other way round).
template <norm_order Ord, class M, class... R>
constexpr auto matrix_or_vector_norm(const M& magnitude, R... r) {
  constexpr std::size_t count = norm_axes<R...>::count;
  static_assert(count <= 2, "staticflow: norm: one axis (a vector norm) or two (a matrix norm), or none (all elements)");
  if constexpr (count < 2) {
    if constexpr (Ord == norm_order::one) return reduce_sum(magnitude, r...);
    else return reduce_max(magnitude, r...);
  } else {
    return matrix_norm<Ord>(magnitude, r...);
  }
}
}  // namespace detail

/// tf.norm(x, ord, axis, keepdims): a vector norm over all elements or over one axis, or a
/// matrix norm over two axes (Ord one: the largest column sum of |x|, infinity: the largest row
/// sum, euclidean: Frobenius); TF's ord=2 matrix norm (the largest singular value) is not here.
template <norm_order Ord = norm_order::euclidean, detail::tensor_operand A, class... R>
  requires detail::reduction_options<R...>
constexpr auto norm(const A& x, R... r) {
  const auto n = detail::floating_operand(x);
  if constexpr (Ord == norm_order::euclidean) {
    return sqrt(reduce_sum(square(n), r...));
  } else {
    return detail::matrix_or_vector_norm<Ord>(abs(n), r...);
  }
}

/// tf.nn.moments(x, axes, keepdims): (mean, variance) over the axes; the variance reads the mean
/// through a stop_gradient, as TF's.
template <detail::tensor_operand A, int... K>
constexpr auto moments(const A& x, axes<K...> ax) {
  const auto n = detail::floating_operand(x);
  const auto mean = reduce_mean(n, ax, keepdims);
  return std::tuple{reduce_mean(n, ax), reduce_mean(squared_difference(n, detail::no_gradient(mean)), ax)};
}
template <detail::tensor_operand A, int... K>
constexpr auto moments(const A& x, axes<K...> ax, keepdims_t) {
  const auto n = detail::floating_operand(x);
  const auto mean = reduce_mean(n, ax, keepdims);
  return std::tuple{mean, reduce_mean(squared_difference(n, detail::no_gradient(mean)), ax, keepdims)};
}

/// tf.nn.batch_normalization(x, mean, variance, offset, scale, variance_epsilon): TF's formula,
/// `x * inv + (offset - mean * inv)` with `inv = rsqrt(variance + epsilon) * scale`; mean,
/// variance, offset and scale broadcast against x. Without offset / scale: the overloads below.
template <detail::tensor_operand X, class M, class V, class O, class S>
constexpr auto batch_normalization(const X& x, const M& mean, const V& variance, const O& offset, const S& scale,
                                   double variance_epsilon) {
  const auto n = detail::floating_operand(x);
  using T = typename decltype(n)::value_type;
  const auto inv = rsqrt(variance + static_cast<T>(variance_epsilon)) * scale;
  return n * inv + (offset - mean * inv);
}
template <detail::tensor_operand X, class M, class V>
constexpr auto batch_normalization(const X& x, const M& mean, const V& variance, double variance_epsilon) {
  const auto n = detail::floating_operand(x);
  using T = typename decltype(n)::value_type;
  const auto inv = rsqrt(variance + static_cast<T>(variance_epsilon));
  return n * inv + -(mean * inv);
}

/// Keras' LayerNormalization(axis, epsilon, center, scale) as a function: moments over the axes
/// (the last by default), then batch_normalization with gamma (scale) and beta (offset), which
/// broadcast against x (shape of the normalized axes). epsilon defaults to Keras' 1e-3.
template <detail::tensor_operand X, class G, class B, int... K>
constexpr auto layer_normalization(const X& x, const G& gamma, const B& beta, axes<K...> ax, double epsilon = 1e-3) {
  constexpr int rank = static_cast<int>(decltype(detail::as_node<void>(x))::shape_type::rank);
  // gamma and beta broadcast from the right: the normalized axes must be the last ones (Keras
  // reshapes them for other axes; here that is a compile error rather than a silent misfit)
  detail::check_layer_normalization_axes<rank, K...>();
  const auto [mean, variance] = moments(x, ax, keepdims);
  return batch_normalization(x, mean, variance, beta, gamma, epsilon);
}
template <detail::tensor_operand X, class G, class B>
constexpr auto layer_normalization(const X& x, const G& gamma, const B& beta, double epsilon = 1e-3) {
  return layer_normalization(x, gamma, beta, axes<-1>{}, epsilon);
}

}  // namespace staticflow
