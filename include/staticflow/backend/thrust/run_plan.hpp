// staticflow/backend/thrust/run_plan.hpp -- running an evaluation plan on the device: the slots
// in order, each into a buffer of the device arena (a repeat found by the plan's CSE shares its
// first occurrence's buffer), then the caller's kernels over the argument views followed by the
// slots' views.
//
// A materialized node this backend has no kernel for, but that can describe itself as a graph of
// ops it has (`n.expanded()`, e.g. graph::softmax_node), is run as that graph, planned over the
// views visible where it stands.
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticflow/backend/thrust/arena.hpp"
#include "staticflow/backend/thrust/kernel.hpp"
#include "staticflow/backend/thrust/linalg.hpp"
#include "staticflow/backend/thrust/reduce.hpp"
#include "staticflow/backend/thrust/shape_ops.hpp"
#include "staticflow/core/dtype.hpp"
#include "staticflow/interop/xtensor.hpp"
#include "staticflow/plan/plan.hpp"

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

namespace detail {
/// Where the values of slot K start among the slots' views (one per slot, unless the plan says
/// otherwise: nodes with several results fill several).
template <class Plan, std::size_t K>
constexpr std::size_t view_base() {
  if constexpr (requires { Plan::template view_base<K>; }) return Plan::template view_base<K>;
  else return K;
}
template <class Plan>
constexpr std::size_t view_total() {
  if constexpr (requires { Plan::view_count; }) return Plan::view_count;
  else return Plan::slot_count;
}

template <class Plan, std::size_t K>
using slot_node_t = std::tuple_element_t<K, typename Plan::slots_type>;

template <std::size_t ArgCount, std::size_t K, class Plan, class All>
void materialize_slot(const Plan& plan, All& all) {
  constexpr std::size_t at = ArgCount + view_base<Plan, K>();
  auto& view = std::get<at>(all);
  if (plan.same_as[K] != K) {  // a repeat of an earlier slot: share its buffer
    [&]<std::size_t... J>(std::index_sequence<J...>) {
      ([&] {
        constexpr std::size_t from = ArgCount + view_base<Plan, J>();
        if constexpr (std::is_same_v<std::remove_cvref_t<decltype(std::get<from>(all))>, std::remove_cvref_t<decltype(view)>>)
          if (plan.same_as[K] == J) view = std::get<from>(all);
      }(), ...);
    }(std::make_index_sequence<K>{});
    return;
  }
  using T = typename slot_node_t<Plan, K>::value_type;
  const auto& node = std::get<K>(plan.slots);
  const auto ext = graph::node_extents(node, staticflow::detail::extents_of_views(all));
  const std::size_t n = staticflow::detail::product(ext);
  auto* data = static_cast<T*>(device_arena::local().allocate(sizeof(T) * (n ? n : 1)));
  view = {data, ext};
  materialize(node, all, ext, data);
  ++plan::materialization_counter();
}
}  // namespace detail

/// Computes plan's slots in order, then returns f(views followed by the slots' views). The
/// slots' buffers live until the end of the innermost open device_arena::scope.
template <std::size_t ArgCount, class Plan, class Views, class F>
decltype(auto) with_slots(const Plan& plan, const Views& views, F&& f) {
  static_assert(detail::view_total<Plan>() == Plan::slot_count,
                "staticflow: the thrust backend does not run nodes with several results (sf::cond, "
                "sf::while_loop) yet");
  if constexpr (Plan::slot_count == 0) {
    return f(views);
  } else {
    auto all = std::tuple_cat(views, [&]<std::size_t... K>(std::index_sequence<K...>) {
      return std::tuple{tensor_view<typename detail::slot_node_t<Plan, K>::value_type,
                                    detail::slot_node_t<Plan, K>::shape_type::rank>{}...};
    }(std::make_index_sequence<Plan::slot_count>{}));
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      (detail::materialize_slot<ArgCount, K>(plan, all), ...);
    }(std::make_index_sequence<Plan::slot_count>{});
    return f(all);
  }
}

template <class N, class Views, std::size_t R, class T>
  requires requires(const N& n) { n.expanded(); }
void materialize(const N& n, const Views& views, const extents<R>& ext, T* out) {
  using G = std::remove_cvref_t<decltype(n.expanded())>;
  constexpr std::size_t visible = std::tuple_size_v<Views>;
  const plan::evaluation_plan<visible, std::tuple<G>> p(std::tuple<G>{n.expanded()});
  with_slots<visible>(p, views, [&](const auto& all) {
    evaluate_into(std::get<0>(p.outputs), all, ext, out);
    return 0;
  });
}

}  // namespace staticflow::thrust_backend
