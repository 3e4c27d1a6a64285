// staticflow/backend/cpu/scalar_eval.hpp -- one element of a graph, computed with the ops' scalar
// reference semantics. Used for loop tails and for graphs the SIMD path does not cover.
#pragma once

#include <bit>
#include <cstddef>
#include <tuple>
#include <type_traits>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/core/config.hpp"
#include "staticflow/graph/elementwise.hpp"
#include "staticflow/graph/leaf.hpp"
#include "staticflow/graph/shape_ops.hpp"
#include "staticflow/graph/traversal.hpp"

namespace staticflow::cpu::detail {

template <std::size_t I, class T, class S, class Cursors>
STATICFLOW_INLINE T scalar_at(const graph::argument<I, T, S>&, const Cursors& c, std::size_t j) {
  return cursor_at<I>(c).scalar(j);
}
template <class T, class Cursors>
STATICFLOW_INLINE T scalar_at(const graph::literal<T>& n, const Cursors&, std::size_t) {
  return n.value;
}
template <class T, auto V, class Cursors>
STATICFLOW_INLINE T scalar_at(const graph::static_literal<T, V>&, const Cursors&, std::size_t) {
  return graph::static_literal<T, V>::constant;  // a constant the compiler sees
}
// Declared before any definition: a node's children are found by ordinary lookup, not only by
// argument-dependent lookup (which misses these overloads when no cursor type lives in this
// namespace, e.g. a graph that reads no argument).
template <class Op, class A, class Cursors>
STATICFLOW_INLINE auto scalar_at(const graph::unary<Op, A>& n, const Cursors& c, std::size_t j);
template <class Op, class A, class B, class Cursors>
STATICFLOW_INLINE auto scalar_at(const graph::binary<Op, A, B>& n, const Cursors& c, std::size_t j);
template <class Cond, class A, class B, class Cursors>
STATICFLOW_INLINE auto scalar_at(const graph::select<Cond, A, B>& n, const Cursors& c, std::size_t j);
template <class T, class A, class Cursors>
STATICFLOW_INLINE T scalar_at(const graph::cast<T, A>& n, const Cursors& c, std::size_t j);
template <class S, class A, class Cursors>
STATICFLOW_INLINE auto scalar_at(const graph::broadcast<S, A>& n, const Cursors& c, std::size_t j);
template <class A, class R, class Cursors>
STATICFLOW_INLINE auto scalar_at(const graph::broadcast_as<A, R>& n, const Cursors& c, std::size_t j);

template <class Op, class A, class Cursors>
STATICFLOW_INLINE auto scalar_at(const graph::unary<Op, A>& n, const Cursors& c, std::size_t j) {
  using C = typename graph::unary<Op, A>::compute_type;
  return Op::apply(static_cast<C>(scalar_at(n.a, c, j)));
}
// A chain of string concatenations (`a + "-" + b`, sf::strings::join): its parts, left to right,
// so that the result is made in one piece (one copy of each byte, not one per `+`).
template <class N, class Cursors>
STATICFLOW_INLINE auto concatenated_parts(const N& n, const Cursors& c, std::size_t j) {
  if constexpr (requires { requires std::is_same<N, graph::binary<op::add, decltype(n.a), decltype(n.b)>>::value; } &&
                string_dtype<typename N::value_type>)
    return std::tuple_cat(concatenated_parts(n.a, c, j), concatenated_parts(n.b, c, j));
  else
    return std::tuple<string>{scalar_at(n, c, j)};
}

template <class Op, class A, class B, class Cursors>
STATICFLOW_INLINE auto scalar_at(const graph::binary<Op, A, B>& n, const Cursors& c, std::size_t j) {
  using C = typename graph::binary<Op, A, B>::compute_type;
  if constexpr (std::is_same<Op, op::add>::value && string_dtype<C>)
    return staticflow::detail::apply([](const auto&... part) { return staticflow::detail::pooled_string(part...); },
                      concatenated_parts(n, c, j));
  else if constexpr (op::mixed_operands<Op>)
    return Op::apply(scalar_at(n.a, c, j), scalar_at(n.b, c, j));
  else
    return Op::apply(static_cast<C>(scalar_at(n.a, c, j)), static_cast<C>(scalar_at(n.b, c, j)));
}
// `x % d == 0` with a literal d that is a power of two (`m % 2 == 0`): the remainder of
// truncating division is zero exactly when the low bits are, whatever x's sign, so the sign
// fix-up of the remainder is skipped (a compiler does this for C++'s `m % 2 == 0`, but not
// through our divide rules). The test on d costs nothing when d is a constant the compiler
// sees (a static value, or a plan traced at compile time) and is loop-invariant otherwise.
template <class A, class D, class Z, class Cursors>
  requires(graph::detail::is_literal<D>::value && graph::detail::is_literal<Z>::value &&
           std::is_integral<typename D::value_type>::value && !std::is_same<typename D::value_type, bool>::value &&
           std::is_same<typename A::value_type, typename D::value_type>::value &&
           std::is_same<typename Z::value_type, typename D::value_type>::value)
STATICFLOW_INLINE bool scalar_at(const graph::binary<op::equal, graph::binary<op::mod, A, D>, Z>& n, const Cursors& c,
                                 std::size_t j) {
  using T = typename D::value_type;
  const T d = scalar_at(n.a.b, c, j);
  if (scalar_at(n.b, c, j) == T(0) && d > T(0) && (d & (d - T(1))) == T(0))
    return (scalar_at(n.a.a, c, j) & (d - T(1))) == T(0);
  return op::equal::apply(op::mod::apply(scalar_at(n.a.a, c, j), d), scalar_at(n.b, c, j));
}
// `where(x % d == 0, x / d, other)` with x a variable and d a power-of-two literal (Collatz's
// even step): where the first branch is taken x is a multiple of d, so x / d is an exact
// arithmetic shift, without truncating division's sign fix-up (which a compiler cannot drop: it
// does not carry `x % d == 0` into the other expression). As above, the tests on d and on the
// literals are free when they are constants the compiler sees.
template <std::size_t I, class T, class S, class D, class Z, class D2, class B, class Cursors>
  requires(graph::detail::is_literal<D>::value && graph::detail::is_literal<Z>::value &&
           graph::detail::is_literal<D2>::value && std::is_integral<T>::value && std::is_signed<T>::value &&
           std::is_same<typename D::value_type, T>::value && std::is_same<typename Z::value_type, T>::value &&
           std::is_same<typename D2::value_type, T>::value)
STATICFLOW_INLINE auto scalar_at(
    const graph::select<graph::binary<op::equal, graph::binary<op::mod, graph::argument<I, T, S>, D>, Z>,
                        graph::binary<op::divide, graph::argument<I, T, S>, D2>, B>& n,
    const Cursors& c, std::size_t j) {
  using V = typename std::remove_cvref_t<decltype(n)>::value_type;
  const T d = scalar_at(n.c.a.b, c, j);
  if (d > T(0) && (d & (d - T(1))) == T(0) && scalar_at(n.c.b, c, j) == T(0) && scalar_at(n.a.b, c, j) == d) {
    const T x = scalar_at(n.c.a.a, c, j);
    if ((x & (d - T(1))) == T(0)) return static_cast<V>(x >> std::countr_zero(static_cast<std::make_unsigned_t<T>>(d)));
    return static_cast<V>(scalar_at(n.b, c, j));
  }
  return scalar_at(n.c, c, j) ? static_cast<V>(scalar_at(n.a, c, j)) : static_cast<V>(scalar_at(n.b, c, j));
}
template <class Cond, class A, class B, class Cursors>
STATICFLOW_INLINE auto scalar_at(const graph::select<Cond, A, B>& n, const Cursors& c, std::size_t j) {
  using V = typename graph::select<Cond, A, B>::value_type;
  return scalar_at(n.c, c, j) ? static_cast<V>(scalar_at(n.a, c, j)) : static_cast<V>(scalar_at(n.b, c, j));
}
template <class T, class A, class Cursors>
STATICFLOW_INLINE T scalar_at(const graph::cast<T, A>& n, const Cursors& c, std::size_t j) {
  return graph::cast<T, A>::apply(scalar_at(n.a, c, j));
}

template <class S, class A, class Cursors>
STATICFLOW_INLINE auto scalar_at(const graph::broadcast<S, A>& n, const Cursors& c, std::size_t j) {
  return scalar_at(n.a, c, j);
}
template <class A, class R, class Cursors>
STATICFLOW_INLINE auto scalar_at(const graph::broadcast_as<A, R>& n, const Cursors& c, std::size_t j) {
  return scalar_at(n.a, c, j);  // ref gives the extents only
}

}  // namespace staticflow::cpu::detail
