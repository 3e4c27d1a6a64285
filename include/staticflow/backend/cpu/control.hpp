// staticflow/backend/cpu/control.hpp -- running control flow on the CPU: cond / switch_case run
// the plan of the branch their selector picks; while loops keep their variables in state buffers
// and run the condition's and the body's plans until the condition fails (or, when every element
// of the vector variables evolves on its own, run each block of lanes through all iterations in
// registers: the element-local loop); tensor-array nodes.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include <xsimd/xsimd.hpp>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/backend/cpu/block_cache.hpp"
#include "staticflow/backend/cpu/cursor.hpp"
#include "staticflow/backend/cpu/loop_state.hpp"
#include "staticflow/backend/cpu/parallel.hpp"
#include "staticflow/backend/cpu/run_plan.hpp"
#include "staticflow/backend/cpu/scalar_eval.hpp"
#include "staticflow/backend/cpu/simd_eval.hpp"
#include "staticflow/control/cond.hpp"
#include "staticflow/control/evaluation.hpp"
#include "staticflow/control/tensor_array.hpp"
#include "staticflow/control/while_loop.hpp"
#include "staticflow/core/config.hpp"
#include "staticflow/core/errors.hpp"

STATICFLOW_DETAIL_INTRINSICS_BEGIN

namespace staticflow::cpu {
namespace detail {

/// The first N elements of a tuple (the values visible to a branch or a body: a function's
/// arguments and the variables of the loops around it).
template <std::size_t N, class Tuple>
STATICFLOW_INLINE auto first_values(const Tuple& t) {
  return [&]<std::size_t... I>(std::index_sequence<I...>) STATICFLOW_LAMBDA_INLINE {
    return staticflow::detail::pack_values(staticflow::detail::get<I>(t)...);
  }(std::make_index_sequence<N>{});
}
template <class Tuple, class Indices>
struct first_types;
template <class Tuple, std::size_t... I>
struct first_types<Tuple, std::index_sequence<I...>> {
  using type = std::tuple<std::tuple_element_t<I, Tuple>...>;
};
/// The first N types of a std::tuple of specs, as a std::tuple.
template <std::size_t N, class Tuple>
using first_types_t = typename first_types<Tuple, std::make_index_sequence<N>>::type;

using staticflow::detail::control_evaluation::loop_output_layout;
using staticflow::detail::control_evaluation::no_staging;
using staticflow::detail::control_evaluation::scalar_target;

/// The dtype of lanes L: a batch's, or one element's own.
template <class L>
struct lane_value {
  using type = L;
};
template <class T, class A>
struct lane_value<xsimd::batch<T, A>> {
  using type = T;
};

/// Whether graph Cond (when read_cond) or output K of Outputs with mask[K] set reads value I.
template <std::size_t I, class Cond, class Outputs, std::size_t V>
constexpr bool read_by(bool read_cond, const std::array<bool, V>& mask) {
  return (read_cond && graph::uses_argument<I, Cond>) || [&]<std::size_t... K>(std::index_sequence<K...>) {
    return (false || ... || (mask[K] && graph::uses_argument<I, std::remove_cvref_t<std::tuple_element_t<K, Outputs>>>));
  }(std::make_index_sequence<V>{});
}

}  // namespace detail

/// cond / switch_case: computes the selector, then runs only the plan of the branch it picks.
template <class Kind, std::size_t ArgCount, class Pred, class... Plans>
struct slot_evaluator<graph::branch_plan<Kind, ArgCount, Pred, Plans...>> {
  template <class FullSig, class Node, class All, class Out>
  static void run(const Node& n, All& all, const Out& out) {
    const auto selector = detail::scalar_value<FullSig>(n.pred, all);
    const std::size_t pick = Kind::branch(selector, sizeof...(Plans));
    using Sig = detail::first_types_t<ArgCount, FullSig>;
    const auto visible = detail::first_values<ArgCount>(all);
    [&]<std::size_t... B>(std::index_sequence<B...>) {
      ((pick == B ? run_plan<Sig>(staticflow::detail::get<B>(n.plans), visible, out) : void()), ...);
    }(std::index_sequence_for<Plans...>{});
  }
};

/// while_loop: initial values into the state, then condition and body until the condition fails
/// (or max_iterations), then the final state into the slot's values.
template <std::size_t ArgCount, class Inits, class CondPlan, class BodyPlan, bool... InPlace>
struct slot_evaluator<graph::while_plan<ArgCount, Inits, CondPlan, BodyPlan, std::integer_sequence<bool, InPlace...>>> {
  using node_type = graph::while_plan<ArgCount, Inits, CondPlan, BodyPlan, std::integer_sequence<bool, InPlace...>>;
  using specs = typename node_type::output_specs;
  static constexpr std::size_t V = sizeof...(InPlace);
  static constexpr std::array<bool, sizeof...(InPlace)> in_place{InPlace...};  // (a bounded array: clang)
  using layout = detail::loop_output_layout<InPlace...>;
  using buffers = typename detail::loop_buffers<specs>::type;

