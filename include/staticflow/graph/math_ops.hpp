// staticflow/graph/math_ops.hpp -- the math library's elementwise functions and the bitwise ops:
// their tags and scalar semantics (graph/scalar_ops.hpp holds the arithmetic ones).
//
// The scalar `apply` is the reference every backend reproduces; the CPU backend's batches
// (backend/cpu/simd_math.hpp) use xsimd's functions, which agree with the C library's to a few
// ulps. Semantics at the edges, as TensorFlow's:
//  * round / rint round half to even (tf.math.round: round(2.5) == 2, round(-0.5) == -0.0);
//    floor, ceil, round and sign of an integer tensor are the identity / -1, 0, 1;
//  * sign(NaN) is NaN and sign(+-0.0) keeps the zero; reciprocal of an integer is truncating
//    1 / x with x / 0 == -1 (graph/scalar_ops.hpp's division);
//  * softplus(x) = max(x, 0) + log1p(exp(-|x|)): no overflow for large |x| (softplus(1000) == 1000);
//  * is_nan / is_inf / is_finite take float tensors and give bool;
//  * shifts follow XLA: a shift by a negative amount or by the width or more gives 0
//    (left_shift) or the sign fill, 0 or -1 (right_shift, arithmetic); signed overflow of a
//    left shift wraps.
#pragma once

#include <cmath>
#include <string_view>
#include <type_traits>

#include "staticflow/graph/scalar_ops.hpp"

