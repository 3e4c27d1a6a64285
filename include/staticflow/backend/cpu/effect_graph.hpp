// staticflow/backend/cpu/effect_graph.hpp -- the graphs an effect evaluates on every call (the
// value assigned to a variable, the gradients an optimizer applies, a tensor sf::print shows, a
// for_range bound), planned once when the effect is recorded, evaluated by the CPU kernels; and
// the CPU evaluation of external leaves. What the effect's graphs read and the signature they are
// planned with: effects/effect_graphs.hpp (shared with the Thrust backend's effect_graph).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/backend/cpu/control.hpp"
#include "staticflow/backend/cpu/run_plan.hpp"
#include "staticflow/effects/effect_graphs.hpp"
#include "staticflow/effects/recorder.hpp"
#include "staticflow/graph/child_refs.hpp"
#include "staticflow/graph/external.hpp"
#include "staticflow/plan/arena.hpp"
#include "staticflow/plan/plan.hpp"

namespace staticflow::cpu {

/// An external leaf's slot: its view points at the data where it lives.
template <class T, class S, class K>
struct slot_evaluator<graph::external_leaf<T, S, K>> {
  template <class FullSig, class All, class Out>
  static void run(const graph::external_leaf<T, S, K>& n, All&, const Out& out) {
    out.template point<0>(n.data(), n.result_extents());
  }
};

namespace detail {
using namespace staticflow::detail::effect_graphs;

template <class Entry>
STATICFLOW_INLINE auto typed_view(const staticflow::detail::erased_view& e) {
  if constexpr (spec_type<Entry>) {
    using T = typename Entry::value_type;
    constexpr std::size_t R = Entry::shape_type::rank;
    tensor_view<T, R> v{static_cast<const T*>(e.data), {}};
    for (std::size_t d = 0; d < R; ++d) v.ext[d] = e.ext[d];
    return v;
  } else {
    return no_view{};
  }
}
}  // namespace detail

namespace detail {
/// Whether computing slot N cannot throw (effect_graph::infallible): an external value, or a
/// scalar of numbers computed from scalars of numbers (nothing allocated, no kernel that checks).
template <class N>
constexpr bool infallible_slot() {
  if constexpr (is_external<N>::value) {
    return true;
  } else if constexpr (N::shape_type::rank != 0 || !std::is_arithmetic<typename N::value_type>::value) {
    return false;
  } else {
    return []<class... C>(std::type_identity<graph::child_refs<C...>>) {
      return ((std::remove_cvref_t<C>::shape_type::rank == 0 && std::is_arithmetic<typename std::remove_cvref_t<C>::value_type>::value) && ...);
    }(std::type_identity<decltype(graph::children(std::declval<const N&>()))>{});
  }
}

template <class T, class S, class K>
STATICFLOW_INLINE tensor_view<T, S::rank> external_view(const graph::external_leaf<T, S, K>& n) {
  return {n.data(), n.result_extents()};
}

/// The value an effect's lowered graph N is, whole, when N is nothing else: a bare read of value
/// `index` (an argument or a slot's view), or a broadcast of one to a static shape that its own
/// shape only refines (same rank, each extent the target's or a run-time one: the gradient of a
/// [784, 256] variable computed from an input of run-time extents), when the run-time extents are
/// the target's (`same_extents`). index: -1 otherwise.
template <class N>
struct whole_read {
  static constexpr std::size_t index = static_cast<std::size_t>(-1);
};
template <std::size_t I, class T, class S>
struct whole_read<graph::argument<I, T, S>> {
  static constexpr std::size_t index = I;
  static constexpr bool same_extents(const extents<S::rank>&) { return true; }
};
template <class SA, class S>
constexpr bool only_refines() {
  if constexpr (SA::rank != S::rank || !S::is_static) {
    return false;
  } else {
    for (std::size_t d = 0; d < S::rank; ++d)
      if (SA::dims[d] != S::dims[d] && SA::dims[d] != dyn) return false;
    return true;
  }
}
template <class S, std::size_t I, class T, class SA>
  requires(only_refines<SA, S>())
struct whole_read<graph::broadcast<S, graph::argument<I, T, SA>>> {
  static constexpr std::size_t index = I;
  static constexpr bool same_extents(const extents<S::rank>& ext) { return ext == extents<S::rank>(S::dims); }
};

/// Outputs evaluated one after another, none in a grouped pass (detail::target_unsafe's Group).
struct outputs_in_order {
  static constexpr bool enabled = false;
  template <std::size_t K>
  static constexpr bool member = false;
};

/// For each of an effect's lowered outputs, the slot computed straight into its buffer
/// (cpu::direct_slots): the plain single-valued slot whose value the output is, whole, unless an
/// earlier output reads that slot whole too. Plan::slot_count for none.
template <std::size_t ArgCount, class Plan>
constexpr auto direct_output_slots() {
  constexpr std::size_t outputs = std::tuple_size<typename Plan::outputs_type>::value, none = Plan::slot_count;
  using slots = typename Plan::slots_type;
  // whether slot J is a plain single-valued one (neither self-allocating nor several views)
  constexpr auto plain = []<std::size_t... J>(std::index_sequence<J...>) {
    return std::array<bool, sizeof...(J) + 1>{
        (plan::view_count<std::tuple_element_t<J, slots>>::value == 1 && !requires { std::tuple_element_t<J, slots>::self_allocating; })...,
        false};
  }(std::make_index_sequence<Plan::slot_count>{});
  constexpr auto read = []<std::size_t... K>(std::index_sequence<K...>) {
    return std::array<std::size_t, sizeof...(K)>{whole_read<std::tuple_element_t<K, typename Plan::outputs_type>>::index...};
  }(std::make_index_sequence<outputs>{});
  std::array<std::size_t, outputs> slot{};
  for (std::size_t k = 0; k < outputs; ++k) {
    slot[k] = none;
    if (read[k] == static_cast<std::size_t>(-1) || read[k] < ArgCount) continue;
    for (std::size_t j = 0; j < Plan::slot_count; ++j)
      if (plain[j] && Plan::view_bases[j] == read[k] - ArgCount) slot[k] = j;
    for (std::size_t e = 0; e < k; ++e)
      if (slot[e] == slot[k]) slot[k] = none;
  }
  return slot;
}
}  // namespace detail

/// Graphs G... planned together for evaluation by an effect: one plan, so a materialized node
/// the graphs share (a matmul both the gradients of a layer's weights and of its bias read) is
/// computed once. One graph is the common case (a value assigned, printed, a loop bound).
/// A graph in a loop body reads the loop's variables through its cells (see externalize_variables).
template <class... G>
class effect_graph {
  static_assert(sizeof...(G) >= 1);
  using planned = std::tuple<detail::externalized_t<G>...>;
  using first = std::tuple_element_t<0, planned>;

