// staticflow/backend/cpu/simd_eval.hpp -- one xsimd batch of a graph, and the compile-time rule for
// which graphs take this path.
//
// A graph is vectorized when every tensor value in it has the lane dtype T of its result (bool
// values in between are xsimd::batch_bool<T>, the masks of comparisons) and every op has a batch
// form below that matches its scalar semantics. Integer division and remainder have no SIMD
// instruction and stay scalar, as do graphs that mix dtypes; the compiler may still
// auto-vectorize those loops.
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>

#include <xsimd/xsimd.hpp>

#include "staticflow/core/config.hpp"
#include "staticflow/graph/elementwise.hpp"
#include "staticflow/graph/leaf.hpp"
#include "staticflow/graph/shape_ops.hpp"

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
  if constexpr (std::is_floating_point_v<typename B::value_type>) return xsimd::isnan(a);
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
template <class T> struct simd_op<op::exp, T> {
  static constexpr bool supported = true;
  template <class B> STATICFLOW_INLINE static B apply(const B& a) { return xsimd::exp(a); }
};
template <class T> struct simd_op<op::log, T> {
  static constexpr bool supported = true;
  template <class B> STATICFLOW_INLINE static B apply(const B& a) { return xsimd::log(a); }
};
template <class T> struct simd_op<op::tanh, T> {
  static constexpr bool supported = true;
  template <class B> STATICFLOW_INLINE static B apply(const B& a) { return xsimd::tanh(a); }
};
template <class T> struct simd_op<op::sigmoid, T> {
  static constexpr bool supported = true;
  template <class B> STATICFLOW_INLINE static B apply(const B& a) { return B(T(1)) / (B(T(1)) + xsimd::exp(-a)); }
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
  template <class B> STATICFLOW_INLINE static B apply(const B& a, const B& b) { return xsimd::pow(a, b); }
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

// ---- which graphs vectorize (for lane dtype T) ----
template <class T, class N>
struct vectorizes : std::false_type {};

// A value of the graph is either a lane value (dtype T) or a mask (bool).
template <class T, class V>
inline constexpr bool lane_or_mask = std::is_same_v<V, T> || std::is_same_v<V, bool>;

template <class T, std::size_t I, class S>
struct vectorizes<T, graph::argument<I, T, S>> : std::true_type {};
template <class T, class V>
struct vectorizes<T, graph::literal<V>> : std::bool_constant<lane_or_mask<T, V>> {};
template <class T, class V, V X>
struct vectorizes<T, graph::static_literal<V, X>> : std::bool_constant<lane_or_mask<T, V>> {};
template <class T, class Op, class A>
struct vectorizes<T, graph::unary<Op, A>>
    : std::bool_constant<simd_op<Op, T>::supported &&
                         lane_or_mask<T, typename graph::unary<Op, A>::compute_type> &&
                         vectorizes<T, A>::value> {};
template <class T, class Op, class A, class B>
struct vectorizes<T, graph::binary<Op, A, B>>
    : std::bool_constant<simd_op<Op, T>::supported &&
                         lane_or_mask<T, typename graph::binary<Op, A, B>::compute_type> &&
                         vectorizes<T, A>::value && vectorizes<T, B>::value> {};
template <class T, class C, class A, class B>
struct vectorizes<T, graph::select<C, A, B>>
    : std::bool_constant<std::is_same_v<typename graph::select<C, A, B>::value_type, T> &&
                         vectorizes<T, C>::value && vectorizes<T, A>::value && vectorizes<T, B>::value> {};
template <class T, class U, class A>
struct vectorizes<T, graph::cast<U, A>>
    : std::bool_constant<lane_or_mask<T, U> && lane_or_mask<T, typename A::value_type> &&
                         vectorizes<T, A>::value> {};

template <class T, class S, class A>
struct vectorizes<T, graph::broadcast<S, A>> : vectorizes<T, A> {};
template <class T, class A, class R>
struct vectorizes<T, graph::broadcast_as<A, R>> : vectorizes<T, A> {};

/// True when the fused loop for graph N uses xsimd batches (the result must not be bool).
template <class N>
inline constexpr bool takes_simd_path =
    !std::is_same_v<typename N::value_type, bool> && vectorizes<typename N::value_type, N>::value;

// ---- batch evaluation: B is xsimd::batch<T>, masks are B::batch_bool_type ----
template <class B, std::size_t I, class T, class S, class Cursors>
STATICFLOW_INLINE B simd_at(const graph::argument<I, T, S>&, const Cursors& c, std::size_t j) {
  return std::get<I>(c).template batch<B>(j);
}
template <class B, class V, class Cursors>
STATICFLOW_INLINE auto simd_at(const graph::literal<V>& n, const Cursors&, std::size_t) {
  if constexpr (std::is_same_v<V, bool>) return typename B::batch_bool_type(n.value);
  else return B(n.value);
}
template <class B, class V, V X, class Cursors>
STATICFLOW_INLINE auto simd_at(const graph::static_literal<V, X>&, const Cursors&, std::size_t) {
  if constexpr (std::is_same_v<V, bool>) return typename B::batch_bool_type(X);
  else return B(X);
}
// Declared before any definition (see scalar_eval.hpp: lookup of a child's overload).
template <class B, class Op, class A, class Cursors>
STATICFLOW_INLINE auto simd_at(const graph::unary<Op, A>& n, const Cursors& c, std::size_t j);
template <class B, class Op, class A, class X, class Cursors>
STATICFLOW_INLINE auto simd_at(const graph::binary<Op, A, X>& n, const Cursors& c, std::size_t j);
template <class B, class C, class A, class X, class Cursors>
STATICFLOW_INLINE B simd_at(const graph::select<C, A, X>& n, const Cursors& c, std::size_t j);
template <class B, class U, class A, class Cursors>
STATICFLOW_INLINE auto simd_at(const graph::cast<U, A>& n, const Cursors& c, std::size_t j);
template <class B, class S, class A, class Cursors>
STATICFLOW_INLINE auto simd_at(const graph::broadcast<S, A>& n, const Cursors& c, std::size_t j);
template <class B, class A, class R, class Cursors>
STATICFLOW_INLINE auto simd_at(const graph::broadcast_as<A, R>& n, const Cursors& c, std::size_t j);

template <class B, class Op, class A, class Cursors>
STATICFLOW_INLINE auto simd_at(const graph::unary<Op, A>& n, const Cursors& c, std::size_t j) {
  return simd_op<Op, typename B::value_type>::apply(simd_at<B>(n.a, c, j));
}
template <class B, class Op, class A, class X, class Cursors>
STATICFLOW_INLINE auto simd_at(const graph::binary<Op, A, X>& n, const Cursors& c, std::size_t j) {
  return simd_op<Op, typename B::value_type>::apply(simd_at<B>(n.a, c, j), simd_at<B>(n.b, c, j));
}
template <class B, class C, class A, class X, class Cursors>
STATICFLOW_INLINE B simd_at(const graph::select<C, A, X>& n, const Cursors& c, std::size_t j) {
  return xsimd::select(simd_at<B>(n.c, c, j), simd_at<B>(n.a, c, j), simd_at<B>(n.b, c, j));
}
template <class B, class U, class A, class Cursors>
STATICFLOW_INLINE auto simd_at(const graph::cast<U, A>& n, const Cursors& c, std::size_t j) {
  using T = typename B::value_type;
  using From = typename A::value_type;
  auto v = simd_at<B>(n.a, c, j);
  if constexpr (std::is_same_v<U, From>) return v;
  else if constexpr (std::is_same_v<U, bool>) return v != B(T(0));    // lane -> mask
  else return xsimd::select(v, B(T(1)), B(T(0)));                    // mask -> lane
}

template <class B, class S, class A, class Cursors>
STATICFLOW_INLINE auto simd_at(const graph::broadcast<S, A>& n, const Cursors& c, std::size_t j) {
  return simd_at<B>(n.a, c, j);
}
template <class B, class A, class R, class Cursors>
STATICFLOW_INLINE auto simd_at(const graph::broadcast_as<A, R>& n, const Cursors& c, std::size_t j) {
  return simd_at<B>(n.a, c, j);
}

}  // namespace staticflow::cpu::detail