  // Variable K is overwritten in place by the body (one buffer, no swap: a hand-written loop's
  // `v = v * a + b`) when the body is fused loops only (no slot, so every value is read at the
  // position it is written), K's shape is static, and no other body output reads K (it would
  // see the new values).
  static constexpr std::array<bool, V> overwrite = []<std::size_t... K>(std::index_sequence<K...>) {
    auto one = []<std::size_t k>(std::integral_constant<std::size_t, k>) {
      if constexpr (in_place[k] || BodyPlan::slot_count != 0 || !std::tuple_element_t<k, specs>::shape_type::is_static) {
        return false;
      } else {
        return []<std::size_t... J>(std::index_sequence<J...>) {
          return (true && ... &&
                  (layout::table[J].first == k ||
                   !graph::uses_argument<ArgCount + k, std::tuple_element_t<J, typename BodyPlan::outputs_type>>));
        }(std::make_index_sequence<layout::count>{});
      }
    };
    return std::array<bool, V>{one(std::integral_constant<std::size_t, K>{})...};
  }(std::make_index_sequence<V>{});

  template <std::size_t K>
  static auto staging_for() {
    if constexpr (!in_place[K]) {
      return detail::no_staging{};
    } else {
      using I = typename std::tuple_element_t<layout::first_output(K), typename BodyPlan::outputs_type>::value_type;
      using spec = std::tuple_element_t<K, specs>;
      using T = typename spec::value_type;
      return detail::staged_write<I, T, typename staticflow::detail::drop_leading<typename spec::shape_type>::type>{};
    }
  }
  using staging = decltype([]<std::size_t... K>(std::index_sequence<K...>) {
    return std::tuple{staging_for<K>()...};
  }(std::make_index_sequence<V>{}));

  // Where body output J goes: variable K's next buffer, or the staging of its in-place write.
  struct body_targets {
    buffers& cur;
    buffers& next;
    staging& staged;
    plan::arena& arena;
    template <std::size_t J, std::size_t R>
    auto* allocate(const extents<R>& ext) const {
      constexpr std::size_t K = layout::table[J].first;
      constexpr std::size_t part = layout::table[J].second;
      if constexpr (overwrite[K]) {
        return staticflow::detail::get<K>(cur).resize(ext);
      } else if constexpr (!in_place[K]) {
        return staticflow::detail::get<K>(next).resize(ext);
      } else if constexpr (part == 0) {
        return &staticflow::detail::get<K>(staged).index;
      } else {
        auto& s = staticflow::detail::get<K>(staged);
        s.value_ext = ext;
        s.value = s.storage.get(arena, ext);
        return s.value;
      }
    }
  };

  // A loop over scalars with no materialized node in its condition or body runs on values held
  // in registers: each iteration evaluates the condition and the body element by element
  // (cpu::detail::scalar_at), with no view, buffer or plan in between.
  static constexpr bool scalar_loop = [] {
    bool all_scalar = true;
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      ((all_scalar = all_scalar && std::tuple_element_t<K, specs>::shape_type::rank == 0), ...);
    }(std::make_index_sequence<V>{});
    return all_scalar && CondPlan::slot_count == 0 && BodyPlan::slot_count == 0 && !(InPlace || ...);
  }();

  template <class Graphs, class Visible, class State, std::size_t... I>
  STATICFLOW_INLINE static auto scalar_cursors(const Visible& visible, const State& state, std::index_sequence<I...>) {
    auto one = [&]<std::size_t J>(std::integral_constant<std::size_t, J>) STATICFLOW_LAMBDA_INLINE {
      constexpr bool used = []<std::size_t... G>(std::index_sequence<G...>) {
        return (graph::uses_argument<J, std::remove_cvref_t<std::tuple_element_t<G, Graphs>>> || ...);
      }(std::make_index_sequence<std::tuple_size<Graphs>::value>{});
      if constexpr (!used) return detail::unused_cursor{};
      else if constexpr (J >= ArgCount) return detail::broadcast_cursor<std::tuple_element_t<J - ArgCount, State>>{staticflow::detail::get<J - ArgCount>(state)};
      else return detail::broadcast_cursor<std::remove_cv_t<std::remove_pointer_t<decltype(staticflow::detail::get<J>(visible).data)>>>{*staticflow::detail::get<J>(visible).data};
    };
    return staticflow::detail::pack_values(one(std::integral_constant<std::size_t, I>{})...);
  }

