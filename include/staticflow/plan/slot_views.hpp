// staticflow/plan/slot_views.hpp -- slots that are views: a slice (or split piece) that is one
// contiguous stretch of a value the call already holds is read where it lies, not copied.
//
// A shifted-slice stencil, `u[1:-1] + 0.1 * (u[2:] - 2 u[1:-1] + u[:-2])`, made three copies of u
// before its one fused loop (5x the time of a hand loop at 1M elements); as views, the loop reads u
// three times at three offsets. Which slices qualify is graph::contiguous_stretch (whole trailing
// axes, one axis cut with step 1, one coordinate on each axis left of it): a 1-D slice, rows of a
// matrix, a stretch of one row, a split piece along the first axis. Others (columns, steps,
// reversals) stay copies. reshape, expand_dims and squeeze keep the order of the elements: always
// views.
//
// A view is only as stable as what it points into, so the operand must be a value nothing writes
// during the rest of the call: one of the values visible to the plan (a function's arguments, the
// current values of the loops it runs in, which the loops double-buffer whenever the body has a
// slot) or a slot computed into a buffer of its own. Not a self-allocating slot's values: an
// external value is a variable's storage, which an assignment may overwrite in place, and a cond
// or loop result may point at one. Outputs over the input stay safe: the overlap tests of the
// backends see a view as the stretch of memory it is.
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticflow/core/shape.hpp"
#include "staticflow/graph/axis_map.hpp"
#include "staticflow/graph/shape_ops.hpp"
#include "staticflow/graph/traversal.hpp"

namespace staticflow::plan {
namespace detail {
// The slot nodes that may be views: the axis maps (strided slices, split pieces, pads, ...: a view
// where the rules make a stretch), the shape ops that keep the elements' order, and the old
// one-axis slice.
template <class N>
struct viewable : std::false_type {};
template <class Kind, class A>
struct viewable<graph::axis_map<Kind, A>> : std::true_type {};
template <class Kind, class A>
  requires(Kind::keeps_order)
struct viewable<graph::rearrange<Kind, A>> : std::true_type {};
template <int Axis, class A>
struct viewable<graph::rearrange<graph::slice_kind<Axis>, A>> : std::true_type {};

// Whether value A::index of the views has data at run time (a static value has none).
template <class A, class Views>
constexpr bool has_data = requires(const std::remove_cvref_t<std::tuple_element_t<A::index, Views>>& v) { v.data; };
}  // namespace detail

/// Whether slot K of Plan (whose fused loops see ArgCount values before the slots' views) reads, as
/// its operand `a`, a value that nothing writes during the rest of the call: one of the ArgCount
/// values or a slot that is not self-allocating. (A backend may view other slot kinds over such an
/// operand: the CPU backend's x[i], whose index it reads on the host.)
template <std::size_t ArgCount, std::size_t K, class Plan>
constexpr bool reads_stable_operand() {
  using node_type = std::tuple_element_t<K, typename Plan::slots_type>;
  using operand = std::remove_cvref_t<decltype(std::declval<const node_type&>().a)>;
  if constexpr (!graph::detail::is_argument<operand>::value) {
    return false;
  } else if constexpr (operand::index < ArgCount) {
    return true;
  } else {
    constexpr std::size_t slot = [] {  // the slot whose views include the operand
      std::size_t k = 0;
      while (Plan::view_bases[k + 1] <= operand::index - ArgCount) ++k;
      return k;
    }();
    return !requires { std::tuple_element_t<slot, typename Plan::slots_type>::self_allocating; };
  }
}

/// Whether slot K of Plan may be a view into its operand: a viewable node (above) that
/// reads_stable_operand. Whether it is one is decided per call, by view_in_operand.
template <std::size_t ArgCount, std::size_t K, class Plan>
constexpr bool may_view_operand() {
  if constexpr (!detail::viewable<std::tuple_element_t<K, typename Plan::slots_type>>::value) return false;
  else return reads_stable_operand<ArgCount, K, Plan>();
}

/// The first element of axis map n's result inside its operand's view (views: the plan's values,
/// each with `data` and `ext`), when the result is a contiguous stretch of it; null otherwise
/// (and for an empty result or an operand with no data at run time: a static value).
template <class Kind, class A, class Views, std::size_t R>
const typename A::value_type* view_in_operand(const graph::axis_map<Kind, A>& n, const Views& views, const extents<R>& out_ext) {
  if constexpr (!detail::has_data<A, Views>) {
    return nullptr;
  } else {
    const auto& operand = std::get<A::index>(views);
    const std::ptrdiff_t offset = graph::contiguous_stretch(n.params.rules(operand.ext, out_ext));
    return offset < 0 ? nullptr : operand.data + offset;
  }
}

/// reshape, expand_dims, squeeze: the operand's elements in their order (null when empty); the old
/// one-axis slice: where its elements are a stretch (every axis before the sliced one of extent 1).
template <class Kind, class A, class Views, std::size_t R>
  requires(Kind::keeps_order)
const typename A::value_type* view_in_operand(const graph::rearrange<Kind, A>&, const Views& views, const extents<R>& out_ext) {
  if constexpr (!detail::has_data<A, Views>) return nullptr;
  else return staticflow::detail::product(out_ext) == 0 ? nullptr : std::get<A::index>(views).data;
}
template <int Axis, class A, class Views, std::size_t R>
const typename A::value_type* view_in_operand(const graph::rearrange<graph::slice_kind<Axis>, A>& n, const Views& views,
                                              const extents<R>& out_ext) {
  if constexpr (!detail::has_data<A, Views>) {
    return nullptr;
  } else {
    const auto& operand = std::get<A::index>(views);
    if (staticflow::detail::product(out_ext) == 0) return nullptr;
    const std::size_t ax = staticflow::detail::checked_axis(Axis, R);
    std::size_t inner = 1;
    for (std::size_t d = 0; d < R; ++d) {
      if (d < ax && operand.ext[d] != 1) return nullptr;  // several runs, one per outer coordinate
      if (d > ax) inner *= operand.ext[d];
    }
    return operand.data + n.params.begin * inner;
  }
}

}  // namespace staticflow::plan