 public:
  static constexpr std::size_t arg_count = std::max({detail::argument_bound<detail::externalized_t<G>>()...});
  using signature = decltype(detail::effect_signature<planned>(std::make_index_sequence<arg_count>{}));
  using plan_type = plan::evaluation_plan<arg_count, planned>;
  using value_type = typename first::value_type;
  static constexpr std::size_t rank = first::shape_type::rank;

  explicit effect_graph(const G&... g) : plan_(planned{detail::externalize_variables<std::tuple<>>(g)...}) {}

  /// Whether nothing can throw once the first value is written: every materialized value is
  /// computed before (with_slots), and the values are elementwise over them; static shapes leave
  /// the targets nothing to check.
  static constexpr bool infallible_once_writing = (G::shape_type::is_static && ...);
  /// Whether evaluating the graphs cannot throw: static shapes, and every value the plan
  /// materializes is an external value (read where it is) or a scalar computed from scalars (an
  /// optimizer's step size from its learning rate and step count), so that nothing is allocated
  /// and no kernel that checks its input runs; the values themselves are elementwise over those.
  static constexpr bool infallible = infallible_once_writing && []<std::size_t... K>(std::index_sequence<K...>) {
    return (detail::infallible_slot<std::tuple_element_t<K, typename plan_type::slots_type>>() && ...);
  }(std::make_index_sequence<plan_type::slot_count>{});