  // Forced inline, as is run(): a plan traced at compile time is a constant only where the loop
  // is inlined into the call that reads it (out of line, every literal is a load and `m / 2` a
  // run-time shift: Collatz 1.2x -> 1.4x the hand loop when GCC stopped inlining it).
  template <class FullSig, class All, class Out>
  STATICFLOW_INLINE static void run_scalar(const node_type& n, All& all, const Out& out) {
    auto state = [&]<std::size_t... K>(std::index_sequence<K...>) {
      return staticflow::detail::value_pack<decltype(detail::scalar_value<FullSig>(staticflow::detail::get<K>(n.inits), all))...>{
          {{detail::scalar_value<FullSig>(staticflow::detail::get<K>(n.inits), all)}...}};
    }(std::make_index_sequence<V>{});
    const auto visible = detail::first_values<ArgCount>(all);
    const auto& cond = staticflow::detail::get<0>(n.cond.outputs);
    using graphs = decltype(staticflow::detail::values_concat(n.cond.outputs, n.body.outputs));
    constexpr auto indices = std::make_index_sequence<ArgCount + V>{};
    // One step: false when the condition fails, else the body's values replace the state.
    auto step = [&]() STATICFLOW_LAMBDA_INLINE {
      const auto c = scalar_cursors<graphs>(visible, state, indices);
      if (!detail::scalar_at(cond, c, 0)) return false;
      state = [&]<std::size_t... K>(std::index_sequence<K...>) STATICFLOW_LAMBDA_INLINE {
        return decltype(state){{{static_cast<std::tuple_element_t<K, decltype(state)>>(
            detail::scalar_at(staticflow::detail::get<K>(n.body.outputs), c, 0))}...}};
      }(std::make_index_sequence<V>{});
      return true;
    };
    if (n.max_iterations < 0) {  // no maximum: no iteration counter in the loop
      while (step()) {
      }
    } else {
      for (std::int64_t iteration = 0; iteration < n.max_iterations && step(); ++iteration) {
      }
    }
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      ((*out.template allocate<K>(extents<0>{}) = staticflow::detail::get<K>(state)), ...);
    }(std::make_index_sequence<V>{});
  }

  // ---- The element-local loop ----
  // When the condition and the scalar variables never read a vector variable, and every vector
  // variable is updated by one fused SIMD graph (variables of one static size and dtype, reading
  // arguments of that size or scalars), element j's history depends on element j alone. The loop
  // then runs block by block of lanes: a block's variables stay in registers for every iteration
  // and go to memory once, instead of one pass over memory per iteration. (GCC does part of this
  // to a hand-written `for (it ...) for (j ...) v[j] = v[j] * a[j] + b[j]`: two iterations per
  // pass.) Every element takes the path (batch width, or scalar) that the fused kernel gives it
  // (cpu::detail::run_loop), so results are bit-for-bit those of the general loop.
  static constexpr std::array<bool, V> is_vector = []<std::size_t... K>(std::index_sequence<K...>) {
    return std::array<bool, V>{(std::tuple_element_t<K, specs>::shape_type::rank > 0)...};
  }(std::make_index_sequence<V>{});
  static constexpr std::size_t first_vector = [] {
    for (std::size_t k = 0; k < V; ++k)
      if (is_vector[k]) return k;
    return V;
  }();
  using cond_output = std::remove_cvref_t<std::tuple_element_t<0, typename CondPlan::outputs_type>>;
  template <std::size_t K>
  using body_output = std::remove_cvref_t<std::tuple_element_t<K, typename BodyPlan::outputs_type>>;

  static constexpr std::array<bool, V> scalar_mask = [] {
    std::array<bool, V> m{};
    for (std::size_t k = 0; k < V; ++k) m[k] = !is_vector[k];
    return m;
  }();
  static constexpr std::array<bool, V> all_mask = [] {
    std::array<bool, V> m{};
    m.fill(true);
    return m;
  }();

  static constexpr bool element_local = [] {
    if constexpr (first_vector == V || CondPlan::slot_count != 0 || BodyPlan::slot_count != 0 || (InPlace || ...)) {
      return false;
    } else {
      using first = std::tuple_element_t<first_vector, specs>;
      using T = typename first::value_type;
      if constexpr (std::is_same<T, bool>::value || !first::shape_type::is_static || first::shape_type::size == 0) {
        return false;
      } else {
        return []<std::size_t... K>(std::index_sequence<K...>) {
          auto fits = []<std::size_t k>(std::integral_constant<std::size_t, k>) {
            using spec = std::tuple_element_t<k, specs>;
            using update = body_output<k>;
            if constexpr (spec::shape_type::rank == 0) {
              return true;
            } else {
              return spec::shape_type::is_static && spec::shape_type::size == first::shape_type::size &&
                     std::is_same<typename spec::value_type, T>::value && std::is_same<typename update::value_type, T>::value &&
                     update::shape_type::is_static && update::shape_type::size == first::shape_type::size &&
                     detail::takes_simd_path<update> &&
                     !detail::read_by<ArgCount + k, cond_output, typename BodyPlan::outputs_type>(true, scalar_mask);
            }
          };
          return (fits(std::integral_constant<std::size_t, K>{}) && ...);
        }(std::make_index_sequence<V>{});
      }
    }
  }();

  template <class FullSig, class All, class Out>
  STATICFLOW_INLINE static void run(const node_type& n, All& all, const Out& out) {
    if constexpr (STATICFLOW_LOOP_EFFECTS != 0) {
      if (n.effects) [[unlikely]] {  // a body with effects: the loop runs in its effect, in program order
        run_with_effects<FullSig>(n, all, out);
        return;
      }
    }
    if constexpr (scalar_loop) {
      run_scalar<FullSig>(n, all, out);
    } else if constexpr (element_local) {
      if (!run_element_local<FullSig>(n, all, out)) run_general<FullSig>(n, all, out);
    } else {
      run_general<FullSig>(n, all, out);
    }
  }

  // The loop's effect evaluates this loop (effects/loop_statement.hpp) with the general loop, which
  // runs the body's effects every iteration; the function's graph then copies the final
  // variables it left.
  template <class FullSig, class All, class Out>
  [[gnu::cold]] static void run_with_effects(const node_type& n, All& all, const Out& out) {
    if (n.effects->running) {
      run_general<FullSig>(n, all, out);
      return;
    }
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      ([&] {
        using spec = std::tuple_element_t<K, specs>;
        const auto [data, ext] = n.effects->template result<typename spec::value_type, spec::shape_type::rank>(K);
        std::copy_n(data, staticflow::detail::product(ext), out.template allocate<K>(ext));
      }(), ...);
    }(std::make_index_sequence<V>{});
  }

 private:
  template <class FullSig, class All, class Out>
  static void run_general(const node_type& n, All& all, const Out& out) {
    using Sig = decltype(std::tuple_cat(std::declval<detail::first_types_t<ArgCount, FullSig>>(), std::declval<specs>()));
    detail::state_buffers<specs> state;
    buffers& cur = state.cur;
    buffers& next = state.next;
    const auto ext_all = staticflow::detail::extents_of_views(all);
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      ([&] {
        const auto& init = staticflow::detail::get<K>(n.inits);
        const auto e = graph::node_extents(init, ext_all);
        evaluate_into<FullSig>(init, all, e, staticflow::detail::get<K>(cur).resize(e));
      }(), ...);
    }(std::make_index_sequence<V>{});
    const auto visible = detail::first_values<ArgCount>(all);
    plan::arena& arena = plan::arena::local();
    staging staged;
    // One views tuple for the whole loop, its state entries repointed each iteration (building a
    // new tuple per iteration cost a store-forwarding stall per view).
    auto views = [&]<std::size_t... K>(std::index_sequence<K...>) {
      return staticflow::detail::values_concat(visible, staticflow::detail::pack_values(staticflow::detail::get<K>(cur).view()...));
    }(std::make_index_sequence<V>{});
    for (std::int64_t iteration = 0;; ++iteration) {
      [&]<std::size_t... K>(std::index_sequence<K...>) STATICFLOW_LAMBDA_INLINE {
        ((staticflow::detail::get<ArgCount + K>(views).data = staticflow::detail::get<K>(cur).data()), ...);
        ([&] {
          if constexpr (!std::tuple_element_t<K, specs>::shape_type::is_static) staticflow::detail::get<ArgCount + K>(views).ext = staticflow::detail::get<K>(cur).ext;
        }(), ...);
      }(std::make_index_sequence<V>{});
      bool go = false;
      if constexpr (CondPlan::slot_count == 0) go = detail::scalar_value<Sig>(staticflow::detail::get<0>(n.cond.outputs), views);
      else run_plan<Sig>(n.cond, views, detail::scalar_target<bool>{&go});
      if (!go || iteration == n.max_iterations) break;
      if constexpr (STATICFLOW_LOOP_EFFECTS != 0) {
        if (n.effects) [[unlikely]] {  // the body's effects, reading the variables' current values
          [&]<std::size_t... K>(std::index_sequence<K...>) {
            (n.effects->publish(K, staticflow::detail::get<K>(cur).data(), staticflow::detail::get<ArgCount + K>(views).ext.data(),
                                std::tuple_element_t<K, specs>::shape_type::rank),
             ...);
          }(std::make_index_sequence<V>{});
          n.effects->run_body();
        }
      }
      if constexpr (BodyPlan::slot_count > 0) {
        plan::arena_scope scope;  // what the body's slots take goes back after each iteration
        run_plan<Sig>(n.body, views, body_targets{cur, next, staged, arena});
      } else {
        run_plan<Sig>(n.body, views, body_targets{cur, next, staged, arena});
      }
      [&]<std::size_t... K>(std::index_sequence<K...>) {
        ([&] {
          if constexpr (in_place[K]) write_in_place(staticflow::detail::get<K>(cur), staticflow::detail::get<K>(staged), n.grows[K]);
          else if constexpr (!overwrite[K]) staticflow::detail::get<K>(cur).swap(staticflow::detail::get<K>(next));
        }(), ...);
      }(std::make_index_sequence<V>{});
    }
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      ([&] {
        auto& b = staticflow::detail::get<K>(cur);
        const auto v = b.view();
        std::copy_n(v.data, v.size(), out.template allocate<K>(v.ext));
      }(), ...);
    }(std::make_index_sequence<V>{});
  }

  struct no_value {};
  // What block state and scalar state hold for variable K: lanes L of a vector variable, or a
  // scalar variable's value.
  template <class L, std::size_t K>
  using lanes_of = std::conditional_t<is_vector[K], L, no_value>;
  template <std::size_t K>
  using scalar_of = std::conditional_t<is_vector[K], no_value, typename std::tuple_element_t<K, specs>::value_type>;
  template <class L, class Seq = std::make_index_sequence<V>>
  struct block_state;
  template <class L, std::size_t... K>
  struct block_state<L, std::index_sequence<K...>> {
    using type = staticflow::detail::value_pack<lanes_of<L, K>...>;
  };
  template <class Seq = std::make_index_sequence<V>>
  struct scalar_state;
  template <std::size_t... K>
  struct scalar_state<std::index_sequence<K...>> {
    using type = staticflow::detail::value_pack<scalar_of<K>...>;
  };

  template <class L, class T>
  STATICFLOW_INLINE static L load_lanes(const T* p) {
    if constexpr (std::is_arithmetic<L>::value) return *p;
    else return L::load_unaligned(p);
  }
  template <class L, std::size_t K, class T>
  STATICFLOW_INLINE static lanes_of<L, K> load_variable(const std::array<T*, V>& data, std::size_t at) {
    if constexpr (is_vector[K]) return load_lanes<L>(data[K] + at);
    else return {};
  }
  template <class L, class T, std::size_t... K>
  STATICFLOW_INLINE static auto load_block(const std::array<T*, V>& data, std::size_t at, std::index_sequence<K...>) {
    return typename block_state<L>::type{{{load_variable<L, K>(data, at)}...}};
  }
  template <class State, class T, std::size_t... K>
  STATICFLOW_INLINE static void store_block(const State& st, const std::array<T*, V>& data, std::size_t at,
                                            std::index_sequence<K...>) {
    (store_variable<K>(staticflow::detail::get<K>(st), data, at), ...);
  }
  template <std::size_t K, class L, class T>
  STATICFLOW_INLINE static void store_variable(const L& lanes, const std::array<T*, V>& data, std::size_t at) {
    if constexpr (!is_vector[K]) return;
    else if constexpr (std::is_arithmetic<L>::value) data[K][at] = lanes;
    else lanes.store_unaligned(data[K] + at);
  }

  // The cursor of variable K in a block: its lanes, or its scalar value broadcast.
  template <std::size_t K, class State, class Scalars>
  STATICFLOW_INLINE static auto variable_cursor(const State& st, const Scalars& s) {
    if constexpr (!is_vector[K]) {
      return detail::broadcast_cursor<std::tuple_element_t<K, Scalars>>{staticflow::detail::get<K>(s)};
    } else {
      using L = std::tuple_element_t<K, State>;
      if constexpr (std::is_arithmetic<L>::value) return detail::broadcast_cursor<L>{staticflow::detail::get<K>(st)};
      else return detail::register_cursor<L>{staticflow::detail::get<K>(st)};
    }
  }
  // A visible value's cursor for the block of lanes L at `at`: a contiguous argument's lanes are
  // loaded once, before the iterations (a compiler does not hoist the loads itself: they sit
  // after the loop's first exit).
  template <class L, class Cursor>
  STATICFLOW_INLINE static auto preloaded(const Cursor& c, std::size_t at) {
    if constexpr (std::is_same<Cursor, detail::contiguous_cursor<typename detail::lane_value<L>::type>>::value) {
      if constexpr (std::is_arithmetic<L>::value) return detail::broadcast_cursor<L>{c.data[at]};
      else return detail::register_cursor<L>{L::load_unaligned(c.data + at)};
    } else {
      return c;
    }
  }
  template <class L, class VisibleCursors>
  STATICFLOW_INLINE static auto preloaded_all(const VisibleCursors& vc, std::size_t at) {
    return staticflow::detail::apply([&](const auto&... c) STATICFLOW_LAMBDA_INLINE { return staticflow::detail::pack_values(preloaded<L>(c, at)...); }, vc);
  }

  // The cursors of one block: the visible values', then each variable's.
  template <class VisibleCursors, class State, class Scalars, std::size_t... K>
  STATICFLOW_INLINE static auto block_cursors(const VisibleCursors& vc, const State& st, const Scalars& s,
                                              std::index_sequence<K...>) {
    return staticflow::detail::values_concat(vc, staticflow::detail::pack_values(variable_cursor<K>(st, s)...));
  }

  template <class L, std::size_t K, class T, class Cursors>
  STATICFLOW_INLINE static lanes_of<L, K> update_variable(const node_type& n, const Cursors& c, std::size_t at) {
    if constexpr (!is_vector[K]) return {};
    else if constexpr (std::is_arithmetic<L>::value) return static_cast<T>(detail::scalar_at(staticflow::detail::get<K>(n.body.outputs), c, at));
    else return detail::simd_at<L>(staticflow::detail::get<K>(n.body.outputs), c, at);
  }
  template <class L, class T, class Cursors, std::size_t... K>
  STATICFLOW_INLINE static auto update_block(const node_type& n, const Cursors& c, std::size_t at, std::index_sequence<K...>) {
    return typename block_state<L>::type{{{update_variable<L, K, T>(n, c, at)}...}};
  }
  template <std::size_t K, class Cursors>
  STATICFLOW_INLINE static scalar_of<K> update_scalar(const node_type& n, const Cursors& c) {
    if constexpr (is_vector[K]) return {};
    else return static_cast<scalar_of<K>>(detail::scalar_at(staticflow::detail::get<K>(n.body.outputs), c, 0));
  }
  template <class Scalars, class Cursors, std::size_t... K>
  STATICFLOW_INLINE static Scalars update_scalars(const node_type& n, const Cursors& c, std::index_sequence<K...>) {
    return Scalars{{{update_scalar<K>(n, c)}...}};
  }

  // The Count blocks of lanes L (a batch, or one element) at j, j + width, ...: every iteration
  // of the loop, with the variables in registers. The scalar variables start from `initial`
  // (every block runs them anew) and end in `final`.
  template <class L, std::size_t Count, class T, class VisibleCursors, class Scalars>
  STATICFLOW_INLINE static void run_blocks(const node_type& n, const VisibleCursors& vc, const Scalars& initial,
                                           Scalars& final, const std::array<T*, V>& data, std::size_t j) {
    Scalars s = initial;
    constexpr std::size_t width = [] {
      if constexpr (std::is_arithmetic<L>::value) return std::size_t{1};
      else return L::size;
    }();
    constexpr auto vars = std::make_index_sequence<V>{};
    using state = typename block_state<L>::type;
    auto each_block = [&](auto&& f) STATICFLOW_LAMBDA_INLINE {
      [&]<std::size_t... B>(std::index_sequence<B...>) STATICFLOW_LAMBDA_INLINE {
        (f(std::integral_constant<std::size_t, B>{}), ...);
      }(std::make_index_sequence<Count>{});
    };
    std::array<state, Count> st{};
    std::array<decltype(preloaded_all<L>(vc, 0)), Count> visible;
    each_block([&](auto b) STATICFLOW_LAMBDA_INLINE {
      st[b] = load_block<L>(data, j + b * width, vars);
      visible[b] = preloaded_all<L>(vc, j + b * width);
    });
    const auto& cond = staticflow::detail::get<0>(n.cond.outputs);
    for (std::int64_t iteration = 0;; ++iteration) {
      const auto c0 = block_cursors(visible[0], st[0], s, vars);
      if (!detail::scalar_at(cond, c0, 0) || iteration == n.max_iterations) break;
      // every new value from the old ones, then the state replaced
      std::array<state, Count> next{};
      each_block([&](auto b) STATICFLOW_LAMBDA_INLINE {
        next[b] = update_block<L, T>(n, block_cursors(visible[b], st[b], s, vars), j + b * width, vars);
      });
      s = update_scalars<Scalars>(n, c0, vars);
      st = next;
    }
    each_block([&](auto b) STATICFLOW_LAMBDA_INLINE { store_block(st[b], data, j + b * width, vars); });
    final = s;
  }

  // Elements [first, last) in the blocks the fused kernel uses (cpu::detail::run_loop): four
  // batches at a time, single batches, a half- and a quarter-width batch, then single elements.
  template <class T, class VisibleCursors, class Scalars>
  static void run_element_range(const node_type& n, const VisibleCursors& vc, const Scalars& initial, Scalars& s,
                                const std::array<T*, V>& data, std::size_t first, std::size_t last) {
    using B = detail::batch_t<T>;
    constexpr std::size_t W = B::size;
    std::size_t j = first;
    if (last - j >= W) {
      if constexpr (STATICFLOW_LOOP_VARIANTS) {
        for (; j + 4 * W <= last; j += 4 * W) run_blocks<B, 4>(n, vc, initial, s, data, j);
      }
      for (; j + W <= last; j += W) run_blocks<B, 1>(n, vc, initial, s, data, j);
    }
    if constexpr (STATICFLOW_LOOP_VARIANTS) {
      auto narrow = [&]<std::size_t L>(std::integral_constant<std::size_t, L>) {
        if constexpr (L >= 2) {
          using NB = xsimd::make_sized_batch_t<T, L>;
          if constexpr (!std::is_void<NB>::value) {
            if (last - j >= L) {
              run_blocks<NB, 1>(n, vc, initial, s, data, j);
              j += L;
            }
          }
        }
      };
      narrow(std::integral_constant<std::size_t, W / 2>{});
      narrow(std::integral_constant<std::size_t, W / 4>{});
      if constexpr (W >= 8 && !std::is_void<xsimd::make_sized_batch_t<T, W / 4>>::value) {
        for (std::size_t k = 0; k + 1 < W / 4 && j < last; ++k, ++j) run_blocks<T, 1>(n, vc, initial, s, data, j);
        return;
      }
    }
    for (; j < last; ++j) run_blocks<T, 1>(n, vc, initial, s, data, j);
  }

  // Variable K's initial value: a vector variable's straight into its output (each element is then
  // read and written there), a scalar one's returned.
  template <std::size_t K, class FullSig, class All, class Out, class T>
  static scalar_of<K> initial_value(const node_type& n, All& all, const Out& out, std::array<T*, V>& data) {
    const auto& init = staticflow::detail::get<K>(n.inits);
    if constexpr (is_vector[K]) {
      constexpr auto ext = std::tuple_element_t<K, specs>::shape_type::dims;
      data[K] = out.template allocate<K>(ext);
      evaluate_into<FullSig>(init, all, ext, data[K]);
      return {};
    } else {
      return static_cast<scalar_of<K>>(detail::scalar_value<FullSig>(init, all));
    }
  }

  template <std::size_t I, class FullSig, std::size_t Size, class Visible>
  static auto visible_cursor(const Visible& visible, bool& fits) {
    using entry = std::tuple_element_t<I, FullSig>;
    if constexpr (!detail::read_by<I, cond_output, typename BodyPlan::outputs_type>(true, all_mask)) {
      return detail::unused_cursor{};
    } else if constexpr (detail::is_static_scalar<entry>()) {
      return detail::broadcast_cursor<typename entry::value_type>{*staticflow::detail::get<I>(visible).data};
    } else {
      fits = fits && staticflow::detail::get<I>(visible).size() == Size;
      return detail::contiguous_cursor<typename entry::value_type>{staticflow::detail::get<I>(visible).data};
    }
  }

  template <class FullSig, class All, class Out>
  static bool run_element_local(const node_type& n, All& all, const Out& out) {
    using T = typename std::tuple_element_t<first_vector, specs>::value_type;
    constexpr std::size_t size = std::tuple_element_t<first_vector, specs>::shape_type::size;
    const auto visible = detail::first_values<ArgCount>(all);
    // The visible values the graphs read, as in the fused kernel: a static scalar is broadcast,
    // anything else must have the variables' size (else the general loop runs).
    bool fits = true;
    const auto vc = [&]<std::size_t... I>(std::index_sequence<I...>) {
      return staticflow::detail::pack_values(visible_cursor<I, FullSig, size>(visible, fits)...);
    }(std::make_index_sequence<ArgCount>{});
    if (!fits) return false;
    // Initial values: vector variables straight into their outputs (each element is then read
    // and written there), scalar ones into registers.
    std::array<T*, V> data{};
    using scalars = typename scalar_state<>::type;
    scalars s = [&]<std::size_t... K>(std::index_sequence<K...>) {
      return scalars{{{initial_value<K, FullSig>(n, all, out, data)}...}};
    }(std::make_index_sequence<V>{});
    const scalars initial = s;
    const std::size_t threads = threads_for(size);
    if (threads <= 1) {
      run_element_range<T>(n, vc, initial, s, data, 0, size);
    } else {
      // blocks of four batches, as the threaded fused kernel splits its loop
      constexpr std::size_t step = 4 * detail::batch_t<T>::size;
      parallel_for((size + step - 1) / step, threads, [&](std::size_t b0, std::size_t b1) {
        scalars mine{};  // every range computes the same final scalars; the first one keeps them
        run_element_range<T>(n, vc, initial, mine, data, b0 * step, std::min(size, b1 * step));
        if (b0 == 0) s = mine;
      });
    }
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      ([&] {
        if constexpr (!is_vector[K]) *out.template allocate<K>(extents<0>{}) = staticflow::detail::get<K>(s);
      }(), ...);
    }(std::make_index_sequence<V>{});
    return true;
  }

  template <class Buffer, class Staged>
  static void write_in_place(Buffer& b, const Staged& s, bool grows) {
    staticflow::detail::control_evaluation::make_room_for_write(b, static_cast<std::int64_t>(s.index), s.value_ext, grows);
    const std::size_t inner = staticflow::detail::product(s.value_ext);
    std::copy_n(s.value, inner, b.data() + static_cast<std::size_t>(s.index) * inner);
  }
};

