// staticflow/backend/cpu/scalar_eval.hpp -- one element of a graph, computed with the ops' scalar
// reference semantics. Used for loop tails and for graphs the SIMD path does not cover.
#pragma once

#include <cstddef>
#include <tuple>

#include "staticflow/core/config.hpp"
#include "staticflow/graph/elementwise.hpp"
#include "staticflow/graph/leaf.hpp"
#include "staticflow/graph/shape_ops.hpp"
#include "staticflow/graph/traversal.hpp"

namespace staticflow::cpu::detail {

template <std::size_t I, class T, class S, class Cursors>
STATICFLOW_INLINE T scalar_at(const graph::argument<I, T, S>&, const Cursors& c, std::size_t j) {
  return std::get<I>(c).scalar(j);
}
template <class T, class Cursors>
STATICFLOW_INLINE T scalar_at(const graph::literal<T>& n, const Cursors&, std::size_t) {
  return n.value;
}
template <class T, T V, class Cursors>
STATICFLOW_INLINE T scalar_at(const graph::static_literal<T, V>&, const Cursors&, std::size_t) {
  return V;  // a constant the compiler sees
}
template <class Op, class A, class Cursors>
STATICFLOW_INLINE auto scalar_at(const graph::unary<Op, A>& n, const Cursors& c, std::size_t j) {
  using C = typename graph::unary<Op, A>::compute_type;
  return Op::apply(static_cast<C>(scalar_at(n.a, c, j)));
}
template <class Op, class A, class B, class Cursors>
STATICFLOW_INLINE auto scalar_at(const graph::binary<Op, A, B>& n, const Cursors& c, std::size_t j) {
  using C = typename graph::binary<Op, A, B>::compute_type;
  return Op::apply(static_cast<C>(scalar_at(n.a, c, j)), static_cast<C>(scalar_at(n.b, c, j)));
}
// `x % d == 0` with a literal d that is a power of two (`m % 2 == 0`): the remainder of
// truncating division is zero exactly when the low bits are, whatever x's sign, so the sign
// fix-up of the remainder is skipped (a compiler does this for C++'s `m % 2 == 0`, but not
// through our divide rules). The test on d costs nothing when d is a constant the compiler
// sees (a static value, or a plan traced at compile time) and is loop-invariant otherwise.
template <class A, class D, class Z, class Cursors>
  requires(graph::detail::is_literal<D>::value && graph::detail::is_literal<Z>::value &&
           std::is_integral_v<typename D::value_type> && !std::is_same_v<typename D::value_type, bool> &&
           std::is_same_v<typename A::value_type, typename D::value_type> &&
           std::is_same_v<typename Z::value_type, typename D::value_type>)
STATICFLOW_INLINE bool scalar_at(const graph::binary<op::equal, graph::binary<op::mod, A, D>, Z>& n, const Cursors& c,
                                 std::size_t j) {
  using T = typename D::value_type;
  const T d = scalar_at(n.a.b, c, j);
  if (scalar_at(n.b, c, j) == T(0) && d > T(0) && (d & (d - T(1))) == T(0))
    return (scalar_at(n.a.a, c, j) & (d - T(1))) == T(0);
  return op::equal::apply(op::mod::apply(scalar_at(n.a.a, c, j), d), scalar_at(n.b, c, j));
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

}  // namespace staticflow::cpu::detail
