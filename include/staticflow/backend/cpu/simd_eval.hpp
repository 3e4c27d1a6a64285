// staticflow/backend/cpu/simd_eval.hpp -- one xsimd batch of a graph, and the compile-time rule for
// which graphs take this path.
//
// A graph is vectorized when every tensor value in it has the lane dtype T of its result (bool
// values in between are xsimd::batch_bool<T>, the masks of comparisons) and every op has a batch
// form (backend/cpu/simd_ops.hpp) that matches its scalar semantics. Integer division and remainder have no SIMD
// instruction and stay scalar, as do graphs that mix dtypes (except a cast of a uniform value,
// below); the compiler may still auto-vectorize those loops.
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>

#include <xsimd/xsimd.hpp>

#include "staticflow/core/config.hpp"
#include "staticflow/graph/elementwise.hpp"
#include "staticflow/graph/leaf.hpp"
#include "staticflow/graph/shape_ops.hpp"
#include "staticflow/backend/cpu/scalar_eval.hpp"
#include "staticflow/backend/cpu/simd_ops.hpp"

STATICFLOW_DETAIL_INTRINSICS_BEGIN

namespace staticflow::cpu::detail {

// ---- which graphs vectorize (for lane dtype T) ----
template <class T, class N>
struct vectorizes : std::false_type {};

// A value of the graph is either a lane value (dtype T) or a mask (bool).
template <class T, class V>
inline constexpr bool lane_or_mask = std::is_same<V, T>::value || std::is_same<V, bool>::value;

template <class T, std::size_t I, class S>
struct vectorizes<T, graph::argument<I, T, S>> : std::true_type {};
template <class T, class V>
struct vectorizes<T, graph::literal<V>> : std::bool_constant<lane_or_mask<T, V>> {};
template <class T, class V, auto X>
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
    : std::bool_constant<std::is_same<typename graph::select<C, A, B>::value_type, T>::value &&
                         vectorizes<T, C>::value && vectorizes<T, A>::value && vectorizes<T, B>::value> {};

/// Graphs with one value for the whole loop: literals, and arguments of static size 1 (a
/// broadcast cursor in the flat loop, step 0 along every axis in the row loop).
template <class N>
struct uniform_graph : std::false_type {};
template <std::size_t I, class T, class S>
struct uniform_graph<graph::argument<I, T, S>> : std::bool_constant<S::is_static && S::size == 1> {};
template <class V>
struct uniform_graph<graph::literal<V>> : std::true_type {};
template <class V, auto X>
struct uniform_graph<graph::static_literal<V, X>> : std::true_type {};
template <class Op, class A>
struct uniform_graph<graph::unary<Op, A>> : uniform_graph<A> {};
template <class Op, class A, class B>
struct uniform_graph<graph::binary<Op, A, B>> : std::bool_constant<uniform_graph<A>::value && uniform_graph<B>::value> {};
template <class C, class A, class B>
struct uniform_graph<graph::select<C, A, B>>
    : std::bool_constant<uniform_graph<C>::value && uniform_graph<A>::value && uniform_graph<B>::value> {};
template <class U, class A>
struct uniform_graph<graph::cast<U, A>> : uniform_graph<A> {};

/// A cast to the lane dtype vectorizes when its operand does, or when the operand is uniform,
/// whatever its dtype: that operand is computed once per batch on the scalar path and splatted.
/// So `x * sf::cast<float>(n)` with an int scalar n (the 1 / count of a mean's gradient) stays a
/// SIMD loop instead of making the whole graph scalar.
template <class T, class U, class A>
struct vectorizes<T, graph::cast<U, A>>
    : std::bool_constant<lane_or_mask<T, U> &&
                         ((lane_or_mask<T, typename A::value_type> && vectorizes<T, A>::value) ||
                          uniform_graph<A>::value)> {};

template <class T, class S, class A>
struct vectorizes<T, graph::broadcast<S, A>> : vectorizes<T, A> {};
template <class T, class A, class R>
struct vectorizes<T, graph::broadcast_as<A, R>> : vectorizes<T, A> {};

/// Whether elementwise graph N computes a costly batch function (simd_ops.hpp) anywhere.
template <class N>
struct has_costly_batch : std::false_type {};
template <class Op, class A>
struct has_costly_batch<graph::unary<Op, A>> : std::bool_constant<costly_batch<Op> || has_costly_batch<A>::value> {};
template <class Op, class A, class B>
struct has_costly_batch<graph::binary<Op, A, B>>
    : std::bool_constant<costly_batch<Op> || has_costly_batch<A>::value || has_costly_batch<B>::value> {};
template <class C, class A, class B>
struct has_costly_batch<graph::select<C, A, B>>
    : std::bool_constant<has_costly_batch<C>::value || has_costly_batch<A>::value || has_costly_batch<B>::value> {};
template <class U, class A>
struct has_costly_batch<graph::cast<U, A>> : has_costly_batch<A> {};
template <class S, class A>
struct has_costly_batch<graph::broadcast<S, A>> : has_costly_batch<A> {};
template <class A, class R>
struct has_costly_batch<graph::broadcast_as<A, R>> : has_costly_batch<A> {};

/// True when the fused loop for graph N uses xsimd batches (the result must be a number, not bool:
/// strings stay on the scalar path).
template <class N>
inline constexpr bool takes_simd_path = [] {
  using T = typename N::value_type;
  if constexpr (std::is_same<T, bool>::value || !std::is_arithmetic<T>::value) return false;
  else return vectorizes<T, N>::value;
}();

// ---- batch evaluation: B is xsimd::batch<T>, masks are B::batch_bool_type ----
template <class B, std::size_t I, class T, class S, class Cursors>
STATICFLOW_INLINE B simd_at(const graph::argument<I, T, S>&, const Cursors& c, std::size_t j) {
  return cursor_at<I>(c).template batch<B>(j);
}
template <class B, class V, class Cursors>
STATICFLOW_INLINE auto simd_at(const graph::literal<V>& n, const Cursors&, std::size_t) {
  if constexpr (std::is_same<V, bool>::value) return typename B::batch_bool_type(n.value);
  else return B(n.value);
}
template <class B, class V, auto X, class Cursors>
STATICFLOW_INLINE auto simd_at(const graph::static_literal<V, X>&, const Cursors&, std::size_t) {
  constexpr V value = graph::static_literal<V, X>::constant;
  if constexpr (std::is_same<V, bool>::value) return typename B::batch_bool_type(value);
  else return B(value);
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
  if constexpr (!lane_or_mask<T, From> || !vectorizes<T, A>::value) {
    // a uniform operand (see vectorizes): the scalar path's value, one per batch
    const U value = scalar_at(n, c, j);
    if constexpr (std::is_same<U, bool>::value) return typename B::batch_bool_type(value);
    else return B(value);
  } else {
    auto v = simd_at<B>(n.a, c, j);
    if constexpr (std::is_same<U, From>::value) return v;
    else if constexpr (std::is_same<U, bool>::value) return v != B(T(0));    // lane -> mask
    else return xsimd::select(v, B(T(1)), B(T(0)));                    // mask -> lane
  }
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

STATICFLOW_DETAIL_INTRINSICS_END
