// staticflow/graph/activations.hpp -- the activation functions of tf.nn / tf.keras.activations /
// jax.nn that are compositions of elementwise ops: softsign, elu, selu, gelu, leaky_relu, relu6,
// silu (swish), hard_sigmoid. (relu, sigmoid, tanh and softplus are single ops.)
//
// Each is one fused elementwise expression; its gradient is the composition's, with these
// conventions at the kinks (TensorFlow's where it defines one):
//  * elu / selu: slope 1 above 0 and alpha * exp(x) at and below it; the exp of the branch not
//    taken never sees a large x (the double-`where` idiom), so a large input gives no NaN gradient;
//  * leaky_relu: slope alpha at 0 (TF's LeakyReluGrad);
//  * relu6: slope 0 at 0 and 1 at 6 (TF's Relu6Grad gives 0 at 6); hard_sigmoid likewise at -3 / 3.
#pragma once

#include <type_traits>

#include "staticflow/graph/math.hpp"
#include "staticflow/graph/operators.hpp"

namespace staticflow {

/// Picks gelu's tanh approximation (TF's `approximate=True`; JAX's default).
struct tanh_approximation_t {
  explicit tanh_approximation_t() = default;
};
inline constexpr tanh_approximation_t tanh_approximation{};

namespace detail {
template <class A>
using activation_dtype = typename decltype(as_node<void>(std::declval<const A&>()))::value_type;

/// A template of the dtype alone, so that a lambda traced and run eagerly (two operand types of
/// one dtype) reports the mistake once; a caller returns early when it fails, so that the ops
/// the activation is built of add no errors of their own.
template <class T>
constexpr bool check_float_activation_dtype() {
  static_assert(floating_dtype<T>, "staticflow: this activation needs a float tensor (use sf::cast<float>(x) for integers)");
  return floating_dtype<T>;
}
template <class A>
constexpr bool check_float_activation() {
  return check_float_activation_dtype<activation_dtype<A>>();
}

/// alpha * expm1(x) where x <= 0, x elsewhere; expm1 reads 0 where x > 0.
template <class A, class Alpha>
constexpr auto elu_core(const A& x, Alpha alpha) {
  using T = activation_dtype<A>;
  const auto positive = x > T(0);
  return where(positive, x, expm1(where(positive, T(0), x)) * static_cast<T>(alpha));
}
}  // namespace detail

/// tf.nn.softsign: x / (1 + |x|).
template <detail::tensor_operand A>
constexpr auto softsign(const A& x) {
  if constexpr (!detail::check_float_activation<A>()) {
    return detail::as_node<void>(x);  // (reported: nothing more)
  } else {
    using T = detail::activation_dtype<A>;
    return x / (abs(x) + T(1));
  }
}

/// tf.nn.elu (alpha = 1) and Keras's elu(x, alpha).
template <detail::tensor_operand A>
constexpr auto elu(const A& x, double alpha = 1.0) {
  if constexpr (!detail::check_float_activation<A>()) {
    return detail::as_node<void>(x);  // (reported: nothing more)
  } else {
    return detail::elu_core(x, alpha);
  }
}

/// tf.nn.selu: scale * elu(x, alpha) with the self-normalizing constants.
template <detail::tensor_operand A>
constexpr auto selu(const A& x) {
  if constexpr (!detail::check_float_activation<A>()) {
    return detail::as_node<void>(x);  // (reported: nothing more)
  } else {
    using T = detail::activation_dtype<A>;
    return detail::elu_core(x, 1.6732632423543772848170429916717) * T(1.0507009873554804934193349852946);
  }
}

/// tf.nn.gelu: x * Phi(x) = 0.5 x (1 + erf(x / sqrt(2))), exact by default as in TensorFlow.
template <detail::tensor_operand A>
constexpr auto gelu(const A& x) {
  if constexpr (!detail::check_float_activation<A>()) {
    return detail::as_node<void>(x);  // (reported: nothing more)
  } else {
    using T = detail::activation_dtype<A>;
    return x * (erf(x * T(0.70710678118654752440)) + T(1)) * T(0.5);
  }
}
/// gelu(x, sf::tanh_approximation): 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).
template <detail::tensor_operand A>
constexpr auto gelu(const A& x, tanh_approximation_t) {
  if constexpr (!detail::check_float_activation<A>()) {
    return detail::as_node<void>(x);  // (reported: nothing more)
  } else {
    using T = detail::activation_dtype<A>;
    return x * (tanh((x + x * x * x * T(0.044715)) * T(0.79788456080286535588)) + T(1)) * T(0.5);
  }
}

/// tf.nn.leaky_relu: x where x > 0, alpha * x elsewhere (alpha 0.2 by default, as TF's).
template <detail::tensor_operand A>
constexpr auto leaky_relu(const A& x, double alpha = 0.2) {
  if constexpr (!detail::check_float_activation<A>()) {
    return detail::as_node<void>(x);  // (reported: nothing more)
  } else {
    using T = detail::activation_dtype<A>;
    return where(x > T(0), x, x * static_cast<T>(alpha));
  }
}

/// tf.nn.relu6: min(max(x, 0), 6).
template <detail::tensor_operand A>
constexpr auto relu6(const A& x) {
  using T = detail::activation_dtype<A>;
  return minimum(relu(x), T(6));
}

/// tf.nn.silu (tf.nn.swish): x * sigmoid(x).
template <detail::tensor_operand A>
constexpr auto silu(const A& x) {
  if constexpr (!detail::check_float_activation<A>()) {
    return detail::as_node<void>(x);  // (reported: nothing more)
  } else {
    return x * sigmoid(x);
  }
}
template <detail::tensor_operand A>
constexpr auto swish(const A& x) {
  return silu(x);
}

/// hard_sigmoid as Keras 3 and jax.nn define it: relu6(x + 3) / 6.
template <detail::tensor_operand A>
constexpr auto hard_sigmoid(const A& x) {
  if constexpr (!detail::check_float_activation<A>()) {
    return detail::as_node<void>(x);  // (reported: nothing more)
  } else {
    using T = detail::activation_dtype<A>;
    return relu6(x + T(3)) / T(6);
  }
}

}  // namespace staticflow
