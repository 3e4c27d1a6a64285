// staticflow/backend/thrust/run_plan.hpp -- running an evaluation plan on the device: the slots
// in order, each into a buffer of the device arena (a repeat found by the plan's CSE shares its
// first occurrence's buffer), then the caller's kernels over the argument views followed by the
// slots' views.
//
// Nodes with several results (cond, while_loop) fill several consecutive views; self-allocating
// slots run through `slot_evaluator` (backend/thrust/control.hpp).
//
// A materialized node this backend has no kernel for, but that can describe itself as a graph of
// ops it has (`n.expanded()`, e.g. graph::softmax_node), is run as that graph, planned over the
// views visible where it stands.
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/backend/thrust/arena.hpp"
#include "staticflow/backend/thrust/conv.hpp"
#include "staticflow/backend/thrust/cumulative.hpp"
#include "staticflow/backend/thrust/conv3d.hpp"
#include "staticflow/backend/thrust/depthwise_conv.hpp"
#include "staticflow/backend/thrust/data_movement.hpp"
#include "staticflow/backend/thrust/diagonal.hpp"
#include "staticflow/backend/thrust/gather.hpp"
#include "staticflow/backend/thrust/masking.hpp"
#include "staticflow/backend/thrust/scatter.hpp"
#include "staticflow/backend/thrust/segment.hpp"
#include "staticflow/backend/thrust/index.hpp"
#include "staticflow/backend/thrust/kernel.hpp"
#include "staticflow/backend/thrust/linalg.hpp"
#include "staticflow/backend/thrust/pool.hpp"
#include "staticflow/backend/thrust/reduce.hpp"
#include "staticflow/backend/thrust/random.hpp"
#include "staticflow/backend/thrust/sequence.hpp"
#include "staticflow/backend/thrust/shape_ops.hpp"
#include "staticflow/backend/thrust/sorting.hpp"
#include "staticflow/backend/thrust/unique.hpp"
#include "staticflow/core/dtype.hpp"
#include "staticflow/interop/xtensor.hpp"
#include "staticflow/plan/compact_signature.hpp"
#include "staticflow/plan/plan.hpp"
#include "staticflow/plan/slot_views.hpp"

