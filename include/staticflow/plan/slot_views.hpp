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
//
// On the CPU backend a slice that is not a stretch but reads its operand with fixed steps, the
// last step 1 (the five slices of a 2-D five-point stencil, `u[1:-1, 1:-1]`, all cut the columns),
// is a strided view as well, when every reader of the slot is a fused loop: those read it row by
// row through strided cursors. Every other kernel reads its operands as consecutive elements, so a
// slot that one of them reads stays a copy (`strided_view_slots`).
#pragma once

#include <array>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/core/shape.hpp"
#include "staticflow/graph/axis_map.hpp"
#include "staticflow/graph/elementwise.hpp"
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

namespace detail {
// The nodes a fused loop evaluates element by element where they stand in a slot or an output
// (a stored node's slot is the fused loop of what it stores).
template <class N> struct elementwise_reader : std::false_type {};
template <class Op, class A> struct elementwise_reader<graph::unary<Op, A>> : std::true_type {};
template <class Op, class A, class B> struct elementwise_reader<graph::binary<Op, A, B>> : std::true_type {};
template <class C, class A, class B> struct elementwise_reader<graph::select<C, A, B>> : std::true_type {};
template <class T, class A> struct elementwise_reader<graph::cast<T, A>> : std::true_type {};
template <class A, class R> struct elementwise_reader<graph::broadcast_as<A, R>> : std::true_type {};
template <class A> struct elementwise_reader<graph::stored<A>> : std::true_type {};

/// Whether graph N reads value V only through elementwise nodes from its root down.
template <std::size_t V, class N>
constexpr bool reads_only_elementwise() {
  if constexpr (!graph::uses_argument<V, N> || graph::detail::is_argument<N>::value) {
    return true;
  } else if constexpr (!elementwise_reader<N>::value) {
    return false;
  } else {
    using kids = decltype(graph::children(std::declval<const N&>()));
    return []<std::size_t... K>(std::index_sequence<K...>) {
      return (reads_only_elementwise<V, std::remove_cvref_t<std::tuple_element_t<K, kids>>>() && ...);
    }(std::make_index_sequence<std::tuple_size<kids>::value>{});
  }
}

template <class N> struct is_axis_map : std::false_type {};
template <class Kind, class A> struct is_axis_map<graph::axis_map<Kind, A>> : std::true_type {};

template <std::size_t ArgCount, std::size_t K, class Plan>
constexpr bool strided_view_slot() {
  if constexpr (!is_axis_map<std::tuple_element_t<K, typename Plan::slots_type>>::value || !may_view_operand<ArgCount, K, Plan>()) {
    return false;
  } else {
    constexpr std::size_t value = ArgCount + Plan::view_bases[K];
    return []<std::size_t... J>(std::index_sequence<J...>) {
      return (reads_only_elementwise<value, std::tuple_element_t<J, typename Plan::slots_type>>() && ...);
    }(std::make_index_sequence<Plan::slot_count>{}) &&
           []<std::size_t... J>(std::index_sequence<J...>) {
      return (reads_only_elementwise<value, std::tuple_element_t<J, typename Plan::outputs_type>>() && ...);
    }(std::make_index_sequence<Plan::output_count>{});
  }
}
}  // namespace detail

/// Per value of Plan's slots: whether it may be a strided view (the CPU backend's
/// strided_tensor_view): an axis map that may view its operand and whose every reader, later
/// slots and outputs, is a fused loop. All false for a plan with no axis map.
template <std::size_t ArgCount, class Plan>
inline constexpr auto strided_view_slots = [] {
  std::array<bool, Plan::view_count> strided{};
  [&]<std::size_t... K>(std::index_sequence<K...>) {
    ((strided[Plan::view_bases[K]] = detail::strided_view_slot<ArgCount, K, Plan>()), ...);
  }(std::make_index_sequence<Plan::slot_count>{});
  return strided;
}();

/// The first element of axis map n's result inside its operand's view, and in `strides` how far
/// apart neighbours along each axis lie there, when it reads the operand with fixed steps
/// (graph::strided_layout); null otherwise (and for an empty result or a static operand).
template <class Kind, class A, class Views, std::size_t R>
const typename A::value_type* strided_view_in_operand(const graph::axis_map<Kind, A>& n, const Views& views, const extents<R>& out_ext,
                                                      extents<R>& strides) {
  if constexpr (!detail::has_data<A, Views>) {
    return nullptr;
  } else {
    const auto& operand = staticflow::detail::get<A::index>(views);
    std::size_t offset = 0;
    return graph::strided_layout(n.params.rules(operand.ext, out_ext), offset, strides) ? operand.data + offset : nullptr;
  }
}

/// The first element of axis map n's result inside its operand's view (views: the plan's values,
/// each with `data` and `ext`), when the result is a contiguous stretch of it; null otherwise
/// (and for an empty result or an operand with no data at run time: a static value).
template <class Kind, class A, class Views, std::size_t R>
const typename A::value_type* view_in_operand(const graph::axis_map<Kind, A>& n, const Views& views, const extents<R>& out_ext) {
  if constexpr (!detail::has_data<A, Views>) {
    return nullptr;
  } else {
    const auto& operand = staticflow::detail::get<A::index>(views);
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
  else return staticflow::detail::product(out_ext) == 0 ? nullptr : staticflow::detail::get<A::index>(views).data;
}
template <int Axis, class A, class Views, std::size_t R>
const typename A::value_type* view_in_operand(const graph::rearrange<graph::slice_kind<Axis>, A>& n, const Views& views,
                                              const extents<R>& out_ext) {
  if constexpr (!detail::has_data<A, Views>) {
    return nullptr;
  } else {
    const auto& operand = staticflow::detail::get<A::index>(views);
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