/// Whether while loop W (a graph::while_plan) runs as an element-local loop: block by block of
/// lanes, its variables in registers across iterations (tests assert it, as for kernel_kind_v).
template <class W>
inline constexpr bool element_local_loop_v = slot_evaluator<W>::element_local;

/// The start of a tensor array: `count` zero elements.
template <class T, class S, class N>
struct slot_evaluator<graph::ta_zeros<T, S, N>> {
  template <class FullSig, class All, class Out>
  static void run(const graph::ta_zeros<T, S, N>& n, All& all, const Out& out) {
    const auto count = static_cast<std::int64_t>(detail::scalar_value<FullSig>(n.count, all));
    const auto ext = staticflow::detail::control_evaluation::zero_elements_extents<S>(count);
    T* data = out.template allocate<0>(ext);
    std::fill_n(data, staticflow::detail::product(ext), T{});
  }
};

/// A tensor-array write outside a loop: a copy of the array with one element replaced.
template <class A, class I, class V>
struct slot_evaluator<graph::ta_write<A, I, V>> {
  template <class FullSig, class All, class Out>
  static void run(const graph::ta_write<A, I, V>& n, All& all, const Out& out) {
    using T = typename A::value_type;
    const auto ext_all = staticflow::detail::extents_of_views(all);
    const auto ae = graph::node_extents(n.array, ext_all);
    const auto ve = graph::node_extents(n.value, ext_all);
    const auto index = static_cast<std::int64_t>(detail::scalar_value<FullSig>(n.index, all));
    const auto re = staticflow::detail::control_evaluation::written_array_extents<typename A::shape_type>(index, ae, ve, n.dynamic_size);
    T* data = out.template allocate<0>(re);
    const std::size_t inner = staticflow::detail::product(ve);
    const std::size_t old = staticflow::detail::product(ae);
    if (old > 0) evaluate_into<FullSig>(n.array, all, ae, data);
    std::fill(data + old, data + re[0] * inner, T{});
    evaluate_into<FullSig>(n.value, all, ve, data + static_cast<std::size_t>(index) * inner);
  }
};

}  // namespace staticflow::cpu

STATICFLOW_DETAIL_INTRINSICS_END
