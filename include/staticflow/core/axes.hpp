// staticflow/core/axes.hpp -- axis arguments: compile-time (`sf::axes<1, -1>`) or a plain run-time
// int, as TensorFlow users write them; negative axes count from the end.
#pragma once

#include <array>
#include <cstddef>
#include <string>

#include "staticflow/core/errors.hpp"

namespace staticflow {

/// Compile-time axes, e.g. `sf::reduce_sum(x, sf::axes<-1>{})`.
template <int... A>
struct axes {
  static constexpr std::size_t count = sizeof...(A);
  static constexpr std::array<int, sizeof...(A)> values{A...};
};

/// No axis given: the operation covers every axis.
struct all_axes {};

/// One axis known only at run time (a plain int argument); the result's dims become `sf::dyn`.
struct runtime_axis {
  int axis;
};

/// `sf::keepdims` as the last argument of a reduction keeps reduced axes with extent 1.
struct keepdims_t {};
inline constexpr keepdims_t keepdims{};

namespace detail {
/// A compile-time axis normalized into [0, rank): -1 is the last axis. Out of range is a compile
/// error in the callers, which check `axis_in_range`.
constexpr int normalize_axis(int axis, std::size_t rank) { return axis < 0 ? axis + static_cast<int>(rank) : axis; }
constexpr bool axis_in_range(int axis, std::size_t rank) {
  return axis >= -static_cast<int>(rank) && axis < static_cast<int>(rank);
}

[[noreturn]] [[gnu::cold]] [[gnu::noinline]] inline void throw_axis_out_of_range(int axis, std::size_t rank) {
  throw shape_error("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
}

/// The run-time form: throws shape_error for an axis out of range. (The check is inlined and the
/// message built out of line, so that an axis the compiler knows costs nothing.)
inline std::size_t checked_axis(int axis, std::size_t rank) {
  if (!axis_in_range(axis, rank)) throw_axis_out_of_range(axis, rank);
  return static_cast<std::size_t>(normalize_axis(axis, rank));
}
}  // namespace detail
}  // namespace staticflow
