// staticflow/backend/cpu/run_plan.hpp -- running an evaluation plan (plan/plan.hpp) on the CPU:
// its slots in order, each once, then its outputs. A concrete function runs its graph's plan this
// way, and so do the graphs that cond branches and loop bodies hold (backend/cpu/control.hpp).
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/backend/cpu/conv.hpp"
#include "staticflow/backend/cpu/cumulative.hpp"
#include "staticflow/backend/cpu/conv3d.hpp"
#include "staticflow/backend/cpu/depthwise_conv.hpp"
#include "staticflow/backend/cpu/data_movement.hpp"
#include "staticflow/backend/cpu/diagonal.hpp"
#include "staticflow/backend/cpu/fused_outputs.hpp"
#include "staticflow/backend/cpu/gather.hpp"
#include "staticflow/backend/cpu/masking.hpp"
#include "staticflow/backend/cpu/scatter.hpp"
#include "staticflow/backend/cpu/segment.hpp"
#include "staticflow/backend/cpu/index.hpp"
#include "staticflow/backend/cpu/kernel.hpp"
#include "staticflow/backend/cpu/linalg.hpp"
#include "staticflow/backend/cpu/pool.hpp"
#include "staticflow/backend/cpu/reduce.hpp"
#include "staticflow/backend/cpu/random.hpp"
#include "staticflow/backend/cpu/sequence.hpp"
#include "staticflow/backend/cpu/shape_ops.hpp"
#include "staticflow/backend/cpu/sorting.hpp"
#include "staticflow/backend/cpu/unique.hpp"
#include "staticflow/backend/cpu/strings.hpp"
#include "staticflow/interop/xtensor.hpp"
#include "staticflow/plan/arena.hpp"
#include "staticflow/plan/compact_signature.hpp"
#include "staticflow/plan/plan.hpp"
#include "staticflow/plan/slot_views.hpp"

namespace staticflow::cpu {

/// Evaluates a slot node that computes its values itself (cond, loops, tensor-array writes: nodes
/// with `self_allocating`); specialized next to each such node's CPU code.
template <class Node>
struct slot_evaluator;

/// The signature a plan's fused loops see: `Sig` (the values visible to the plan: a function's
/// arguments, plus the variables of the loops it runs in), then the values of its slots.
template <class Sig, class Plan>
using full_signature_t = decltype(std::tuple_cat(std::declval<Sig>(), std::declval<typename Plan::view_specs>()));

namespace detail {
template <class Spec>
using view_for_t = tensor_view<typename Spec::value_type, Spec::shape_type::rank>;
template <class Spec>
using storage_for_t = plan::slot_storage<void, typename Spec::value_type, typename Spec::shape_type>;

template <class Specs>
struct slot_buffers;
template <class... Spec>
struct slot_buffers<std::tuple<Spec...>> {
  // (value_packs: aggregates, so that a plan's views and buffers cost no constructor overloads)
  using views = staticflow::detail::value_pack<view_for_t<Spec>...>;
  using storage = staticflow::detail::value_pack<storage_for_t<Spec>...>;
};

template <class Plan>
inline constexpr bool has_axis_map_slot = []<std::size_t... K>(std::index_sequence<K...>) {
  return (plan::detail::is_axis_map<std::tuple_element_t<K, typename Plan::slots_type>>::value || ...);
}(std::make_index_sequence<Plan::slot_count>{});

/// Whether value V of plan's slots is a strided view (plan::strided_view_slots).
template <std::size_t ArgCount, class Plan, std::size_t V>
constexpr bool strided_slot_value() {
  if constexpr (!has_axis_map_slot<Plan>) return false;
  else return plan::strided_view_slots<ArgCount, Plan>[V];
}

/// The views of plan's slots' values: tensor_view, or strided_tensor_view where
/// strided_slot_value says.
template <std::size_t ArgCount, class Plan, class = std::make_index_sequence<Plan::view_count>>
struct slot_views_of {
  using type = typename slot_buffers<typename Plan::view_specs>::views;
};
template <std::size_t ArgCount, class Plan, std::size_t... V>
  requires has_axis_map_slot<Plan>
struct slot_views_of<ArgCount, Plan, std::index_sequence<V...>> {
  template <std::size_t I>
  using spec = std::tuple_element_t<I, typename Plan::view_specs>;
  using type = staticflow::detail::value_pack<std::conditional_t<strided_slot_value<ArgCount, Plan, V>(),
                                             strided_tensor_view<typename spec<V>::value_type, spec<V>::shape_type::rank>, view_for_t<spec<V>>>...>;
};

/// Whether the views of slot `from`'s values have the types of slot K's (a repeat takes them
/// only then: one of the two may be a strided view, the other not).
template <std::size_t ArgCount, std::size_t K, class Plan>
constexpr bool same_view_kinds(std::size_t from) {
  if constexpr (!has_axis_map_slot<Plan>) {
    (void)from;
    return true;
  } else {
    constexpr auto& strided = plan::strided_view_slots<ArgCount, Plan>;
    for (std::size_t v = 0; v < plan::view_count<std::tuple_element_t<K, typename Plan::slots_type>>::value; ++v)
      if (strided[Plan::view_bases[from] + v] != strided[Plan::view_bases[K] + v]) return false;
    return true;
  }
}
}  // namespace detail

/// Where a self-allocating slot puts its values: `allocate<J>(ext)` gives the buffer of its J-th
/// value (on the stack for a small static shape, else in the call's arena) and points the J-th
/// view at it.
template <std::size_t FirstView, std::size_t FirstStorage, class All, class Storage>
struct slot_outputs {
  All& all;
  Storage& storage;
  plan::arena& arena;