  /// Appends the sources of the external values the graphs read; false when a loop or branch
  /// among them reads values of its own (its bodies are planned apart).
  bool list_reads(std::vector<const graph::external_source*>& sources) const {
    bool known = true;
    staticflow::detail::pack_apply([&](const auto&... slot) {
      ([&] {
        using N = std::remove_cvref_t<decltype(slot)>;
        if constexpr (detail::is_external<N>::value) sources.push_back(slot.source);
        else if constexpr (requires { N::visible_values; }) known = false;
      }(), ...);
    }, plan_.slots);
    return known;
  }

  /// Evaluates the graphs in order: `target(k, ext, in_place_ok)` (k a std::integral_constant) is
  /// called once graph k's extents are known (it may throw: graphs before k have been written)
  /// and returns where to write its value; `in_place_ok(p)` says whether graph k may be written
  /// at p (a variable the graphs read: detail::target_unsafe). `target(k, ext)` will do, and
  /// `target(ext)` for one graph.
  template <class Target>
  void run(staticflow::detail::erased_args args, Target&& target) const {
    const auto views = [&]<std::size_t... I>(std::index_sequence<I...>) STATICFLOW_LAMBDA_INLINE {
      return staticflow::detail::pack_values(detail::typed_view<std::tuple_element_t<I, signature>>(args[I])...);
    }(std::make_index_sequence<arg_count>{});
    using full = full_signature_t<signature, plan_type>;
    using group = output_group<typename plan_type::outputs_type>;
    if constexpr (direct_count > 0 && requires { target(std::integral_constant<std::size_t, 0>{}, extents<rank>{}, staticflow::detail::effect_graphs::fresh_buffer); }) {
      run_direct(views, target);
    } else {
      auto body = [&](const auto& all) STATICFLOW_LAMBDA_INLINE {
        if constexpr (group::enabled) {
          // Elementwise graphs of one extent (an optimizer's update of a variable and its slots)
          // in one pass where no target overlaps a value the graphs read (a call's first write of
          // a variable goes to its spare buffer); otherwise each graph in turn.
          evaluate_grouped<full, true>(plan_.outputs, all, [&]<std::size_t K>(std::integral_constant<std::size_t, K>, const auto& ext) {
            return target_of<K>(target, ext, in_place_check<group, K>(all, ext));
          });
          return;
        }
        [&]<std::size_t... K>(std::index_sequence<K...>) STATICFLOW_LAMBDA_INLINE {
          ([&]() STATICFLOW_LAMBDA_INLINE {
            const auto& node = staticflow::detail::get<K>(plan_.outputs);
            const auto ext = graph::node_extents(node, staticflow::detail::extents_of_views(all));
            evaluate_into<full>(node, all, ext, target_of<K>(target, ext, in_place_check<group, K>(all, ext)));
          }(), ...);
        }(std::index_sequence_for<G...>{});
      };
      if constexpr (needs_arena) {
        plan::arena_scope scope;
        with_slots<signature>(plan_, views, body);
      } else if constexpr (arg_count > 0) {
        with_slots<signature>(plan_, views, body);
      } else {
        // only external values: their views point at their data (the loop of a for_range body
        // runs this per iteration, so nothing else is done: no arena, no counters)
        const auto all = staticflow::detail::values_concat(views, staticflow::detail::pack_apply([](const auto&... slot) STATICFLOW_LAMBDA_INLINE {
          return staticflow::detail::pack_values(detail::external_view(slot)...);
        }, plan_.slots));
        body(all);
      }
    }
  }

  /// The slot each graph's value is computed straight into, where it is one slot's value
  /// (detail::direct_output_slots), and the graph that reads each slot so (none: G count).
  static constexpr auto direct_slot_of = detail::direct_output_slots<arg_count, plan_type>();
  // the slots computed straight into a graph's buffer, in order
  static constexpr std::size_t direct_count = [] {
    std::size_t count = 0;
    for (const std::size_t j : direct_slot_of) count += j != plan_type::slot_count;
    return count;
  }();
  static constexpr std::array<std::size_t, direct_count> direct_slot_values = [] {
    std::array<std::size_t, direct_count> v{};
    std::size_t filled = 0;
    for (const std::size_t j : direct_slot_of)
      if (j != plan_type::slot_count) v[filled++] = j;
    return v;
  }();
  template <std::size_t J>
  static constexpr std::size_t output_of_slot = [] {
    for (std::size_t k = 0; k < sizeof...(G); ++k)
      if (direct_slot_of[k] == J) return k;
    return sizeof...(G);
  }();

