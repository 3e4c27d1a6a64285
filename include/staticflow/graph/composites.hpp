// staticflow/graph/composites.hpp -- functions built from other ops, as TensorFlow defines them:
// softmax, log_softmax, reduce_logsumexp, l2_normalize. The max is subtracted before exp, so
// large inputs do not overflow.
#pragma once

#include "staticflow/graph/operators.hpp"
#include "staticflow/graph/reduce.hpp"
#include "staticflow/graph/shape_ops.hpp"

namespace staticflow {

/// tf.nn.softmax along a static axis (the last by default). exp is fused twice (into the sum and
/// into the output loop) rather than stored: measured, storing it costs more memory traffic
/// than the second exp (docs/benchmarks.md).
template <symbolic A, int K = -1>
constexpr auto softmax(const A& x, axes<K> ax = {}) {
  const auto e = exp(x - reduce_max(x, ax, keepdims));
  return e / reduce_sum(e, ax, keepdims);
}

/// tf.nn.log_softmax along a static axis (the last by default).
template <symbolic A, int K = -1>
constexpr auto log_softmax(const A& x, axes<K> ax = {}) {
  const auto shifted = x - reduce_max(x, ax, keepdims);
  return shifted - log(reduce_sum(exp(shifted), ax, keepdims));
}

/// tf.math.reduce_logsumexp over static axes (all of them by default).
template <symbolic A>
constexpr auto reduce_logsumexp(const A& x) {
  const auto m = reduce_max(x, keepdims);
  return log(reduce_sum(exp(x - m))) + reduce_max(x);
}
template <symbolic A, int... K>
constexpr auto reduce_logsumexp(const A& x, axes<K...> ax) {
  const auto m = reduce_max(x, ax, keepdims);
  return log(reduce_sum(exp(x - m), ax)) + reduce_max(x, ax);
}

/// tf.math.l2_normalize along static axes: x / sqrt(max(sum(x^2), epsilon)).
template <symbolic A, int... K>
constexpr auto l2_normalize(const A& x, axes<K...> ax, double epsilon = 1e-12) {
  return x / sqrt(maximum(reduce_sum(square(x), ax, keepdims), epsilon));
}

}  // namespace staticflow
