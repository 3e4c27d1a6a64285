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
  if constexpr (std::is_same<Op, op::negate>::value) return "Neg";
  else if constexpr (std::is_same<Op, op::abs>::value) return "Abs";
  else if constexpr (std::is_same<Op, op::sqrt>::value) return "Sqrt";
  else if constexpr (std::is_same<Op, op::exp>::value) return "Exp";
  else if constexpr (std::is_same<Op, op::log>::value) return "Log";
  else if constexpr (std::is_same<Op, op::tanh>::value) return "Tanh";
  else if constexpr (std::is_same<Op, op::sigmoid>::value) return "Sigmoid";
  else if constexpr (std::is_same<Op, op::stop_gradient>::value || std::is_same<Op, op::identity>::value) return "Identity";
  else if constexpr (std::is_same<Op, op::logical_not>::value) return "Not";
  else if constexpr (std::is_same<Op, op::add>::value) return "Add";
  else if constexpr (std::is_same<Op, op::subtract>::value) return "Sub";
  else if constexpr (std::is_same<Op, op::multiply>::value) return "Mul";
  else if constexpr (std::is_same<Op, op::divide>::value) return "Div";
  else if constexpr (std::is_same<Op, op::pow>::value) return "Pow";
  else if constexpr (std::is_same<Op, op::maximum>::value) return "Max";
  else if constexpr (std::is_same<Op, op::minimum>::value) return "Min";
  else if constexpr (std::is_same<Op, op::less>::value) return "Less";
  else if constexpr (std::is_same<Op, op::less_equal>::value) return "LessOrEqual";
  else if constexpr (std::is_same<Op, op::greater>::value) return "Greater";
  else if constexpr (std::is_same<Op, op::greater_equal>::value) return "GreaterOrEqual";
  else if constexpr (std::is_same<Op, op::equal>::value) return "Equal";
  else if constexpr (std::is_same<Op, op::logical_and>::value) return "And";
  else if constexpr (std::is_same<Op, op::logical_or>::value) return "Or";
  else if constexpr (std::is_same<Op, op::logical_xor>::value) return "Xor";
  else if constexpr (std::is_same<Op, op::sin>::value) return "Sin";
  else if constexpr (std::is_same<Op, op::cos>::value) return "Cos";
  else if constexpr (std::is_same<Op, op::tan>::value) return "Tan";
  else if constexpr (std::is_same<Op, op::asin>::value) return "Asin";
  else if constexpr (std::is_same<Op, op::acos>::value) return "Acos";
  else if constexpr (std::is_same<Op, op::atan>::value) return "Atan";
  else if constexpr (std::is_same<Op, op::sinh>::value) return "Sinh";
  else if constexpr (std::is_same<Op, op::cosh>::value) return "Cosh";
  else if constexpr (std::is_same<Op, op::asinh>::value) return "Asinh";
  else if constexpr (std::is_same<Op, op::acosh>::value) return "Acosh";
  else if constexpr (std::is_same<Op, op::atanh>::value) return "Atanh";
  else if constexpr (std::is_same<Op, op::erf>::value) return "Erf";
  else if constexpr (std::is_same<Op, op::is_nan>::value) return "IsNaN";
  else if constexpr (std::is_same<Op, op::is_inf>::value) return "IsInf";
  else return "";
}

/// Whether lower_math composes Op for compute dtype T.
template <class Op, class T>
inline constexpr bool has_math_lowering =
    std::is_same<Op, op::floor>::value || std::is_same<Op, op::ceil>::value || std::is_same<Op, op::round>::value ||
    std::is_same<Op, op::sign>::value || std::is_same<Op, op::reciprocal>::value || std::is_same<Op, op::rsqrt>::value ||
    std::is_same<Op, op::log1p>::value || std::is_same<Op, op::expm1>::value || std::is_same<Op, op::log2>::value ||
    std::is_same<Op, op::exp2>::value || std::is_same<Op, op::erfc>::value || std::is_same<Op, op::softplus>::value ||
    std::is_same<Op, op::is_finite>::value;

/// The ONNX nodes of math function Op on x (dtype T), written through exporter e.
template <class Op, class T, class Exporter>
std::string lower_math(Exporter& e, const std::string& x) {
  const auto number = [&](double v) { return e.template constant<T>({static_cast<T>(v)}, {}); };
  if constexpr (std::is_same<Op, op::floor>::value || std::is_same<Op, op::ceil>::value || std::is_same<Op, op::round>::value) {
    if constexpr (integer_dtype<T>) return e.op("Identity", {x});
    else return e.op(std::is_same<Op, op::floor>::value ? "Floor" : std::is_same<Op, op::ceil>::value ? "Ceil" : "Round", {x});
  } else if constexpr (std::is_same<Op, op::sign>::value) {  // keeps NaN and a zero's sign, as op::sign
    const std::string zero = number(0);
    return e.op("Where", {e.op("Greater", {x, zero}), number(1),
                          e.op("Where", {e.op("Less", {x, zero}), number(-1), x})});
  } else if constexpr (std::is_same<Op, op::reciprocal>::value) {
    if constexpr (floating_dtype<T>) return e.op("Reciprocal", {x});
    else return e.op("Div", {number(1), x});
  } else if constexpr (std::is_same<Op, op::rsqrt>::value) {
    return e.op("Reciprocal", {e.op("Sqrt", {x})});
  } else if constexpr (std::is_same<Op, op::log1p>::value) {
    return e.op("Log", {e.op("Add", {x, number(1)})});
  } else if constexpr (std::is_same<Op, op::expm1>::value) {
    return e.op("Sub", {e.op("Exp", {x}), number(1)});
  } else if constexpr (std::is_same<Op, op::log2>::value) {
    return e.op("Div", {e.op("Log", {x}), number(0.69314718055994530942)});
  } else if constexpr (std::is_same<Op, op::exp2>::value) {
    return e.op("Pow", {number(2), x});
  } else if constexpr (std::is_same<Op, op::erfc>::value) {
    return e.op("Sub", {number(1), e.op("Erf", {x})});
  } else if constexpr (std::is_same<Op, op::softplus>::value) {
    const std::string zero = number(0);
    const std::string positive_part = e.op("Where", {e.op("Greater", {x, zero}), x, zero});
    return e.op("Add", {positive_part, e.op("Log", {e.op("Add", {number(1), e.op("Exp", {e.op("Neg", {e.op("Abs", {x})})})})})});
  } else {
    static_assert(std::is_same<Op, op::is_finite>::value);
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