  /// run() when some graphs are one slot's value each (an optimizer's gradients): those slots are
  /// computed straight into the graphs' buffers, asked for with `fresh_buffer` as soon as the
  /// slot's extents are known; a graph whose target declines (null), whose slot repeats another,
  /// or whose broadcast turns out to broadcast, is evaluated after the slots as usual.
  template <class Views, class Target>
  STATICFLOW_INLINE void run_direct(const Views& views, Target& target) const {
    using full = full_signature_t<signature, plan_type>;
    std::array<bool, sizeof...(G)> written{};
    const auto where = [&]<std::size_t J, std::size_t R>(std::integral_constant<std::size_t, J>, const extents<R>& ext) {
      constexpr std::size_t K = output_of_slot<J>;
      using read = detail::whole_read<std::tuple_element_t<K, typename plan_type::outputs_type>>;
      using T = typename std::tuple_element_t<J, typename plan_type::slots_type>::value_type;
      T* data = nullptr;
      if (read::same_extents(ext)) data = target(std::integral_constant<std::size_t, K>{}, ext, staticflow::detail::effect_graphs::fresh_buffer);
      written[K] = data != nullptr;
      return data;
    };
    const auto direct = [&]<std::size_t... I>(std::index_sequence<I...>) {
      return cpu::direct_slots<decltype(where), direct_slot_values[I]...>{where};
    }(std::make_index_sequence<direct_count>{});
    plan::arena_scope scope;
    with_slots<signature>(plan_, views, [&](const auto& all) STATICFLOW_LAMBDA_INLINE {
      [&]<std::size_t... K>(std::index_sequence<K...>) STATICFLOW_LAMBDA_INLINE {
        ([&]() STATICFLOW_LAMBDA_INLINE {
          if (written[K]) return;
          const auto& node = staticflow::detail::get<K>(plan_.outputs);
          const auto ext = graph::node_extents(node, staticflow::detail::extents_of_views(all));
          evaluate_into<full>(node, all, ext, target_of<K>(target, ext, in_place_check<detail::outputs_in_order, K>(all, ext)));
        }(), ...);
      }(std::index_sequence_for<G...>{});
    }, direct);
  }

  /// Where graph K's value goes: `target(k, ext, in_place_ok)`, `target(k, ext)`, or
  /// `target(ext)` for one graph.
  template <std::size_t K, class Target, class Ext, class Check>
  STATICFLOW_INLINE static auto* target_of(Target& target, const Ext& ext, const Check& in_place_ok) {
    if constexpr (requires { target(std::integral_constant<std::size_t, K>{}, ext, in_place_ok); })
      return target(std::integral_constant<std::size_t, K>{}, ext, in_place_ok);
    else if constexpr (requires { target(std::integral_constant<std::size_t, K>{}, ext); })
      return target(std::integral_constant<std::size_t, K>{}, ext);
    else return target(ext);
  }

  /// Whether graph K (extents ext) may be written at p: no value the graphs read is overwritten
  /// before it is read (the outputs run as evaluate_grouped runs them: Group in one pass, when it
  /// can, then the others in order).
  template <class Group, std::size_t K, class All, class Ext>
  STATICFLOW_INLINE auto in_place_check(const All& all, const Ext& ext) const {
    return [&all, size = staticflow::detail::product(ext)](const auto* p) {
      return !detail::target_unsafe<Group, K, typename plan_type::outputs_type>(all, p, size);
    };
  }

  /// The value of a scalar graph.
  value_type scalar(staticflow::detail::erased_args args) const {
    static_assert(sizeof...(G) == 1 && rank == 0);
    value_type v{};
    run(args, [&](const extents<0>&) { return &v; });
    return v;
  }

 private:
  // slots other than external values may take arena memory
  static constexpr bool needs_arena = []<std::size_t... K>(std::index_sequence<K...>) {
    return (!detail::is_external<std::tuple_element_t<K, typename plan_type::slots_type>>::value || ...);
  }(std::make_index_sequence<plan_type::slot_count>{});
  plan_type plan_;
};

}  // namespace staticflow::cpu