  template <std::size_t J, std::size_t R>
  auto* allocate(const extents<R>& ext) const {
    auto* data = staticflow::detail::get<FirstStorage + J>(storage).get(arena, ext);
    staticflow::detail::get<FirstView + J>(all) = {data, ext};
    return data;
  }
  /// Points the J-th view at data that lives elsewhere (an external value: nothing is copied).
  template <std::size_t J, class T, std::size_t R>
  void point(const T* data, const extents<R>& ext) const {
    staticflow::detail::get<FirstView + J>(all) = {data, ext};
  }
};

/// Where a self-allocating slot that allocates its one value once (`allocates_once`: boolean_mask,
/// where) puts it when it is the function's only output (direct_slot): `where(ext)` checks the
/// caller's container against the extents found (it may throw: nothing is written yet) and gives
/// its memory.
template <std::size_t View, class All, class Where>
struct direct_slot_outputs {
  All& all;
  const Where& where;

  template <std::size_t J, std::size_t R>
  auto* allocate(const extents<R>& ext) const {
    static_assert(J == 0, "staticflow: internal: an allocates_once slot has one value");
    auto* data = where(ext);
    staticflow::detail::get<View>(all) = {data, ext};
    return data;
  }
};

/// No slot is computed into the caller's memory: every slot gets a buffer of its own.
struct no_direct_slot {
  static constexpr std::size_t slot = static_cast<std::size_t>(-1);
};

/// Slot `Slot` (a plain, single-valued slot) is computed straight into the caller's memory:
/// `where(ext)` is called with its extents before anything is written (it may throw) and gives
/// the buffer. Used when a function's only output is that slot (a softmax, matmul or reduction
/// at the root), which then needs no slot buffer and no copy into the output.
template <std::size_t Slot, class Where>
struct direct_slot {
  static constexpr std::size_t slot = Slot;
  Where where;
};

namespace detail {
/// The plan's last slot when the only lowered output `Out` is a bare read of it and that slot is
/// a plain single-valued one (a softmax, matmul or reduction at the graph's root; or a
/// self-allocating one that allocates its value once, `allocates_once`: boolean_mask): call_into
/// can compute it straight into the caller's container. Plan::slot_count when there is none.
template <std::size_t Args, class Plan, class Out>
consteval std::size_t direct_output_slot() {
  constexpr std::size_t none = Plan::slot_count;
  if constexpr (Plan::slot_count == 0 || !graph::detail::is_argument<Out>::value) {
    return none;
  } else {
    constexpr std::size_t last = Plan::slot_count - 1;
    using node_type = std::tuple_element_t<last, typename Plan::slots_type>;
    if constexpr (requires { node_type::self_allocating; } && !requires { node_type::allocates_once; }) return none;
    else if constexpr (plan::view_count<node_type>::value == 1 && Out::index == Args + Plan::template view_base<last>) return last;
    else return none;
  }
}
}  // namespace detail

/// Slots `Slots...` (plain, single-valued slots) are computed straight into memory of the
/// caller's where it says so: `where(std::integral_constant<std::size_t, K>{}, ext)` is called
/// for slot K with its extents before anything is written to it and gives the buffer, or null
/// for a buffer of the slot's own. Used by an effect whose graphs are bare reads of slots (an
/// optimizer's gradients, each a matmul or a reduction): each is computed into its variable's
/// next buffer, not into a slot that is then copied there.
template <class Where, std::size_t... Slots>
struct direct_slots {
  static constexpr std::size_t slot = static_cast<std::size_t>(-1);  // (not one slot: holds_slot)
  Where where;
};

/// Slot `Slot` (a plain, single-valued slot that no later slot reads) is offered, after every
/// other slot, to `compute(node, all, data)` (its view then points at `data`): when that returns
/// true it computed the slot (and whatever else it fused with it, backend/cpu/fused_outputs.hpp);
/// otherwise the slot is materialized as usual.
template <std::size_t Slot, class Compute>
struct fused_slot {
  static constexpr std::size_t slot = Slot;
  Compute compute;
};

namespace detail {
template <class N>
struct is_take : std::false_type {};
template <class X, class I>
struct is_take<graph::take<X, I>> : std::true_type {};

template <class D>
struct is_fused_slot : std::false_type {};
template <std::size_t Slot, class Compute>
struct is_fused_slot<fused_slot<Slot, Compute>> : std::true_type {};

/// Whether `Direct` has slot K computed into the caller's memory (direct_slot, direct_slots).
template <class Direct, std::size_t K>
struct holds_slot : std::bool_constant<Direct::slot == K && !is_fused_slot<Direct>::value> {};
template <class Where, std::size_t... Slots, std::size_t K>
struct holds_slot<direct_slots<Where, Slots...>, K> : std::bool_constant<((Slots == K) || ...)> {};

/// Where `direct` puts slot K (extents ext): its buffer, or null for one of the slot's own.
template <std::size_t K, class Direct, class Ext>
STATICFLOW_INLINE auto* direct_buffer(const Direct& direct, const Ext& ext) {
  if constexpr (requires { direct.where(std::integral_constant<std::size_t, K>{}, ext); })
    return direct.where(std::integral_constant<std::size_t, K>{}, ext);
  else return direct.where(ext);
}

// Slot K repeats an earlier slot: its views become that slot's. Returns whether it did.
template <class Sig, std::size_t K, class Plan, class All>
STATICFLOW_INLINE bool shares_earlier_slot(const Plan& p, All& all) {
  if constexpr (K == 0) {
    return false;  // (the first slot repeats none)
  } else {
    constexpr std::size_t args = std::tuple_size<Sig>::value;
    if (p.same_as[K] == K || !same_view_kinds<args, K, Plan>(p.same_as[K])) return false;
    using node_type = std::tuple_element_t<K, typename Plan::slots_type>;
    plan::share_views<args + Plan::template view_base<K>, plan::view_count<node_type>::value>(
        all, args + Plan::view_bases[p.same_as[K]]);
    return true;
  }
}

template <class Plan, std::size_t K>
concept self_allocating_slot = requires { std::tuple_element_t<K, typename Plan::slots_type>::self_allocating; };

// A control-flow slot (cond, a while loop) runs its evaluator, inlined into the call: a plan
// traced at compile time is a constant only where the loop is inlined into the code that reads
// it (out of line, a scalar loop's literals are loads and `m / 2` a run-time shift).
template <class Sig, std::size_t K, class Plan, class All, class Storage, class Direct>
  requires self_allocating_slot<Plan, K>
STATICFLOW_INLINE void materialize_slot(const Plan& p, All& all, Storage& storage, plan::arena& arena, const Direct& direct) {
  constexpr std::size_t args = std::tuple_size<Sig>::value;
  constexpr std::size_t base = Plan::template view_base<K>;
  using node_type = std::tuple_element_t<K, typename Plan::slots_type>;
  if (shares_earlier_slot<Sig, K>(p, all)) return;
  if constexpr (holds_slot<Direct, K>::value)
    slot_evaluator<node_type>::template run<full_signature_t<Sig, Plan>>(
        staticflow::detail::pack_get<K>(p.slots), all, direct_slot_outputs<args + base, All, decltype(direct.where)>{all, direct.where});
  else
    slot_evaluator<node_type>::template run<full_signature_t<Sig, Plan>>(
        staticflow::detail::pack_get<K>(p.slots), all, slot_outputs<args + base, base, All, Storage>{all, storage, arena});
  ++plan::materialization_counter();
}

template <class Sig, std::size_t K, class Plan, class All, class Storage, class Direct>
  requires(!self_allocating_slot<Plan, K>)
void materialize_slot(const Plan& p, All& all, Storage& storage, plan::arena& arena, const Direct& direct) {
  constexpr std::size_t args = std::tuple_size<Sig>::value;
  constexpr std::size_t base = Plan::template view_base<K>;
  if (shares_earlier_slot<Sig, K>(p, all)) return;
  using full = full_signature_t<Sig, Plan>;
  const auto& node = staticflow::detail::pack_get<K>(p.slots);
  const auto ext = graph::node_extents(node, staticflow::detail::extents_of_views(all));
  // a slice that is a stretch of a value nothing overwrites, or x[i] of one: a view
  // (plan/slot_views.hpp), unless the caller has it computed into memory of its own (Direct)
  if constexpr (!holds_slot<Direct, K>::value && strided_slot_value<args, Plan, base>()) {
    // (a strided view: only fused loops read it)
    extents<std::tuple_size<std::remove_cvref_t<decltype(ext)>>::value> strides{};
    if (const auto* in_place = plan::strided_view_in_operand(node, std::as_const(all), ext, strides)) {
      staticflow::detail::get<args + base>(all) = {in_place, ext, strides};
      ++plan::materialization_counter();
      return;
    }
  } else if constexpr (!holds_slot<Direct, K>::value && plan::may_view_operand<args, K, Plan>()) {
    if (const auto* in_place = plan::view_in_operand(node, std::as_const(all), ext)) {
      staticflow::detail::get<args + base>(all) = {in_place, ext};  // nothing copied
      ++plan::materialization_counter();
      return;
    }
  } else if constexpr (!holds_slot<Direct, K>::value && is_take<std::remove_cvref_t<decltype(node)>>::value) {
    if constexpr (plan::reads_stable_operand<args, K, Plan>()) {
      // (reads the index: one out of range throws here, before anything else of the slot)
      staticflow::detail::get<args + base>(all) = {row_in_operand<full>(node, std::as_const(all), ext), ext};
      ++plan::materialization_counter();
      return;
    }
  }
  auto* data = [&] {
    if constexpr (holds_slot<Direct, K>::value) {
      if (auto* given = direct_buffer<K>(direct, ext)) return given;
    }
    return staticflow::detail::get<base>(storage).get(arena, ext);
  }();
  staticflow::detail::get<args + base>(all) = {data, ext};
  if constexpr (Direct::slot == K && is_fused_slot<Direct>::value) return;  // after the others
  // (over the values the node reads: plan/compact_signature.hpp)
  plan::with_compact_signature<full>(node, std::as_const(all), [&]<class S>(std::type_identity<S>, const auto& compact, const auto& read)
                                                                     STATICFLOW_LAMBDA_INLINE {
    materialize<S>(compact, read, ext, data);
  });
  ++plan::materialization_counter();
}

// The fused slot, once every other slot is computed (see fused_slot).
template <class Sig, class Plan, class All, class Direct>
STATICFLOW_INLINE void materialize_fused_slot(const Plan& p, All& all, const Direct& direct) {
  if constexpr (is_fused_slot<Direct>::value) {
    constexpr std::size_t K = Direct::slot;
    if (p.same_as[K] != K) return;  // it repeats an earlier slot, whose views it has
    constexpr std::size_t at = std::tuple_size<Sig>::value + Plan::template view_base<K>;
    const auto& node = staticflow::detail::pack_get<K>(p.slots);
    auto* data = const_cast<typename std::remove_cvref_t<decltype(node)>::value_type*>(staticflow::detail::get<at>(all).data);
    if (!direct.compute(node, std::as_const(all), data))
      materialize<full_signature_t<Sig, Plan>>(node, all, staticflow::detail::get<at>(all).ext, data);
    ++plan::materialization_counter();
  }
}
}  // namespace detail

/// Computes the slots of plan p in order, then returns f(views): the views of Sig's values
/// followed by the slots' values. Buffers of static shape live in this frame; the others come
/// from this thread's arena, which the caller scopes (plan::arena_scope).
/// With `direct`, slot Direct::slot is written where `direct.where` says instead (see direct_slot).
template <class Sig, class Plan, class Views, class F, class Direct = no_direct_slot>
STATICFLOW_INLINE decltype(auto) with_slots(const Plan& p, const Views& views, F&& f, const Direct& direct = {}) {
  if constexpr (Plan::slot_count == 0) {
    return f(views);
  } else {
    using buffers = detail::slot_buffers<typename Plan::view_specs>;
    auto all = staticflow::detail::values_concat(views, typename detail::slot_views_of<std::tuple_size<Sig>::value, Plan>::type{});
    typename buffers::storage storage{};
    plan::arena& arena = plan::arena::local();
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      (detail::materialize_slot<Sig, K>(p, all, storage, arena, direct), ...);
    }(std::make_index_sequence<Plan::slot_count>{});
    detail::materialize_fused_slot<Sig>(p, all, direct);
    return f(std::as_const(all));
  }
}

