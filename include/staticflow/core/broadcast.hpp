// staticflow/core/broadcast.hpp -- NumPy broadcasting, at compile time for static dimensions and at
// run time for `dyn` ones.
#pragma once

#include <algorithm>
#include <utility>

#include "staticflow/core/config.hpp"
#include "staticflow/core/errors.hpp"
#include "staticflow/core/shape.hpp"

namespace staticflow {
namespace detail {

// Dimension i (counted from the right) of shape S, or 1 where S has fewer dimensions.
template <class S>
constexpr std::size_t dim_from_right(std::size_t i) {
  return i < S::rank ? S::dims[S::rank - 1 - i] : 1;
}

constexpr bool dims_broadcast(std::size_t a, std::size_t b) {
  return a == b || a == 1 || b == 1 || a == dyn || b == dyn;
}

// The result dimension; a `dyn` meeting k != 1 becomes k (the run-time check verifies it).
constexpr std::size_t broadcast_dim(std::size_t a, std::size_t b) {
  if (a == b) return a;
  if (a == 1) return b;
  if (b == 1) return a;
  if (a == dyn) return b;
  return a;  // b == dyn
}

template <class A, class B>
constexpr bool shapes_broadcast() {
  for (std::size_t i = 0; i < std::max(A::rank, B::rank); ++i)
    if (!dims_broadcast(dim_from_right<A>(i), dim_from_right<B>(i))) return false;
  return true;
}

template <class A, class B, std::size_t... I>
auto broadcast_shape_impl(std::index_sequence<I...>) {
  constexpr std::size_t r = sizeof...(I);
  return shape<broadcast_dim(dim_from_right<A>(r - 1 - I), dim_from_right<B>(r - 1 - I))...>{};
}

/// Instantiated only for shapes that do not broadcast; its name puts both shapes in the diagnostic.
template <class LhsShape, class RhsShape>
struct shapes_do_not_broadcast {
  static_assert(shapes_broadcast<LhsShape, RhsShape>(),
                "staticflow: shapes do not broadcast (the two shapes are the arguments of "
                "shapes_do_not_broadcast<lhs, rhs> in this diagnostic)");
  using type = decltype(broadcast_shape_impl<LhsShape, RhsShape>(
      std::make_index_sequence<std::max(LhsShape::rank, RhsShape::rank)>{}));
};
}  // namespace detail

/// The broadcast of two static shapes; a compile error naming both when they do not broadcast.
template <class A, class B>
using broadcast_shape_t = typename detail::shapes_do_not_broadcast<A, B>::type;

namespace detail {
/// The general run-time broadcast (any ranks, extents of 1, the error): out of line and cold, so
/// the inline fast path below stays a compare. By value: a reference would make every caller keep
/// both operands' extents in memory just in case.
template <std::size_t R, std::size_t NA, std::size_t NB>
[[gnu::noinline, gnu::cold]] extents<R> broadcast_extents_general(const extents<NA> a, const extents<NB> b) {
  extents<R> out{};
  for (std::size_t i = 0; i < R; ++i) {
    const std::size_t da = i < NA ? a[NA - 1 - i] : 1;
    const std::size_t db = i < NB ? b[NB - 1 - i] : 1;
    if (da != db && da != 1 && db != 1)
      throw shape_error("shapes " + extents_string(a) + " and " + extents_string(b) +
                        " do not broadcast");
    out[R - 1 - i] = da == 1 ? db : da;
  }
  return out;
}

/// Run-time broadcast of the extents of two operands into a result of rank R (R >= NA, NB).
/// Throws shape_error naming both shapes; nothing has been written when it throws. Operands of
/// the result's rank with equal extents (every elementwise op over same-shaped tensors) take an
/// inline compare; anything else goes to broadcast_extents_general.
template <std::size_t R, std::size_t NA, std::size_t NB>
STATICFLOW_INLINE extents<R> broadcast_extents(const extents<NA>& a, const extents<NB>& b) {
  if constexpr (NA == R && NB == R) {
    bool same = true;
    for (std::size_t i = 0; i < R; ++i) same &= a[i] == b[i];
    if (same) [[likely]] return a;
  } else if constexpr (NA == R && NB == 0) {
    return a;
  } else if constexpr (NB == R && NA == 0) {
    return b;
  }
  return broadcast_extents_general<R>(a, b);
}
}  // namespace detail
}  // namespace staticflow
