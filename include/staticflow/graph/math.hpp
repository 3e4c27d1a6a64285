// staticflow/graph/math.hpp -- tf.math's elementwise functions beyond arithmetic: trigonometric
// and hyperbolic functions, rounding, exp/log variants, erf, classification, clipping, and the
// bitwise ops and operators (`&`, `|`, `^`, `~`, `<<`, `>>`) on integer tensors.
//
// Each one builds a fused elementwise node (the semantics are in graph/math_ops.hpp); on
// constants (literals, static values) it folds while tracing, like the functions in
// graph/operators.hpp. `&`, `|`, `^` and `~` on bool tensors are the logical ops, as in TensorFlow.
#pragma once

#include <type_traits>

#include "staticflow/graph/math_ops.hpp"
#include "staticflow/graph/operators.hpp"

namespace staticflow {

#define STATICFLOW_MATH_UNARY(NAME, OP)                                          \
  template <class A>                                                             \
    requires(detail::tensor_operand<A> || static_value_type<A>)                  \
  constexpr auto NAME(const A& a) {                                              \
    return detail::make_unary<op::OP>(a);                                        \
  }
STATICFLOW_MATH_UNARY(sin, sin)
STATICFLOW_MATH_UNARY(cos, cos)
STATICFLOW_MATH_UNARY(tan, tan)
STATICFLOW_MATH_UNARY(asin, asin)
STATICFLOW_MATH_UNARY(acos, acos)
STATICFLOW_MATH_UNARY(atan, atan)
STATICFLOW_MATH_UNARY(sinh, sinh)
STATICFLOW_MATH_UNARY(cosh, cosh)
STATICFLOW_MATH_UNARY(asinh, asinh)
STATICFLOW_MATH_UNARY(acosh, acosh)
STATICFLOW_MATH_UNARY(atanh, atanh)
STATICFLOW_MATH_UNARY(floor, floor)
STATICFLOW_MATH_UNARY(ceil, ceil)
STATICFLOW_MATH_UNARY(round, round)
STATICFLOW_MATH_UNARY(rint, round)  // tf.math.rint: the same half-to-even rounding
STATICFLOW_MATH_UNARY(sign, sign)
STATICFLOW_MATH_UNARY(reciprocal, reciprocal)
STATICFLOW_MATH_UNARY(rsqrt, rsqrt)
STATICFLOW_MATH_UNARY(log1p, log1p)
STATICFLOW_MATH_UNARY(expm1, expm1)
STATICFLOW_MATH_UNARY(log2, log2)
STATICFLOW_MATH_UNARY(exp2, exp2)
STATICFLOW_MATH_UNARY(erf, erf)
STATICFLOW_MATH_UNARY(erfc, erfc)
STATICFLOW_MATH_UNARY(softplus, softplus)
STATICFLOW_MATH_UNARY(is_nan, is_nan)
STATICFLOW_MATH_UNARY(is_inf, is_inf)
STATICFLOW_MATH_UNARY(is_finite, is_finite)
STATICFLOW_MATH_UNARY(invert, invert)  // tf.bitwise.invert
#undef STATICFLOW_MATH_UNARY

#define STATICFLOW_MATH_BINARY(NAME, OP)                                         \
  template <class A, class B>                                                    \
    requires detail::binary_operands<A, B>                                       \
  constexpr auto NAME(const A& a, const B& b) {                                  \
    return detail::make_binary<op::OP>(a, b);                                    \
  }
STATICFLOW_MATH_BINARY(atan2, atan2)
STATICFLOW_MATH_BINARY(logical_xor, logical_xor)
STATICFLOW_MATH_BINARY(bitwise_and, bitwise_and)
STATICFLOW_MATH_BINARY(bitwise_or, bitwise_or)
STATICFLOW_MATH_BINARY(bitwise_xor, bitwise_xor)
STATICFLOW_MATH_BINARY(left_shift, left_shift)
STATICFLOW_MATH_BINARY(right_shift, right_shift)
#undef STATICFLOW_MATH_BINARY

/// tf.clip_by_value: min(max(x, lo), hi). The gradient reaches x where lo <= x <= hi (TF's rule).
template <class A, class Lo, class Hi>
  requires(detail::tensor_operand<A> && detail::operand<Lo> && detail::operand<Hi>)
constexpr auto clip_by_value(const A& x, const Lo& lo, const Hi& hi) {
  return minimum(maximum(x, lo), hi);
}

/// tf.math.squared_difference: (x - y)^2.
template <class A, class B>
  requires detail::binary_operands<A, B>
constexpr auto squared_difference(const A& x, const B& y) {
  return square(x - y);
}

namespace detail {
template <class A, class B>
inline constexpr bool both_bool = std::is_same<typename decltype(as_node<B>(std::declval<const A&>()))::value_type, bool>::value &&
                                  std::is_same<typename decltype(as_node<A>(std::declval<const B&>()))::value_type, bool>::value;
}  // namespace detail

// Operators: bitwise on integer tensors, logical on bool tensors (as TensorFlow's).
#define STATICFLOW_BITWISE_OPERATOR(SYMBOL, INTEGER_OP, BOOL_OP)                \
  template <class A, class B>                                                    \
    requires detail::binary_operands<A, B>                                       \
  constexpr auto operator SYMBOL(const A& a, const B& b) {                       \
    if constexpr (detail::both_bool<A, B>) return detail::make_binary<op::BOOL_OP>(a, b); \
    else return detail::make_binary<op::INTEGER_OP>(a, b);                       \
  }
STATICFLOW_BITWISE_OPERATOR(&, bitwise_and, logical_and)
STATICFLOW_BITWISE_OPERATOR(|, bitwise_or, logical_or)
STATICFLOW_BITWISE_OPERATOR(^, bitwise_xor, logical_xor)
#undef STATICFLOW_BITWISE_OPERATOR

template <class A, class B>
  requires detail::binary_operands<A, B>
constexpr auto operator<<(const A& a, const B& b) {
  return detail::make_binary<op::left_shift>(a, b);
}
template <class A, class B>
  requires detail::binary_operands<A, B>
constexpr auto operator>>(const A& a, const B& b) {
  return detail::make_binary<op::right_shift>(a, b);
}
template <detail::tensor_operand A>
constexpr auto operator~(const A& a) {
  if constexpr (std::is_same<typename decltype(detail::as_node<void>(a))::value_type, bool>::value)
    return detail::make_unary<op::logical_not>(a);
  else
    return detail::make_unary<op::invert>(a);
}

}  // namespace staticflow
