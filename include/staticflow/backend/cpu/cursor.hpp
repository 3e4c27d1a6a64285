// staticflow/backend/cpu/cursor.hpp -- how a fused loop reads one argument.
//
// A loop runs over the last axis of the result (or over all of it when no argument broadcasts).
// Each argument gets a cursor: contiguous, a broadcast scalar, or strided (step 0 or 1 along the
// inner axis, moved to the start of each row by the outer loop).
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>

#include <xsimd/xsimd.hpp>

#include "staticflow/core/config.hpp"
#include "staticflow/core/value_pack.hpp"

namespace staticflow::cpu::detail {

/// Argument I's cursor. The kernels' cursors are value_packs (an aggregate: building a
/// std::tuple of one cursor per argument, with its constructors' constraints, was a fifth of a
/// gradient test's compile time); the loops of backend/cpu/control.hpp still pass std::tuples.
template <std::size_t I, class... C>
STATICFLOW_INLINE constexpr const auto& cursor_at(const staticflow::detail::value_pack<C...>& c) {
  return staticflow::detail::pack_get<I>(c);
}
template <std::size_t I, class... C>
STATICFLOW_INLINE constexpr const auto& cursor_at(const std::tuple<C...>& c) {
  return staticflow::detail::get<I>(c);
}

/// An argument the graph does not read (or a static value).
struct unused_cursor {};

/// Reads element j at data[j]: the argument has the result's shape.
template <class T>
struct contiguous_cursor {
  const T* data;
  STATICFLOW_INLINE T scalar(std::size_t j) const { return data[j]; }
  template <class B> STATICFLOW_INLINE B batch(std::size_t j) const { return B::load_unaligned(data + j); }
};

/// Every element is the same value: the argument holds one element.
template <class T>
struct broadcast_cursor {
  T value;
  STATICFLOW_INLINE T scalar(std::size_t) const { return value; }
  template <class B> STATICFLOW_INLINE B batch(std::size_t) const { return B(value); }
};

/// A loop variable's lanes held in a register (the element-local while loop: backend/cpu/control.hpp).
template <class B>
struct register_cursor {
  B value;
  template <class B2> STATICFLOW_INLINE B batch(std::size_t) const {
    static_assert(std::is_same<B, B2>::value);
    return value;
  }
  // Read as a uniform value (simd_eval.hpp's casts) only when the variable has one element: lane 0.
  STATICFLOW_INLINE typename B::value_type scalar(std::size_t) const { return value.get(0); }
};

/// Reads along a row with a run-time step (1, or 0 where the inner axis is broadcast).
template <class T, std::size_t Rank>
struct strided_cursor {
  const T* base;
  std::array<std::size_t, Rank> strides;  // per result axis; 0 where broadcast
  const T* row = nullptr;
  std::size_t step = 0;
  STATICFLOW_INLINE T scalar(std::size_t j) const { return row[j * step]; }
  template <class B> STATICFLOW_INLINE B batch(std::size_t j) const {
    return step ? B::load_unaligned(row + j) : B(*row);
  }
  void seek(const std::array<std::size_t, Rank>& index) {
    std::size_t offset = 0;
    for (std::size_t d = 0; d + 1 < Rank; ++d) offset += index[d] * strides[d];
    row = base + offset;
  }
};

/// A strided cursor whose step along the row is 1 (no argument broadcasts along it): no test per
/// batch. The row loop of a graph that reads a strided view takes these when every step is 1.
template <class T, std::size_t Rank>
struct unit_step_cursor : strided_cursor<T, Rank> {
  STATICFLOW_INLINE T scalar(std::size_t j) const { return this->row[j]; }
  template <class B> STATICFLOW_INLINE B batch(std::size_t j) const { return B::load_unaligned(this->row + j); }
};

}  // namespace staticflow::cpu::detail
