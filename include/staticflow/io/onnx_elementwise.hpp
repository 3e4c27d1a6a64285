// staticflow/io/onnx_elementwise.hpp -- the ONNX form of each elementwise op: the ops ONNX has
// (opset 17), and compositions for the math functions it lacks. Included by io/onnx_lowering.hpp.
//
// Compositions and their differences from staticflow's own kernels: log1p is Log(1 + x) and
// expm1 is Exp(x) - 1 (they lose the small-|x| precision of the fused functions); floor, ceil
// and round of an integer tensor are Identity; softplus is written as max(x, 0) + log(1 + exp(-|x|))
// (no overflow); atan2 is Atan(y / x) with the quadrant fixed by Where (x = 0 gives +-pi/2 or
// 0; signed zeros are not told apart). The bitwise ops and shifts have no lowering at opset 17
// (BitwiseAnd and friends arrived in opset 18, BitShift takes unsigned types only).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "staticflow/core/dtype.hpp"
#include "staticflow/graph/math_ops.hpp"
#include "staticflow/graph/scalar_ops.hpp"
#include "staticflow/graph/shape_ops.hpp"

namespace staticflow::onnx::detail {

/// The ONNX op of an elementwise op that has one (the others are composed below or in `exporter::lower_op`).
template <class Op>
constexpr std::string_view direct_op() {
  if constexpr (std::is_same_v<Op, op::negate>) return "Neg";
  else if constexpr (std::is_same_v<Op, op::abs>) return "Abs";
  else if constexpr (std::is_same_v<Op, op::sqrt>) return "Sqrt";
  else if constexpr (std::is_same_v<Op, op::exp>) return "Exp";
  else if constexpr (std::is_same_v<Op, op::log>) return "Log";
  else if constexpr (std::is_same_v<Op, op::tanh>) return "Tanh";
  else if constexpr (std::is_same_v<Op, op::sigmoid>) return "Sigmoid";
  else if constexpr (std::is_same_v<Op, op::stop_gradient> || std::is_same_v<Op, op::identity>) return "Identity";
  else if constexpr (std::is_same_v<Op, op::logical_not>) return "Not";
  else if constexpr (std::is_same_v<Op, op::add>) return "Add";
  else if constexpr (std::is_same_v<Op, op::subtract>) return "Sub";
  else if constexpr (std::is_same_v<Op, op::multiply>) return "Mul";
  else if constexpr (std::is_same_v<Op, op::divide>) return "Div";
  else if constexpr (std::is_same_v<Op, op::pow>) return "Pow";
  else if constexpr (std::is_same_v<Op, op::maximum>) return "Max";
  else if constexpr (std::is_same_v<Op, op::minimum>) return "Min";
  else if constexpr (std::is_same_v<Op, op::less>) return "Less";
  else if constexpr (std::is_same_v<Op, op::less_equal>) return "LessOrEqual";
  else if constexpr (std::is_same_v<Op, op::greater>) return "Greater";
  else if constexpr (std::is_same_v<Op, op::greater_equal>) return "GreaterOrEqual";
  else if constexpr (std::is_same_v<Op, op::equal>) return "Equal";
  else if constexpr (std::is_same_v<Op, op::logical_and>) return "And";
  else if constexpr (std::is_same_v<Op, op::logical_or>) return "Or";
  else if constexpr (std::is_same_v<Op, op::logical_xor>) return "Xor";
  else if constexpr (std::is_same_v<Op, op::sin>) return "Sin";
  else if constexpr (std::is_same_v<Op, op::cos>) return "Cos";
  else if constexpr (std::is_same_v<Op, op::tan>) return "Tan";
  else if constexpr (std::is_same_v<Op, op::asin>) return "Asin";
  else if constexpr (std::is_same_v<Op, op::acos>) return "Acos";
  else if constexpr (std::is_same_v<Op, op::atan>) return "Atan";
  else if constexpr (std::is_same_v<Op, op::sinh>) return "Sinh";
  else if constexpr (std::is_same_v<Op, op::cosh>) return "Cosh";
  else if constexpr (std::is_same_v<Op, op::asinh>) return "Asinh";
  else if constexpr (std::is_same_v<Op, op::acosh>) return "Acosh";
  else if constexpr (std::is_same_v<Op, op::atanh>) return "Atanh";
  else if constexpr (std::is_same_v<Op, op::erf>) return "Erf";
  else if constexpr (std::is_same_v<Op, op::is_nan>) return "IsNaN";
  else if constexpr (std::is_same_v<Op, op::is_inf>) return "IsInf";
  else return "";
}

/// Whether lower_math composes Op for compute dtype T.
template <class Op, class T>
inline constexpr bool has_math_lowering =
    std::is_same_v<Op, op::floor> || std::is_same_v<Op, op::ceil> || std::is_same_v<Op, op::round> ||
    std::is_same_v<Op, op::sign> || std::is_same_v<Op, op::reciprocal> || std::is_same_v<Op, op::rsqrt> ||
    std::is_same_v<Op, op::log1p> || std::is_same_v<Op, op::expm1> || std::is_same_v<Op, op::log2> ||
    std::is_same_v<Op, op::exp2> || std::is_same_v<Op, op::erfc> || std::is_same_v<Op, op::softplus> ||
    std::is_same_v<Op, op::is_finite>;

/// The ONNX nodes of math function Op on x (dtype T), written through exporter e.
template <class Op, class T, class Exporter>
std::string lower_math(Exporter& e, const std::string& x) {
  const auto number = [&](double v) { return e.template constant<T>({static_cast<T>(v)}, {}); };
  if constexpr (std::is_same_v<Op, op::floor> || std::is_same_v<Op, op::ceil> || std::is_same_v<Op, op::round>) {
    if constexpr (integer_dtype<T>) return e.op("Identity", {x});
    else return e.op(std::is_same_v<Op, op::floor> ? "Floor" : std::is_same_v<Op, op::ceil> ? "Ceil" : "Round", {x});
  } else if constexpr (std::is_same_v<Op, op::sign>) {  // keeps NaN and a zero's sign, as op::sign
    const std::string zero = number(0);
    return e.op("Where", {e.op("Greater", {x, zero}), number(1),
                          e.op("Where", {e.op("Less", {x, zero}), number(-1), x})});
  } else if constexpr (std::is_same_v<Op, op::reciprocal>) {
    if constexpr (floating_dtype<T>) return e.op("Reciprocal", {x});
    else return e.op("Div", {number(1), x});
  } else if constexpr (std::is_same_v<Op, op::rsqrt>) {
    return e.op("Reciprocal", {e.op("Sqrt", {x})});
  } else if constexpr (std::is_same_v<Op, op::log1p>) {
    return e.op("Log", {e.op("Add", {x, number(1)})});
  } else if constexpr (std::is_same_v<Op, op::expm1>) {
    return e.op("Sub", {e.op("Exp", {x}), number(1)});
  } else if constexpr (std::is_same_v<Op, op::log2>) {
    return e.op("Div", {e.op("Log", {x}), number(0.69314718055994530942)});
  } else if constexpr (std::is_same_v<Op, op::exp2>) {
    return e.op("Pow", {number(2), x});
  } else if constexpr (std::is_same_v<Op, op::erfc>) {
    return e.op("Sub", {number(1), e.op("Erf", {x})});
  } else if constexpr (std::is_same_v<Op, op::softplus>) {
    const std::string zero = number(0);
    const std::string positive_part = e.op("Where", {e.op("Greater", {x, zero}), x, zero});
    return e.op("Add", {positive_part, e.op("Log", {e.op("Add", {number(1), e.op("Exp", {e.op("Neg", {e.op("Abs", {x})})})})})});
  } else {
    static_assert(std::is_same_v<Op, op::is_finite>);
    return e.op("Not", {e.op("Or", {e.op("IsNaN", {x}), e.op("IsInf", {x})})});
  }
}

/// atan2(y, x) from Atan: atan(y / x), plus or minus pi where x < 0, +-pi/2 or 0 where x == 0.
template <class T, class Exporter>
std::string lower_atan2(Exporter& e, const std::string& y, const std::string& x) {
  const auto number = [&](double v) { return e.template constant<T>({static_cast<T>(v)}, {}); };
  constexpr double pi = 3.14159265358979323846;
  const std::string zero = number(0);
  const std::string base = e.op("Atan", {e.op("Div", {y, x})});
  const std::string y_negative = e.op("Less", {y, zero});
  const std::string left = e.op("Add", {base, e.op("Where", {y_negative, number(-pi), number(pi)})});
  const std::string on_axis =
      e.op("Where", {e.op("Greater", {y, zero}), number(pi / 2), e.op("Where", {y_negative, number(-pi / 2), zero})});
  return e.op("Where", {e.op("Greater", {x, zero}), base,
                        e.op("Where", {e.op("Less", {x, zero}), left, on_axis})});
}

}  // namespace staticflow::onnx::detail