/// Evaluates outputs (elementwise graphs one pass can compute together: cpu::output_group) over
/// `all` (a call's views and slots), output K into `target(std::integral_constant<K>, ext)`:
/// every target is asked for first, in order, then the group's members run as one pass where the
/// call allows it (CheckOverlap: no target overlaps a value they read), and every other output,
/// or every output when the pass cannot run, is evaluated in turn.
template <class Full, bool CheckOverlap, class Outputs, class All, class Target>
STATICFLOW_INLINE void evaluate_grouped(const Outputs& outputs, const All& all, Target&& target) {
  using group = output_group<Outputs>;
  const auto ext_all = staticflow::detail::extents_of_views(all);
  [&]<std::size_t... K>(std::index_sequence<K...>) STATICFLOW_LAMBDA_INLINE {
    // (braced: in order; value_packs: no constructor overloads)
    const staticflow::detail::value_pack<decltype(graph::node_extents(staticflow::detail::get<K>(outputs), ext_all))...> ext{
        {{graph::node_extents(staticflow::detail::get<K>(outputs), ext_all)}...}};
    const staticflow::detail::value_pack<decltype(target(std::integral_constant<std::size_t, K>{}, staticflow::detail::get<K>(ext)))...> data{
        {{target(std::integral_constant<std::size_t, K>{}, staticflow::detail::get<K>(ext))}...}};
    const bool fused = compute_grouped_outputs<Full, group, CheckOverlap>(outputs, all, ext, data);
    ([&] {
      if constexpr (group::template member<K>)
        if (fused) return;
      evaluate_into<Full>(staticflow::detail::get<K>(outputs), all, staticflow::detail::get<K>(ext), staticflow::detail::get<K>(data));
    }(), ...);
  }(std::make_index_sequence<std::tuple_size<Outputs>::value>{});
}

