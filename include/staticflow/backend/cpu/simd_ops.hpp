// staticflow/backend/cpu/simd_ops.hpp -- the batch form of each elementwise op: what the fused
// loops compute for one xsimd batch, matching the op's scalar `apply` (graph/scalar_ops.hpp,
// graph/math_ops.hpp). An op without a batch form (`supported` false) keeps its loop scalar.
//
// xsimd's approximate instructions are not used: reciprocal and rsqrt divide (an `rcp`/`rsqrt`
// estimate has 12 bits), round is nearbyint (half to even; xsimd::round rounds half away).
#pragma once

#include <limits>
#include <type_traits>

#include <xsimd/xsimd.hpp>

#include "staticflow/core/config.hpp"
#include "staticflow/core/dtype.hpp"
#include "staticflow/graph/math_ops.hpp"
#include "staticflow/graph/scalar_ops.hpp"
#include "staticflow/graph/shape_ops.hpp"

STATICFLOW_DETAIL_INTRINSICS_BEGIN

namespace staticflow::cpu::detail {

/// The instruction set the fused loops use: xsimd's best for this translation unit's -march,
/// except without optimization on AVX-512BW, where xsimd 8.1's integer `select` (used by its
/// `log`, `max`, `where`) does not compile with g++ 12 at -O0; AVX2 serves those debug builds.
#if !defined(__OPTIMIZE__) && defined(__AVX512BW__)
using simd_arch = xsimd::fma3<xsimd::avx2>;
#else
using simd_arch = xsimd::default_arch;
#endif

/// The batch of T the fused loops use.
template <class T>
using batch_t = xsimd::batch<T, simd_arch>;

/// The lanes of a that are NaN. Not `a != a`: xsimd 8.1 compiles that to an *ordered* compare on
/// AVX/AVX2 (_CMP_NEQ_OQ), false for NaN, so NaN-propagating max/min/relu lost their NaN there.
template <class B>
STATICFLOW_INLINE auto nan_lanes(const B& a) {
  if constexpr (std::is_floating_point<typename B::value_type>::value) return xsimd::isnan(a);
  else return a != a;  // never true for integers
}

/// The batch form of Op for lane dtype T; `supported` is false where there is none.
template <class Op, class T>
struct simd_op {
  static constexpr bool supported = false;
};

template <class T> struct simd_op<op::negate, T> {
  static constexpr bool supported = true;
  template <class B> STATICFLOW_INLINE static B apply(const B& a) { return -a; }
};
template <class T> struct simd_op<op::abs, T> {
  static constexpr bool supported = true;
  template <class B> STATICFLOW_INLINE static B apply(const B& a) { return xsimd::abs(a); }
};
template <class T> struct simd_op<op::square, T> {
  static constexpr bool supported = true;
  template <class B> STATICFLOW_INLINE static B apply(const B& a) { return a * a; }
};
template <class T> struct simd_op<op::sqrt, T> {
  static constexpr bool supported = true;
  template <class B> STATICFLOW_INLINE static B apply(const B& a) { return xsimd::sqrt(a); }
};
/// tanh of a float batch as x P(x^2) / Q(x^2) (degrees 6 and 3), and +-1 from |x| = 9 on (every
/// float from 9 on rounds to 1): the form of Eigen's float tanh (TensorFlow's and XLA's CPU tanh),
/// with coefficients of our own fit (bench/fit_rational.py). Over every float in [0, 10]: within
/// 5.16 ulp of the correctly rounded tanh, mean 0.08 (Eigen's 4.90 and 0.12); xsimd 8.1's is
/// 1.35 ulp but about twice as slow (an exp above 0.625). tests/backend/test_simd_math.cpp checks
/// a sample. Odd bit for bit, NaN stays NaN, -0.0 stays -0.0, x itself below about 1e-4 (P and Q
/// are 1 there). double keeps xsimd's tanh.
template <class B>
STATICFLOW_INLINE B batch_tanh_of(const B& x) {
  if constexpr (!std::is_same<typename B::value_type, float>::value) {
    return xsimd::tanh(x);
  } else {
    const B saturated(9.f);
    const B a = xsimd::max(-saturated, xsimd::min(saturated, x));
    const B t = a * a;
    B p(-8.48953815e-14f);
    p = xsimd::fma(p, t, B(5.27817581e-11f));
    p = xsimd::fma(p, t, B(-2.02254835e-08f));
    p = xsimd::fma(p, t, B(1.11543241e-05f));
    p = xsimd::fma(p, t, B(0.00310395472f));
    p = xsimd::fma(p, t, B(0.130840078f));
    p = xsimd::fma(p, t, B(1.f));
    B q(0.000254614482f);
    q = xsimd::fma(q, t, B(0.0244951695f));
    q = xsimd::fma(q, t, B(0.464173347f));
    q = xsimd::fma(q, t, B(1.f));
    return xsimd::select(xsimd::abs(a) >= saturated, xsimd::copysign(B(1.f), a), a * p / q);
  }
}

// The costly batch functions (costly_batch below) are called through functions the compiler
// knows to be pure ([[gnu::const]]: the result depends on the argument only). In a large
// translation unit GCC stops inlining xsimd's long functions (its unit-growth limit), and an
// opaque call is never merged with an equal one: a fused pass computing sum(tanh(x * w + b)) and
// its gradient called tanh twice per batch (backend/cpu/fused_outputs.hpp). Declared const, the
// second call is the first one's result.
#define STATICFLOW_PURE_BATCH_FUNCTION(NAME, EXPR)                                                \
  template <class B>                                                                             \
  [[gnu::const]] B NAME(B a) {                                                                   \
    using T [[maybe_unused]] = typename B::value_type;                                           \
    return EXPR;                                                                                 \
  }
STATICFLOW_PURE_BATCH_FUNCTION(batch_exp, xsimd::exp(a))
STATICFLOW_PURE_BATCH_FUNCTION(batch_log, xsimd::log(a))
STATICFLOW_PURE_BATCH_FUNCTION(batch_tanh, batch_tanh_of(a))
STATICFLOW_PURE_BATCH_FUNCTION(batch_sigmoid, B(T(1)) / (B(T(1)) + xsimd::exp(-a)))
template <class B>
[[gnu::const]] B batch_pow(B a, B b) { return xsimd::pow(a, b); }
template <class B>
[[gnu::const]] B batch_atan2(B y, B x) { return xsimd::atan2(y, x); }

template <class T> struct simd_op<op::exp, T> {
  static constexpr bool supported = true;
  template <class B> STATICFLOW_INLINE static B apply(const B& a) { return batch_exp(a); }
};
template <class T> struct simd_op<op::log, T> {
  static constexpr bool supported = true;
  template <class B> STATICFLOW_INLINE static B apply(const B& a) { return batch_log(a); }
};
template <class T> struct simd_op<op::tanh, T> {
  static constexpr bool supported = true;
  template <class B> STATICFLOW_INLINE static B apply(const B& a) { return batch_tanh(a); }
};
template <class T> struct simd_op<op::sigmoid, T> {
  static constexpr bool supported = true;
  template <class B> STATICFLOW_INLINE static B apply(const B& a) { return batch_sigmoid(a); }
};
template <class T> struct simd_op<op::relu, T> {
  static constexpr bool supported = true;
  template <class B> STATICFLOW_INLINE static B apply(const B& a) { return xsimd::select((a > B(T(0))) || nan_lanes(a), a, B(T(0))); }
};
template <class T> struct simd_op<op::stop_gradient, T> {
  static constexpr bool supported = true;
  template <class B> STATICFLOW_INLINE static B apply(const B& a) { return a; }
};
template <class T> struct simd_op<op::logical_not, T> {
  static constexpr bool supported = true;
  template <class M> STATICFLOW_INLINE static M apply(const M& a) { return !a; }
};
template <class T> struct simd_op<op::add, T> {
  static constexpr bool supported = true;
  template <class B> STATICFLOW_INLINE static B apply(const B& a, const B& b) { return a + b; }
};
template <class T> struct simd_op<op::subtract, T> {
  static constexpr bool supported = true;
  template <class B> STATICFLOW_INLINE static B apply(const B& a, const B& b) { return a - b; }
};
template <class T> struct simd_op<op::multiply, T> {
  static constexpr bool supported = true;
  template <class B> STATICFLOW_INLINE static B apply(const B& a, const B& b) { return a * b; }
};
template <class T> struct simd_op<op::divide, T> {
  static constexpr bool supported = floating_dtype<T>;  // integer division stays scalar
  template <class B> STATICFLOW_INLINE static B apply(const B& a, const B& b) { return a / b; }
};
template <class T> struct simd_op<op::floordiv, T> {
  static constexpr bool supported = floating_dtype<T>;
  template <class B> STATICFLOW_INLINE static B apply(const B& a, const B& b) { return xsimd::floor(a / b); }
};
template <class T> struct simd_op<op::pow, T> {
  static constexpr bool supported = floating_dtype<T>;
  template <class B> STATICFLOW_INLINE static B apply(const B& a, const B& b) { return batch_pow(a, b); }
};
template <class T> struct simd_op<op::maximum, T> {
  static constexpr bool supported = true;
  template <class B> STATICFLOW_INLINE static B apply(const B& a, const B& b) { return xsimd::select((a > b) || nan_lanes(a), a, b); }
};
template <class T> struct simd_op<op::minimum, T> {
  static constexpr bool supported = true;
  template <class B> STATICFLOW_INLINE static B apply(const B& a, const B& b) { return xsimd::select((a < b) || nan_lanes(a), a, b); }
};
template <class T> struct simd_op<op::less, T> {
  static constexpr bool supported = true;
  template <class B> STATICFLOW_INLINE static auto apply(const B& a, const B& b) { return a < b; }
};
template <class T> struct simd_op<op::less_equal, T> {
  static constexpr bool supported = true;
  template <class B> STATICFLOW_INLINE static auto apply(const B& a, const B& b) { return a <= b; }
};
template <class T> struct simd_op<op::greater, T> {
  static constexpr bool supported = true;
  template <class B> STATICFLOW_INLINE static auto apply(const B& a, const B& b) { return a > b; }
};
template <class T> struct simd_op<op::greater_equal, T> {
  static constexpr bool supported = true;
  template <class B> STATICFLOW_INLINE static auto apply(const B& a, const B& b) { return a >= b; }
};
template <class T> struct simd_op<op::equal, T> {
  static constexpr bool supported = true;
  template <class B> STATICFLOW_INLINE static auto apply(const B& a, const B& b) { return a == b; }
};
template <class T> struct simd_op<op::not_equal, T> {
  static constexpr bool supported = true;
  // true where either is NaN, as in C++ (xsimd 8.1's `!=` on AVX is an ordered compare)
  template <class B> STATICFLOW_INLINE static auto apply(const B& a, const B& b) { return !(a == b); }
};
template <class T> struct simd_op<op::logical_and, T> {
  static constexpr bool supported = true;
  template <class M> STATICFLOW_INLINE static M apply(const M& a, const M& b) { return a && b; }
};
template <class T> struct simd_op<op::logical_or, T> {
  static constexpr bool supported = true;
  template <class M> STATICFLOW_INLINE static M apply(const M& a, const M& b) { return a || b; }
};

// ---- graph/math_ops.hpp ----
/// erf of a float batch as x P(x^2) / Q(x^2), and +-1 from |x| = 3.85 on (erfc(3.85) is 0.87 of
/// the spacing of floats below 1): the shape of Eigen's and XLA's float erf, with coefficients of
/// our own fit (bench/fit_rational.py). Over every float in [0, 6]: within 6.54 ulp of the correctly
/// rounded erf, mean 0.64 (tests/backend/test_simd_math.cpp checks a sample); odd bit for bit;
/// near 1 not monotonic to the last ulps (drops of up to 8 ulp, the float rounding of P and Q).
/// Eigen's float erf (TensorFlow's CPU erf) measures 7.4 ulp there (36 below 1e-30) with the same
/// drops; xsimd 8.1's 2.4 ulp, but 1.8x slower (a piecewise form with an exp). NaN stays NaN
/// (x86's min and max return their second operand when either is NaN), -0.0 stays -0.0. double
/// keeps xsimd's erf.
template <class B>
STATICFLOW_INLINE B batch_erf_of(const B& x) {
  if constexpr (!std::is_same<typename B::value_type, float>::value) {
    return xsimd::erf(x);
  } else {
    const B saturated(3.85f);
    const B a = xsimd::max(-saturated, xsimd::min(saturated, x));
    const B t = a * a;
    B p(-1.02397726e-08f);
    p = xsimd::fma(p, t, B(4.12794543e-06f));
    p = xsimd::fma(p, t, B(0.000358700927f));
    p = xsimd::fma(p, t, B(0.00377280102f));
    p = xsimd::fma(p, t, B(0.0537934713f));
    p = xsimd::fma(p, t, B(0.184803575f));
    p = xsimd::fma(p, t, B(1.12837923f));
    B q(5.7868936e-05f);
    q = xsimd::fma(q, t, B(0.00126399659f));
    q = xsimd::fma(q, t, B(0.015234733f));
    q = xsimd::fma(q, t, B(0.113376819f));
    q = xsimd::fma(q, t, B(0.497111261f));
    q = xsimd::fma(q, t, B(1.f));
    return xsimd::select(xsimd::abs(a) >= saturated, xsimd::copysign(B(1.f), a), a * p / q);
  }
}

#define STATICFLOW_SIMD_FLOAT_FUNCTION(OP, EXPR)                                                  \
  STATICFLOW_PURE_BATCH_FUNCTION(batch_##OP, EXPR)                                               \
  template <class T> struct simd_op<op::OP, T> {                                                 \
    static constexpr bool supported = floating_dtype<T>;                                         \
    template <class B> STATICFLOW_INLINE static B apply(const B& a) { return batch_##OP(a); }    \
  };
STATICFLOW_SIMD_FLOAT_FUNCTION(sin, xsimd::sin(a))
STATICFLOW_SIMD_FLOAT_FUNCTION(cos, xsimd::cos(a))
STATICFLOW_SIMD_FLOAT_FUNCTION(tan, xsimd::tan(a))
STATICFLOW_SIMD_FLOAT_FUNCTION(asin, xsimd::asin(a))
STATICFLOW_SIMD_FLOAT_FUNCTION(acos, xsimd::acos(a))
STATICFLOW_SIMD_FLOAT_FUNCTION(atan, xsimd::atan(a))
STATICFLOW_SIMD_FLOAT_FUNCTION(sinh, xsimd::sinh(a))
STATICFLOW_SIMD_FLOAT_FUNCTION(cosh, xsimd::cosh(a))
STATICFLOW_SIMD_FLOAT_FUNCTION(asinh, xsimd::asinh(a))
STATICFLOW_SIMD_FLOAT_FUNCTION(acosh, xsimd::acosh(a))
STATICFLOW_SIMD_FLOAT_FUNCTION(atanh, xsimd::atanh(a))
template <class T> struct simd_op<op::rsqrt, T> {  // cheap: inline, no pure-function call
  static constexpr bool supported = floating_dtype<T>;
  template <class B> STATICFLOW_INLINE static B apply(const B& a) { return B(T(1)) / xsimd::sqrt(a); }
};
STATICFLOW_SIMD_FLOAT_FUNCTION(log1p, xsimd::log1p(a))
STATICFLOW_SIMD_FLOAT_FUNCTION(expm1, xsimd::expm1(a))
STATICFLOW_SIMD_FLOAT_FUNCTION(log2, xsimd::log2(a))
STATICFLOW_SIMD_FLOAT_FUNCTION(exp2, xsimd::exp2(a))
STATICFLOW_SIMD_FLOAT_FUNCTION(erf, batch_erf_of(a))
STATICFLOW_SIMD_FLOAT_FUNCTION(erfc, xsimd::erfc(a))
template <class T> struct simd_op<op::softplus, T> {  // made of pure calls, not one (see above)
  static constexpr bool supported = floating_dtype<T>;
  template <class B> STATICFLOW_INLINE static B apply(const B& a) {
    return xsimd::select(a > B(T(0)), a, B(T(0))) + batch_log1p(batch_exp(-xsimd::abs(a)));
  }
};
#undef STATICFLOW_SIMD_FLOAT_FUNCTION
#undef STATICFLOW_PURE_BATCH_FUNCTION

// Rounding is the identity on integers.
#define STATICFLOW_SIMD_ROUNDING(OP, EXPR)                                                        \
  template <class T> struct simd_op<op::OP, T> {                                                 \
    static constexpr bool supported = true;                                                      \
    template <class B> STATICFLOW_INLINE static B apply(const B& a) {                            \
      if constexpr (floating_dtype<T>) return EXPR;                                              \
      else return a;                                                                             \
    }                                                                                            \
  };
STATICFLOW_SIMD_ROUNDING(floor, xsimd::floor(a))
STATICFLOW_SIMD_ROUNDING(ceil, xsimd::ceil(a))
STATICFLOW_SIMD_ROUNDING(round, xsimd::nearbyint(a))
#undef STATICFLOW_SIMD_ROUNDING

template <class T> struct simd_op<op::sign, T> {
  static constexpr bool supported = true;
  template <class B> STATICFLOW_INLINE static B apply(const B& a) {
    return xsimd::select(a > B(T(0)), B(T(1)), xsimd::select(a < B(T(0)), B(T(-1)), a));
  }
};
template <class T> struct simd_op<op::reciprocal, T> {
  static constexpr bool supported = floating_dtype<T>;  // integer division stays scalar
  template <class B> STATICFLOW_INLINE static B apply(const B& a) { return B(T(1)) / a; }
};
template <class T> struct simd_op<op::is_nan, T> {
  static constexpr bool supported = floating_dtype<T>;
  template <class B> STATICFLOW_INLINE static auto apply(const B& a) { return xsimd::isnan(a); }
};
template <class T> struct simd_op<op::is_inf, T> {
  static constexpr bool supported = floating_dtype<T>;
  template <class B> STATICFLOW_INLINE static auto apply(const B& a) { return xsimd::abs(a) == B(std::numeric_limits<T>::infinity()); }
};
template <class T> struct simd_op<op::is_finite, T> {
  static constexpr bool supported = floating_dtype<T>;
  template <class B> STATICFLOW_INLINE static auto apply(const B& a) { return xsimd::abs(a) < B(std::numeric_limits<T>::infinity()); }
};
template <class T> struct simd_op<op::atan2, T> {
  static constexpr bool supported = floating_dtype<T>;
  template <class B> STATICFLOW_INLINE static B apply(const B& y, const B& x) { return batch_atan2(y, x); }
};
template <class T> struct simd_op<op::logical_xor, T> {
  static constexpr bool supported = true;
  template <class M> STATICFLOW_INLINE static M apply(const M& a, const M& b) { return a ^ b; }
};
template <class T> struct simd_op<op::bitwise_and, T> {
  static constexpr bool supported = integer_dtype<T>;
  template <class B> STATICFLOW_INLINE static B apply(const B& a, const B& b) { return a & b; }
};
template <class T> struct simd_op<op::bitwise_or, T> {
  static constexpr bool supported = integer_dtype<T>;
  template <class B> STATICFLOW_INLINE static B apply(const B& a, const B& b) { return a | b; }
};
template <class T> struct simd_op<op::bitwise_xor, T> {
  static constexpr bool supported = integer_dtype<T>;
  template <class B> STATICFLOW_INLINE static B apply(const B& a, const B& b) { return a ^ b; }
};
template <class T> struct simd_op<op::invert, T> {
  static constexpr bool supported = integer_dtype<T>;
  template <class B> STATICFLOW_INLINE static B apply(const B& a) { return ~a; }
};
/// Ops whose batch form is long (xsimd's range reduction and polynomial, tens of instructions): a
/// loop over a graph holding one is compiled as its own flattened function (backend/cpu/kernel.hpp).
template <class Op> inline constexpr bool costly_batch = false;
#define STATICFLOW_COSTLY(OP) template <> inline constexpr bool costly_batch<op::OP> = true;
STATICFLOW_COSTLY(exp) STATICFLOW_COSTLY(log) STATICFLOW_COSTLY(tanh) STATICFLOW_COSTLY(sigmoid)
STATICFLOW_COSTLY(pow) STATICFLOW_COSTLY(sin) STATICFLOW_COSTLY(cos) STATICFLOW_COSTLY(tan)
STATICFLOW_COSTLY(asin) STATICFLOW_COSTLY(acos) STATICFLOW_COSTLY(atan) STATICFLOW_COSTLY(atan2)
STATICFLOW_COSTLY(sinh) STATICFLOW_COSTLY(cosh) STATICFLOW_COSTLY(asinh) STATICFLOW_COSTLY(acosh)
STATICFLOW_COSTLY(atanh) STATICFLOW_COSTLY(log1p) STATICFLOW_COSTLY(expm1) STATICFLOW_COSTLY(log2)
STATICFLOW_COSTLY(exp2) STATICFLOW_COSTLY(erf) STATICFLOW_COSTLY(erfc) STATICFLOW_COSTLY(softplus)
#undef STATICFLOW_COSTLY

// left_shift / right_shift stay scalar: AVX2 has no 64-bit arithmetic variable shift, and the
// out-of-range rule needs a compare per lane either way.

}  // namespace staticflow::cpu::detail

STATICFLOW_DETAIL_INTRINSICS_END
