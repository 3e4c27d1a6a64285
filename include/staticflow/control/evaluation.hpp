// staticflow/control/evaluation.hpp -- the backend-neutral half of running control flow: what the
// CPU backend (backend/cpu/control.hpp) and the Thrust backend (backend/thrust/control.hpp) both
// do around their kernels and buffers.
//
//  * tensor arrays: the checks of a write (negative index, element shape, a fixed size), the
//    extents an array takes (an array holding nothing adopts the first element's extents; a
//    dynamic-size one grows), the extents of a `with_size(n)` array's zeros;
//  * loops: where each output of a body goes (`loop_output_layout`: a variable, or the index and
//    the element of an in-place tensor-array write) and the room an in-place write makes in a
//    variable's buffer;
//  * a plan's one scalar result (a loop's condition) written to a place the backend gives.
//
// Host code only: the backends' device code stays in their kernels.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "staticflow/core/errors.hpp"
#include "staticflow/core/shape.hpp"

namespace staticflow::detail::control_evaluation {

/// Writes a plan's one scalar result (a loop's condition) to `out`: the target of a run_plan.
template <class T>
struct scalar_target {
  T* out;
  template <std::size_t J, std::size_t R>
  T* allocate(const extents<R>&) const {
    return out;
  }
};

/// Checks a tensor-array write of an element of extents `ve` at `index` into an array of extents
/// `array` and returns the array's leading extent after it (grown when `grows`). An array that
/// holds no elements takes its element extents from `ve` (written into `array`): an empty one,
/// or one made with_size(n) whose element extents are not known until then (n rows of extent 0;
/// a scan's results over a carry of run-time shape).
template <std::size_t R, std::size_t ER>
std::size_t checked_write(std::int64_t index, extents<R>& array, const extents<ER>& ve, bool grows) {
  static_assert(ER + 1 == R);
  if (index < 0) throw shape_error("tensor_array::write: index " + std::to_string(index) + " is negative");
  const std::size_t rows = array[0];
  if (product(array) == 0)
    for (std::size_t d = 0; d < ER; ++d) array[d + 1] = ve[d];
  extents<ER> element{};
  for (std::size_t d = 0; d < ER; ++d) element[d] = array[d + 1];
  if (element != ve)
    throw shape_error("tensor_array::write: the element has shape " + extents_string(ve) +
                      ", the array's elements have shape " + extents_string(element));
  if (static_cast<std::uint64_t>(index) >= rows && !grows)
    throw shape_error("tensor_array::write: index " + std::to_string(index) +
                      " is out of range for a tensor array of size " + std::to_string(rows) +
                      " (its size is fixed; make it with dynamic_size to let it grow)");
  return std::max(rows, static_cast<std::size_t>(index) + 1);
}

/// A leading extent of sf::dyn is a size the array may grow to; a static one is fixed.
template <class Shape>
inline constexpr bool leading_extent_grows = Shape::dims[0] == dyn;

/// The extents of a tensor-array write outside a loop (a copy of the array with one element
/// replaced): the array's `ae`, the leading extent grown past `index` where allowed.
template <class ArrayShape, std::size_t R, std::size_t ER>
extents<R> written_array_extents(std::int64_t index, const extents<R>& ae, const extents<ER>& ve, bool dynamic_size) {
  extents<R> re = ae;
  re[0] = checked_write(index, re, ve, dynamic_size && leading_extent_grows<ArrayShape>);
  return re;
}

/// The extents of `count` zero elements of a tensor array of shape S (its run-time element
/// extents 0 until the first write sets them).
template <class S>
extents<S::rank> zero_elements_extents(std::int64_t count) {
  if (count < 0) throw shape_error("tensor_array: the size " + std::to_string(count) + " is negative");
  extents<S::rank> ext = S::dims;
  for (std::size_t d = 0; d < S::rank; ++d)
    if (ext[d] == dyn) ext[d] = d == 0 ? static_cast<std::size_t>(count) : 0;
  return ext;
}

/// Makes room in loop variable `b` (a backend's buffer with extents `ext` and, where it may grow,
/// `grow_leading(rows)`, which keeps its rows and zero-fills the new ones) for the in-place write
/// of an element of extents `value_ext` at `index`: the element extents adopted by an array that
/// holds nothing (whose old rows then count for nothing: every row starts as zeros), the rows
/// added to a dynamic-size array.
template <class Buffer, std::size_t ER>
void make_room_for_write(Buffer& b, std::int64_t index, const extents<ER>& value_ext, bool grows) {
  constexpr bool growable = requires { b.grow_leading(std::size_t{}); };
  auto ext = b.ext;
  const std::size_t rows = checked_write(index, ext, value_ext, grows && growable);
  if constexpr (growable) {
    if (ext != b.ext || rows != ext[0]) {
      if (ext != b.ext) ext[0] = 0;
      b.ext = ext;
      b.grow_leading(rows);
    }
  }
}

/// An in-place write's staging where variable K is written whole instead.
struct no_staging {};

/// Where each output of a loop body goes: loop variable k's value, or, for a variable written in
/// place (`ta = ta.write(i, v)`), two outputs: the index (part 0) then the element (part 1).
template <bool... InPlace>
struct loop_output_layout {
  static constexpr std::size_t count = (std::size_t{0} + ... + (InPlace ? 2 : 1));
  /// (variable, part) of each output
  static constexpr auto table = [] {
    constexpr bool in_place[] = {InPlace..., false};  // (one more: a loop may have no variable)
    std::array<std::pair<std::size_t, std::size_t>, count> t{};
    std::size_t j = 0;
    for (std::size_t k = 0; k < sizeof...(InPlace); ++k) {
      t[j++] = {k, 0};
      if (in_place[k]) t[j++] = {k, 1};
    }
    return t;
  }();
  /// The first output of variable k (its value, or the index of its in-place write).
  static constexpr std::size_t first_output(std::size_t k) {
    for (std::size_t j = 0; j < count; ++j)
      if (table[j].first == k) return j;
    return 0;
  }
};

}  // namespace staticflow::detail::control_evaluation
