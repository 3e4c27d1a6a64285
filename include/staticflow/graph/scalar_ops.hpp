// staticflow/graph/scalar_ops.hpp -- the elementwise operations and their scalar semantics.
//
// Each op is a tag type with a TensorFlow-style `name`, an operand requirement, the result dtype
// for a compute dtype T, and `apply`, the scalar reference that every backend must reproduce.
// Integer arithmetic wraps (two's complement) instead of being undefined; integer division and
// remainder follow XLA: x / 0 == -1, x % 0 == x, INT_MIN / -1 == INT_MIN, INT_MIN % -1 == 0.
#pragma once

#include <cmath>
#include <limits>
#include <string_view>
#include <type_traits>

#include "staticflow/core/config.hpp"
#include "staticflow/core/dtype.hpp"

namespace staticflow::op {

/// What an op asks of its operands' dtype.
enum class operands { any, numeric, floating, boolean, integer, text };

/// Whether Op applies to string tensors (core/string.hpp): it says `takes_strings`.
template <class Op>
concept takes_strings = requires { requires Op::takes_strings; };

/// Whether binary op Op takes operands of two dtypes as they are (a string and an integer:
/// sf::strings::substr), instead of both converted to their promoted dtype.
template <class Op>
concept mixed_operands = requires { requires Op::mixed_operands; };

namespace detail {
template <class T>
STATICFLOW_HD constexpr T wrap_add(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
}
template <class T>
STATICFLOW_HD constexpr T wrap_sub(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
}
template <class T>
STATICFLOW_HD constexpr T wrap_mul(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
}
template <class T>
STATICFLOW_HD constexpr bool is_overflowing_division(T a, T b) {
  return a == std::numeric_limits<T>::min() && b == T(-1);
}

/// Whether b is a positive power of two, and which: a literal divisor's value is a run-time
/// member (a new constant compiles no new code), so `m / 2` cannot become a shift at compile
/// time; this test on a loop-invariant divisor is hoisted out of loops by the compiler, and the
/// division becomes the shift a hand-written `m / 2` compiles to (measured: Collatz loop 2.9x
/// faster). Results are exactly those of truncating division.
template <class T>
STATICFLOW_HD constexpr int power_of_two_exponent(T b) {
  if (b <= T(0) || (b & (b - T(1))) != T(0)) return -1;
#if defined(__CUDA_ARCH__)
  return __ffsll(static_cast<long long>(b)) - 1;
#elif defined(__GNUC__) || defined(__clang__)
  return __builtin_ctzll(static_cast<unsigned long long>(b));
#else
  int k = 0;
  while ((T(1) << k) != b) ++k;
  return k;
#endif
}
template <class T>
STATICFLOW_HD constexpr T truncating_shift_divide(T a, int k) {
  // round toward zero: add b - 1 to a negative dividend before the arithmetic shift
  const T bias = static_cast<T>((a >> (sizeof(T) * 8 - 1)) & ((T(1) << k) - T(1)));
  return static_cast<T>((a + bias) >> k);
}
}  // namespace detail

template <class Self, operands Req>
struct elementwise_op {
  static constexpr operands requirement = Req;
  template <class T>
  using result = T;
};

template <class Self, operands Req = operands::any>
struct comparison_op {
  static constexpr operands requirement = Req;
  template <class T>
  using result = bool;
};

// ---- unary ----
struct negate : elementwise_op<negate, operands::numeric> {
  static constexpr std::string_view name = "neg";
  template <class T> STATICFLOW_HD static constexpr T apply(T a) {
    if constexpr (integer_dtype<T>) return detail::wrap_sub(T(0), a);
    else return -a;
  }
};
struct abs : elementwise_op<abs, operands::numeric> {
  static constexpr std::string_view name = "abs";
  template <class T> STATICFLOW_HD static constexpr T apply(T a) {
    if constexpr (integer_dtype<T>) return a < 0 ? detail::wrap_sub(T(0), a) : a;
    else return std::fabs(a);
  }
};
struct square : elementwise_op<square, operands::numeric> {
  static constexpr std::string_view name = "square";
  template <class T> STATICFLOW_HD static constexpr T apply(T a) {
    if constexpr (integer_dtype<T>) return detail::wrap_mul(a, a);
    else return a * a;
  }
};
struct sqrt : elementwise_op<sqrt, operands::floating> {
  static constexpr std::string_view name = "sqrt";
  template <class T> STATICFLOW_HD static T apply(T a) { return std::sqrt(a); }
};
struct exp : elementwise_op<exp, operands::floating> {
  static constexpr std::string_view name = "exp";
  template <class T> STATICFLOW_HD static T apply(T a) { return std::exp(a); }
};
struct log : elementwise_op<log, operands::floating> {
  static constexpr std::string_view name = "log";
  template <class T> STATICFLOW_HD static T apply(T a) { return std::log(a); }
};
struct tanh : elementwise_op<tanh, operands::floating> {
  static constexpr std::string_view name = "tanh";
  template <class T> STATICFLOW_HD static T apply(T a) { return std::tanh(a); }
};
struct sigmoid : elementwise_op<sigmoid, operands::floating> {
  static constexpr std::string_view name = "sigmoid";
  template <class T> STATICFLOW_HD static T apply(T a) { return T(1) / (T(1) + std::exp(-a)); }
};
/// relu(x) = maximum(x, 0), so a NaN stays NaN (as in JAX).
struct relu : elementwise_op<relu, operands::numeric> {
  static constexpr std::string_view name = "relu";
  template <class T> STATICFLOW_HD static constexpr T apply(T a) { return (a > T(0) || a != a) ? a : T(0); }
};
/// The identity in the forward pass; sf::gradients sends no adjoint through it
/// (tf.stop_gradient, jax.lax.stop_gradient; sf::stop_gradient in autodiff/gradients.hpp).
struct stop_gradient : elementwise_op<stop_gradient, operands::any> {
  static constexpr std::string_view name = "stop_gradient";
  template <class T> STATICFLOW_HD static constexpr T apply(T a) { return a; }
};
struct logical_not : elementwise_op<logical_not, operands::boolean> {
  static constexpr std::string_view name = "not";
  STATICFLOW_HD static constexpr bool apply(bool a) { return !a; }
};

// ---- binary arithmetic ----
struct add : elementwise_op<add, operands::numeric> {
  static constexpr std::string_view name = "add";
  static constexpr bool takes_strings = true;  // concatenation (tf.strings.join of two)
  template <class T> STATICFLOW_HD static constexpr T apply(T a, T b) {
    if constexpr (integer_dtype<T>) return detail::wrap_add(a, b);
    else return a + b;
  }
};
struct subtract : elementwise_op<subtract, operands::numeric> {
  static constexpr std::string_view name = "sub";
  template <class T> STATICFLOW_HD static constexpr T apply(T a, T b) {
    if constexpr (integer_dtype<T>) return detail::wrap_sub(a, b);
    else return a - b;
  }
};
struct multiply : elementwise_op<multiply, operands::numeric> {
  static constexpr std::string_view name = "mul";
  template <class T> STATICFLOW_HD static constexpr T apply(T a, T b) {
    if constexpr (integer_dtype<T>) return detail::wrap_mul(a, b);
    else return a * b;
  }
};
/// `/`: truncating for integers, as in C++.
struct divide : elementwise_op<divide, operands::numeric> {
  static constexpr std::string_view name = "div";
  template <class T> STATICFLOW_HD static constexpr T apply(T a, T b) {
    if constexpr (integer_dtype<T>) {
      if (b == 0) return T(-1);
      if (detail::is_overflowing_division(a, b)) return a;
      if constexpr (std::is_signed<T>::value)
        if (const int k = detail::power_of_two_exponent(b); k >= 0) return detail::truncating_shift_divide(a, k);
      return a / b;
    } else {
      return a / b;
    }
  }
};
/// `%`: the remainder of truncating division (sign of the dividend), as C++ `%` and std::fmod.
struct mod : elementwise_op<mod, operands::numeric> {
  static constexpr std::string_view name = "rem";
  template <class T> STATICFLOW_HD static constexpr T apply(T a, T b) {
    if constexpr (integer_dtype<T>) {
      if (b == 0) return a;
      if (detail::is_overflowing_division(a, b)) return T(0);
      if constexpr (std::is_signed<T>::value)
        if (const int k = detail::power_of_two_exponent(b); k >= 0)
          return static_cast<T>(a - static_cast<T>(detail::truncating_shift_divide(a, k) * (T(1) << k)));
      return a % b;
    } else {
      return std::fmod(a, b);
    }
  }
};
/// tf.math.floordiv: rounds toward negative infinity (Python's `//`).
struct floordiv : elementwise_op<floordiv, operands::numeric> {
  static constexpr std::string_view name = "floordiv";
  template <class T> STATICFLOW_HD static constexpr T apply(T a, T b) {
    if constexpr (integer_dtype<T>) {
      const T q = divide::apply(a, b);
      if (b == 0 || detail::is_overflowing_division(a, b)) return q;
      return (a % b != 0 && ((a < 0) != (b < 0))) ? T(q - 1) : q;
    } else {
      return std::floor(a / b);
    }
  }
};
/// tf.math.floormod: the remainder takes the sign of the divisor (Python's `%`).
struct floormod : elementwise_op<floormod, operands::numeric> {
  static constexpr std::string_view name = "floormod";
  template <class T> STATICFLOW_HD static constexpr T apply(T a, T b) {
    const T r = mod::apply(a, b);
    if constexpr (integer_dtype<T>) {
      if (b == 0) return r;
    }
    return (r != T(0) && ((r < T(0)) != (b < T(0)))) ? T(r + b) : r;
  }
};
struct pow : elementwise_op<pow, operands::numeric> {
  static constexpr std::string_view name = "pow";
  template <class T> STATICFLOW_HD static constexpr T apply(T a, T b) {
    if constexpr (integer_dtype<T>) {
      if (b < 0) return a == 1 ? T(1) : a == -1 ? T((b & 1) ? -1 : 1) : T(0);
      T result = 1;
      for (; b; b >>= 1, a = detail::wrap_mul(a, a))
        if (b & 1) result = detail::wrap_mul(result, a);
      return result;
    } else {
      return std::pow(a, b);
    }
  }
};
/// tf.maximum / tf.minimum: a NaN operand gives NaN.
struct maximum : elementwise_op<maximum, operands::numeric> {
  static constexpr std::string_view name = "max";
  template <class T> STATICFLOW_HD static constexpr T apply(T a, T b) { return (a > b || a != a) ? a : b; }
};
struct minimum : elementwise_op<minimum, operands::numeric> {
  static constexpr std::string_view name = "min";
  template <class T> STATICFLOW_HD static constexpr T apply(T a, T b) { return (a < b || a != a) ? a : b; }
};

// ---- comparisons and logic ----
struct less : comparison_op<less, operands::numeric> {
  static constexpr std::string_view name = "lt";
  template <class T> STATICFLOW_HD static constexpr bool apply(T a, T b) { return a < b; }
};
struct less_equal : comparison_op<less_equal, operands::numeric> {
  static constexpr std::string_view name = "le";
  template <class T> STATICFLOW_HD static constexpr bool apply(T a, T b) { return a <= b; }
};
struct greater : comparison_op<greater, operands::numeric> {
  static constexpr std::string_view name = "gt";
  template <class T> STATICFLOW_HD static constexpr bool apply(T a, T b) { return a > b; }
};
struct greater_equal : comparison_op<greater_equal, operands::numeric> {
  static constexpr std::string_view name = "ge";
  template <class T> STATICFLOW_HD static constexpr bool apply(T a, T b) { return a >= b; }
};
struct equal : comparison_op<equal> {
  static constexpr bool takes_strings = true;
  static constexpr std::string_view name = "eq";
  template <class T> STATICFLOW_HD static constexpr bool apply(T a, T b) { return a == b; }
};
struct not_equal : comparison_op<not_equal> {
  static constexpr bool takes_strings = true;
  static constexpr std::string_view name = "ne";
  template <class T> STATICFLOW_HD static constexpr bool apply(T a, T b) { return a != b; }
};
struct logical_and : elementwise_op<logical_and, operands::boolean> {
  static constexpr std::string_view name = "and";
  STATICFLOW_HD static constexpr bool apply(bool a, bool b) { return a && b; }
};
struct logical_or : elementwise_op<logical_or, operands::boolean> {
  static constexpr std::string_view name = "or";
  STATICFLOW_HD static constexpr bool apply(bool a, bool b) { return a || b; }
};

}  // namespace staticflow::op