namespace staticflow::op {

// A float function of one float: name and the <cmath> function it applies.
#define STATICFLOW_FLOAT_FUNCTION(TAG, NAME, EXPR)                          \
  struct TAG : elementwise_op<TAG, operands::floating> {                    \
    static constexpr std::string_view name = NAME;                          \
    template <class T> STATICFLOW_HD static T apply(T a) { return EXPR; }   \
  };
STATICFLOW_FLOAT_FUNCTION(sin, "sin", std::sin(a))
STATICFLOW_FLOAT_FUNCTION(cos, "cos", std::cos(a))
STATICFLOW_FLOAT_FUNCTION(tan, "tan", std::tan(a))
STATICFLOW_FLOAT_FUNCTION(asin, "asin", std::asin(a))
STATICFLOW_FLOAT_FUNCTION(acos, "acos", std::acos(a))
STATICFLOW_FLOAT_FUNCTION(atan, "atan", std::atan(a))
STATICFLOW_FLOAT_FUNCTION(sinh, "sinh", std::sinh(a))
STATICFLOW_FLOAT_FUNCTION(cosh, "cosh", std::cosh(a))
STATICFLOW_FLOAT_FUNCTION(asinh, "asinh", std::asinh(a))
STATICFLOW_FLOAT_FUNCTION(acosh, "acosh", std::acosh(a))
STATICFLOW_FLOAT_FUNCTION(atanh, "atanh", std::atanh(a))
STATICFLOW_FLOAT_FUNCTION(rsqrt, "rsqrt", T(1) / std::sqrt(a))
STATICFLOW_FLOAT_FUNCTION(log1p, "log1p", std::log1p(a))
STATICFLOW_FLOAT_FUNCTION(expm1, "expm1", std::expm1(a))
STATICFLOW_FLOAT_FUNCTION(log2, "log2", std::log2(a))
STATICFLOW_FLOAT_FUNCTION(exp2, "exp2", std::exp2(a))
STATICFLOW_FLOAT_FUNCTION(erf, "erf", std::erf(a))
STATICFLOW_FLOAT_FUNCTION(erfc, "erfc", std::erfc(a))
STATICFLOW_FLOAT_FUNCTION(softplus, "softplus", (a > T(0) ? a : T(0)) + std::log1p(std::exp(-std::fabs(a))))
#undef STATICFLOW_FLOAT_FUNCTION

// Rounding: floats round, integers are already whole.
struct floor : elementwise_op<floor, operands::numeric> {
  static constexpr std::string_view name = "floor";
  template <class T> STATICFLOW_HD static T apply(T a) {
    if constexpr (integer_dtype<T>) return a;
    else return std::floor(a);
  }
};
struct ceil : elementwise_op<ceil, operands::numeric> {
  static constexpr std::string_view name = "ceil";
  template <class T> STATICFLOW_HD static T apply(T a) {
    if constexpr (integer_dtype<T>) return a;
    else return std::ceil(a);
  }
};
/// Half to even (the default rounding mode's nearbyint), as tf.math.round and tf.math.rint.
struct round : elementwise_op<round, operands::numeric> {
  static constexpr std::string_view name = "round";
  template <class T> STATICFLOW_HD static T apply(T a) {
    if constexpr (integer_dtype<T>) return a;
    else return std::nearbyint(a);
  }
};
/// -1, 0 or 1; a float zero keeps its sign and NaN stays NaN.
struct sign : elementwise_op<sign, operands::numeric> {
  static constexpr std::string_view name = "sign";
  template <class T> STATICFLOW_HD static constexpr T apply(T a) { return a > T(0) ? T(1) : a < T(0) ? T(-1) : a; }
};
struct reciprocal : elementwise_op<reciprocal, operands::numeric> {
  static constexpr std::string_view name = "reciprocal";
  template <class T> STATICFLOW_HD static constexpr T apply(T a) { return divide::apply(T(1), a); }
};

// Classification: float in, bool out.
struct is_nan : comparison_op<is_nan, operands::floating> {
  static constexpr std::string_view name = "is_nan";
  template <class T> STATICFLOW_HD static bool apply(T a) { return std::isnan(a); }
};
struct is_inf : comparison_op<is_inf, operands::floating> {
  static constexpr std::string_view name = "is_inf";
  template <class T> STATICFLOW_HD static bool apply(T a) { return std::isinf(a); }
};
struct is_finite : comparison_op<is_finite, operands::floating> {
  static constexpr std::string_view name = "is_finite";
  template <class T> STATICFLOW_HD static bool apply(T a) { return std::isfinite(a); }
};

// Binary.
/// atan2(y, x): the angle of the point (x, y), in [-pi, pi].
struct atan2 : elementwise_op<atan2, operands::floating> {
  static constexpr std::string_view name = "atan2";
  template <class T> STATICFLOW_HD static T apply(T y, T x) { return std::atan2(y, x); }
};
struct logical_xor : elementwise_op<logical_xor, operands::boolean> {
  static constexpr std::string_view name = "xor";
  STATICFLOW_HD static constexpr bool apply(bool a, bool b) { return a != b; }
};

// Bitwise, on int32 / int64.
struct bitwise_and : elementwise_op<bitwise_and, operands::integer> {
  static constexpr std::string_view name = "bitwise_and";
  template <class T> STATICFLOW_HD static constexpr T apply(T a, T b) { return static_cast<T>(a & b); }
};
struct bitwise_or : elementwise_op<bitwise_or, operands::integer> {
  static constexpr std::string_view name = "bitwise_or";
  template <class T> STATICFLOW_HD static constexpr T apply(T a, T b) { return static_cast<T>(a | b); }
};
struct bitwise_xor : elementwise_op<bitwise_xor, operands::integer> {
  static constexpr std::string_view name = "bitwise_xor";
  template <class T> STATICFLOW_HD static constexpr T apply(T a, T b) { return static_cast<T>(a ^ b); }
};
struct invert : elementwise_op<invert, operands::integer> {
  static constexpr std::string_view name = "invert";
  template <class T> STATICFLOW_HD static constexpr T apply(T a) { return static_cast<T>(~a); }
};
struct left_shift : elementwise_op<left_shift, operands::integer> {
  static constexpr std::string_view name = "left_shift";
  template <class T> STATICFLOW_HD static constexpr T apply(T a, T b) {
    using U = std::make_unsigned_t<T>;
    if (static_cast<U>(b) >= sizeof(T) * 8) return T(0);
    return static_cast<T>(static_cast<U>(a) << b);
  }
};
/// Arithmetic: the sign bit fills in.
struct right_shift : elementwise_op<right_shift, operands::integer> {
  static constexpr std::string_view name = "right_shift";
  template <class T> STATICFLOW_HD static constexpr T apply(T a, T b) {
    using U = std::make_unsigned_t<T>;
    if (static_cast<U>(b) >= sizeof(T) * 8) return a < T(0) ? T(-1) : T(0);
    return static_cast<T>(a >> b);
  }
};

}  // namespace staticflow::op