/// Runs plan p over views (Sig's values) and evaluates output K into `out.template
/// allocate<K>(ext)` for every K, once its extents are known. Outputs that one pass can compute
/// together (cpu::output_group: a loop body's elementwise variables) are, where the call allows
/// it; every output's buffer is then asked for, in order, before any is written.
template <class Sig, class Plan, class Views, class Out>
STATICFLOW_INLINE void run_plan(const Plan& p, const Views& views, const Out& out) {
  using full = full_signature_t<Sig, Plan>;
  using group = output_group<typename Plan::outputs_type>;
  if constexpr (group::enabled) {
    with_slots<Sig>(p, views, [&](const auto& all) STATICFLOW_LAMBDA_INLINE {
      evaluate_grouped<full, false>(p.outputs, all, [&]<std::size_t K>(std::integral_constant<std::size_t, K>, const auto& ext) {
        return out.template allocate<K>(ext);
      });
    });
    return;
  }
  with_slots<Sig>(p, views, [&](const auto& all) STATICFLOW_LAMBDA_INLINE {
    const auto ext_all = staticflow::detail::extents_of_views(all);
    [&]<std::size_t... K>(std::index_sequence<K...>) STATICFLOW_LAMBDA_INLINE {
      ([&]() STATICFLOW_LAMBDA_INLINE {
        const auto& node = staticflow::detail::get<K>(p.outputs);
        const auto ext = graph::node_extents(node, ext_all);
        auto* data = out.template allocate<K>(ext);
        plan::with_compact_signature<full>(node, all, [&]<class S>(std::type_identity<S>, const auto& compact, const auto& read)
                                                          STATICFLOW_LAMBDA_INLINE { evaluate_into<S>(compact, read, ext, data); });
      }(), ...);
    }(std::make_index_sequence<Plan::output_count>{});
  });
}

}  // namespace staticflow::cpu