namespace staticflow::thrust_backend {

/// A materialized node this backend cannot evaluate (a compile error naming the node).
template <class N, class Views, std::size_t R, class T>
void materialize(const N&, const Views&, const extents<R>&, T*) {
  static_assert(staticflow::detail::always_false<N>,
                "staticflow: the thrust backend cannot evaluate this materialized node yet (its type is N in "
                "this diagnostic)");
}

/// A node that expands into a graph of other ops: that graph, planned and run here.
template <class N, class Views, std::size_t R, class T>
  requires requires(const N& n) { n.expanded(); }
void materialize(const N& n, const Views& views, const extents<R>& ext, T* out);

/// Evaluates a slot node that computes its values itself (cond, loops, tensor-array nodes: nodes
/// with `self_allocating`); specialized in backend/thrust/control.hpp.
template <class Node>
struct slot_evaluator;

/// Where a self-allocating slot puts its values: `allocate<J>(ext)` takes a device buffer of the
/// arena for its J-th value and points the J-th view at it.
template <std::size_t FirstView, class All>
struct slot_outputs {
  All& all;
  template <std::size_t J, std::size_t R>
  auto* allocate(const extents<R>& ext) const {
    auto& view = staticflow::detail::get<FirstView + J>(all);
    using T = std::remove_const_t<std::remove_pointer_t<decltype(view.data)>>;
    const std::size_t n = staticflow::detail::product(ext);
    auto* data = static_cast<T*>(device_arena::local().allocate(sizeof(T) * (n ? n : 1)));
    view = {data, ext};
    return data;
  }
  /// Points the J-th view at data that lives in device memory elsewhere (nothing is copied).
  template <std::size_t J, class T, std::size_t R>
  void point(const T* data, const extents<R>& ext) const {
    staticflow::detail::get<FirstView + J>(all) = {data, ext};
  }
};

namespace detail {
/// Where the values of slot K start among the slots' views (one per slot, unless the plan says
/// otherwise: nodes with several results fill several).
template <class Plan, std::size_t K>
constexpr std::size_t view_base() {
  if constexpr (requires { Plan::template view_base<K>; }) return Plan::template view_base<K>;
  else return K;
}

/// view_base<Plan, K>() for a K known at run time.
template <class Plan>
constexpr std::size_t view_base_at(std::size_t k) {
  if constexpr (requires { Plan::view_bases; }) return Plan::view_bases[k];
  else return k;
}

template <class Plan, std::size_t K>
using slot_node_t = std::tuple_element_t<K, typename Plan::slots_type>;

template <class Specs>
struct slot_views;
template <class... Spec>
struct slot_views<std::tuple<Spec...>> {
  using type = std::tuple<tensor_view<typename Spec::value_type, Spec::shape_type::rank>...>;
};

template <std::size_t ArgCount, std::size_t K, class Plan, class All>
void materialize_slot(const Plan& plan, All& all) {
  constexpr std::size_t at = ArgCount + view_base<Plan, K>();
  using node_type = slot_node_t<Plan, K>;
  if constexpr (K > 0) {
    if (plan.same_as[K] != K) {  // a repeat of an earlier slot: share its buffers
      plan::share_views<at, plan::view_count<node_type>::value>(all, ArgCount + view_base_at<Plan>(plan.same_as[K]));
      return;
    }
  }
  const auto& node = staticflow::detail::pack_get<K>(plan.slots);
  if constexpr (requires { node_type::self_allocating; }) {
    slot_evaluator<node_type>::run(node, all, slot_outputs<at, All>{all});
  } else {
    using T = typename node_type::value_type;
    auto& view = staticflow::detail::get<at>(all);
    const auto ext = graph::node_extents(node, staticflow::detail::extents_of_views(all));
    // a slice that is a stretch of a value nothing overwrites: a view (plan/slot_views.hpp)
    if constexpr (plan::may_view_operand<ArgCount, K, Plan>()) {
      if (const T* in_place = plan::view_in_operand(node, std::as_const(all), ext)) {
        view = {in_place, ext};
        ++plan::materialization_counter();
        return;
      }
    }
    const std::size_t n = staticflow::detail::product(ext);
    auto* data = static_cast<T*>(device_arena::local().allocate(sizeof(T) * (n ? n : 1)));
    view = {data, ext};
    // (over the values the node reads: plan/compact_signature.hpp)
    plan::with_compact_signature<All>(node, std::as_const(all), [&](auto, const auto& lowered, const auto& read) {
      materialize(lowered, read, ext, data);
    });
  }
  ++plan::materialization_counter();
}
}  // namespace detail

/// Computes plan's slots in order, then returns f(views followed by the slots' views). The
/// slots' buffers live until the end of the innermost open device_arena::scope.
template <std::size_t ArgCount, class Plan, class Views, class F>
decltype(auto) with_slots(const Plan& plan, const Views& views, F&& f) {
  if constexpr (Plan::slot_count == 0) {
    return f(views);
  } else {
    auto all = std::tuple_cat(views, typename detail::slot_views<typename Plan::view_specs>::type{});
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      (detail::materialize_slot<ArgCount, K>(plan, all), ...);
    }(std::make_index_sequence<Plan::slot_count>{});
    return f(all);
  }
}

/// Runs plan p over views (the ArgCount values visible to it) and evaluates output K into
/// `out.template allocate<K>(ext)` for every K (a branch of a cond, a loop's condition or body).
template <std::size_t ArgCount, class Plan, class Views, class Out>
void run_plan(const Plan& p, const Views& views, const Out& out) {
  with_slots<ArgCount>(p, views, [&](const auto& all) {
    const auto ext_all = staticflow::detail::extents_of_views(all);
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      ([&] {
        const auto& node = staticflow::detail::get<K>(p.outputs);
        const auto ext = graph::node_extents(node, ext_all);
        evaluate_into(node, all, ext, out.template allocate<K>(ext));
      }(), ...);
    }(std::make_index_sequence<Plan::output_count>{});
    return 0;
  });
}

template <class N, class Views, std::size_t R, class T>
  requires requires(const N& n) { n.expanded(); }
void materialize(const N& n, const Views& views, const extents<R>& ext, T* out) {
  using G = std::remove_cvref_t<decltype(n.expanded())>;
  constexpr std::size_t visible = std::tuple_size<Views>::value;
  const plan::evaluation_plan<visible, std::tuple<G>> p(std::tuple<G>{n.expanded()});
  with_slots<visible>(p, views, [&](const auto& all) {
    evaluate_into(staticflow::detail::get<0>(p.outputs), all, ext, out);
    return 0;
  });
}

}  // namespace staticflow::thrust_backend

#include "staticflow/backend/thrust/control.hpp"  // the slot evaluators of cond, while_loop, tensor arrays
