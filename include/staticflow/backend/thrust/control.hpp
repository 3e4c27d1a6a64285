// staticflow/backend/thrust/control.hpp -- running control flow on the Thrust backend, driven from
// the host: cond / switch_case evaluate their selector into one device element, copy it back (on
// a host device system, a plain read) and run the plan of the branch it picks; a while loop keeps
// its variables in device buffers, runs the condition's plan into one device bool (copied back)
// and the body's plan into the next buffers each iteration, and swaps (a body with effects runs
// them after each test of the condition, as the CPU kernel does); tensor-array nodes.
//
// The CPU backend's design (backend/cpu/control.hpp), with device buffers; device code stays the
// backend's ordinary kernels (evaluate_into) plus thrust::fill / thrust::copy.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include <thrust/copy.h>
#include <thrust/device_ptr.h>
#include <thrust/device_vector.h>
#include <thrust/fill.h>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/backend/thrust/arena.hpp"
#include "staticflow/backend/thrust/index.hpp"
#include "staticflow/backend/thrust/kernel.hpp"
#include "staticflow/backend/thrust/run_plan.hpp"
#include "staticflow/backend/thrust/system.hpp"
#include "staticflow/control/cond.hpp"
#include "staticflow/control/evaluation.hpp"
#include "staticflow/control/tensor_array.hpp"
#include "staticflow/control/while_loop.hpp"
#include "staticflow/core/errors.hpp"
#include "staticflow/core/shape.hpp"
#include "staticflow/interop/xtensor.hpp"

namespace staticflow::thrust_backend {
namespace detail {

/// The first N elements of a tuple (the values visible to a branch or a body).
template <std::size_t N, class Tuple>
auto first_values(const Tuple& t) {
  return [&]<std::size_t... I>(std::index_sequence<I...>) { return std::tuple{staticflow::detail::get<I>(t)...}; }(
             std::make_index_sequence<N>{});
}

/// One loop variable on the device: a device vector reused across iterations (grown, never
/// shrunk) and the variable's current extents.
template <class T, std::size_t R>
struct device_state {
  ::thrust::device_vector<T> storage;
  extents<R> ext{};

  T* resize(const extents<R>& e) {
    const std::size_t n = staticflow::detail::product(e);
    if (storage.size() < (n ? n : 1)) storage.resize(n ? n : 1);
    ext = e;
    return data();
  }
  T* data() { return ::thrust::raw_pointer_cast(storage.data()); }
  tensor_view<T, R> view() const { return {::thrust::raw_pointer_cast(storage.data()), ext}; }
  void swap(device_state& o) {
    storage.swap(o.storage);
    std::swap(ext, o.ext);
  }
  /// Grows the leading extent to `rows`, keeping the data and zero-filling the new rows.
  void grow_leading(std::size_t rows) {
    extents<R> e = ext;
    e[0] = rows;
    const std::size_t old = staticflow::detail::product(ext), n = staticflow::detail::product(e);
    if (storage.size() < n) storage.resize(n);
    if (n > old) ::thrust::fill(async_policy(), data() + old, data() + n, T{});
    ext = e;
  }
};

template <class Spec>
using device_state_for = device_state<typename Spec::value_type, Spec::shape_type::rank>;
template <class Specs>
struct device_states;
template <class... Spec>
struct device_states<std::tuple<Spec...>> {
  using type = std::tuple<device_state_for<Spec>...>;
};

/// Where an in-place tensor-array write puts its index and element until every output of the
/// body is computed (a later output may read the element the write replaces).
template <class I, class T, std::size_t ER>
struct staged_write {
  I* index = nullptr;  // one device element
  T* value = nullptr;  // a device buffer of the iteration's arena scope
  extents<ER> value_ext{};
};
using staticflow::detail::control_evaluation::loop_output_layout;
using staticflow::detail::control_evaluation::no_staging;
using staticflow::detail::control_evaluation::scalar_target;

}  // namespace detail

/// cond / switch_case: computes the selector on the device, copies it back, then runs only the
/// plan of the branch it picks into the slot's views.
template <class Kind, std::size_t ArgCount, class Pred, class... Plans>
struct slot_evaluator<graph::branch_plan<Kind, ArgCount, Pred, Plans...>> {
  template <class Node, class All, class Out>
  static void run(const Node& n, All& all, const Out& out) {
    const auto selector = detail::scalar_on_host(n.pred, all);
    const std::size_t pick = Kind::branch(selector, sizeof...(Plans));
    const auto visible = detail::first_values<ArgCount>(all);
    [&]<std::size_t... B>(std::index_sequence<B...>) {
      ((pick == B ? run_plan<ArgCount>(staticflow::detail::get<B>(n.plans), visible, out) : void()), ...);
    }(std::index_sequence_for<Plans...>{});
  }
};

/// while_loop: initial values into device state buffers, then the condition (one bool copied
/// back) and the body until the condition fails (or max_iterations), then the final state into
/// the slot's values.
template <std::size_t ArgCount, class Inits, class CondPlan, class BodyPlan, bool... InPlace>
struct slot_evaluator<graph::while_plan<ArgCount, Inits, CondPlan, BodyPlan, std::integer_sequence<bool, InPlace...>>> {
  using node_type = graph::while_plan<ArgCount, Inits, CondPlan, BodyPlan, std::integer_sequence<bool, InPlace...>>;
  using specs = typename node_type::output_specs;
  static constexpr std::size_t V = sizeof...(InPlace);
  static constexpr bool in_place[] = {InPlace..., false};
  using layout = detail::loop_output_layout<InPlace...>;
  using states = typename detail::device_states<specs>::type;

  template <std::size_t K>
  static auto staging_for() {
    if constexpr (!in_place[K]) {
      return detail::no_staging{};
    } else {
      using I = typename std::tuple_element_t<layout::first_output(K), typename BodyPlan::outputs_type>::value_type;
      using spec = std::tuple_element_t<K, specs>;
      return detail::staged_write<I, typename spec::value_type, spec::shape_type::rank - 1>{};
    }
  }
  using staging = decltype([]<std::size_t... K>(std::index_sequence<K...>) {
    return std::tuple{staging_for<K>()...};
  }(std::make_index_sequence<V>{}));

  // Where body output J goes: variable K's next buffer, or the staging of its in-place write.
  struct body_targets {
    states& next;
    staging& staged;
    template <std::size_t J, std::size_t R>
    auto* allocate(const extents<R>& ext) const {
      constexpr std::size_t K = layout::table[J].first;
      constexpr std::size_t part = layout::table[J].second;
      if constexpr (!in_place[K]) {
        return staticflow::detail::get<K>(next).resize(ext);
      } else if constexpr (part == 0) {
        return staticflow::detail::get<K>(staged).index;
      } else {
        auto& s = staticflow::detail::get<K>(staged);
        using T = std::remove_pointer_t<decltype(s.value)>;
        const std::size_t n = staticflow::detail::product(ext);
        s.value_ext = ext;
        s.value = static_cast<T*>(device_arena::local().allocate(sizeof(T) * (n ? n : 1)));
        return s.value;
      }
    }
  };

  template <class All, class Out>
  static void run(const node_type& n, All& all, const Out& out) {
    if constexpr (STATICFLOW_LOOP_EFFECTS != 0) {
      // A body with effects: the loop runs in its effect (effects/loop_statement.hpp), in program
      // order, publishing its variables and running the body's effects every iteration; the
      // function's graph then copies the final variables that run left.
      if (n.effects && !n.effects->running) [[unlikely]] {
        copy_effect_results(*n.effects, out);
        return;
      }
    }
    states cur, next;
    const auto ext_all = staticflow::detail::extents_of_views(all);
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      ([&] {
        const auto& init = staticflow::detail::get<K>(n.inits);
        const auto e = graph::node_extents(init, ext_all);
        evaluate_into(init, all, e, staticflow::detail::get<K>(cur).resize(e));
      }(), ...);
    }(std::make_index_sequence<V>{});
    const auto visible = detail::first_values<ArgCount>(all);
    staging staged;
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      ([&] {
        if constexpr (in_place[K]) {
          auto& s = staticflow::detail::get<K>(staged);
          using I = std::remove_pointer_t<decltype(s.index)>;
          s.index = static_cast<I*>(device_arena::local().allocate(sizeof(I)));
        }
      }(), ...);
    }(std::make_index_sequence<V>{});
    bool* go_device = static_cast<bool*>(device_arena::local().allocate(sizeof(bool)));
    for (std::int64_t iteration = 0;; ++iteration) {
      const auto views = [&]<std::size_t... K>(std::index_sequence<K...>) {
        return std::tuple_cat(visible, std::tuple{staticflow::detail::get<K>(cur).view()...});
      }(std::make_index_sequence<V>{});
      {
        device_arena::scope scope;  // the condition's slots go back after each test
        run_plan<ArgCount + V>(n.cond, views, detail::scalar_target<bool>{go_device});
      }
      if (!detail::read_back<bool>(go_device) || iteration == n.max_iterations) break;
      if constexpr (STATICFLOW_LOOP_EFFECTS != 0) {
        if (n.effects) [[unlikely]] {  // the body's effects, reading the variables' current values
          [&]<std::size_t... K>(std::index_sequence<K...>) {
            ([&] {
              const auto& v = staticflow::detail::get<ArgCount + K>(views);
              n.effects->publish(K, v.data, v.ext.data(), v.ext.size(), system_memory_is_device);
            }(), ...);
          }(std::make_index_sequence<V>{});
          n.effects->run_body();
        }
      }
      device_arena::scope scope;  // what the body's slots take goes back after each iteration
      run_plan<ArgCount + V>(n.body, views, body_targets{next, staged});
      [&]<std::size_t... K>(std::index_sequence<K...>) {
        ([&] {
          if constexpr (in_place[K]) write_in_place<std::tuple_element_t<K, specs>>(staticflow::detail::get<K>(cur), staticflow::detail::get<K>(staged), n.grows[K]);
          else staticflow::detail::get<K>(cur).swap(staticflow::detail::get<K>(next));
        }(), ...);
      }(std::make_index_sequence<V>{});
    }
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      ([&] {
        auto& b = staticflow::detail::get<K>(cur);
        const auto v = b.view();
        auto* dst = out.template allocate<K>(v.ext);
        const std::size_t size = v.size();
        if (size > 0) ::thrust::copy_n(async_policy(), v.data, size, dst);
      }(), ...);
    }(std::make_index_sequence<V>{});
  }

 private:
  // Whether the loop's buffers are out of the host's reach (CUDA): the body's effects then read
  // them on the device as they are (backend/thrust/effect_graph.hpp).
  static constexpr bool system_memory_is_device = STATICFLOW_THRUST_CUDA != 0;

  /// The final variables the loop's effect left (host memory) into the slot's values.
  template <class Out>
  [[gnu::cold]] static void copy_effect_results(const staticflow::detail::loop_effects& effects, const Out& out) {
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      ([&] {
        using spec = std::tuple_element_t<K, specs>;
        const auto [data, ext] = effects.template result<typename spec::value_type, spec::shape_type::rank>(K);
        auto* dst = out.template allocate<K>(ext);
        const std::size_t size = staticflow::detail::product(ext);
        if (size > 0) ::thrust::copy_n(data, size, ::thrust::device_pointer_cast(dst));
      }(), ...);
    }(std::make_index_sequence<V>{});
  }

  template <class Spec, class State, class Staged>
  static void write_in_place(State& b, const Staged& s, bool grows) {
    using I = std::remove_pointer_t<decltype(s.index)>;
    const auto index = static_cast<std::int64_t>(detail::read_back<I>(s.index));
    staticflow::detail::control_evaluation::make_room_for_write(
        b, index, s.value_ext, grows && staticflow::detail::control_evaluation::leading_extent_grows<typename Spec::shape_type>);
    const std::size_t inner = staticflow::detail::product(s.value_ext);
    if (inner > 0) ::thrust::copy_n(async_policy(), s.value, inner, b.data() + static_cast<std::size_t>(index) * inner);
  }
};

/// The start of a tensor array: `count` zero elements.
template <class T, class S, class N>
struct slot_evaluator<graph::ta_zeros<T, S, N>> {
  template <class All, class Out>
  static void run(const graph::ta_zeros<T, S, N>& n, All& all, const Out& out) {
    const auto count = static_cast<std::int64_t>(detail::scalar_on_host(n.count, all));
    const auto ext = staticflow::detail::control_evaluation::zero_elements_extents<S>(count);
    T* data = out.template allocate<0>(ext);
    const std::size_t size = staticflow::detail::product(ext);
    if (size > 0) ::thrust::fill_n(async_policy(), data, size, T{});
  }
};

/// A tensor-array write outside a loop: a copy of the array with one element replaced.
template <class A, class I, class V>
struct slot_evaluator<graph::ta_write<A, I, V>> {
  template <class All, class Out>
  static void run(const graph::ta_write<A, I, V>& n, All& all, const Out& out) {
    using T = typename A::value_type;
    const auto ext_all = staticflow::detail::extents_of_views(all);
    const auto ae = graph::node_extents(n.array, ext_all);
    const auto ve = graph::node_extents(n.value, ext_all);
    const auto index = static_cast<std::int64_t>(detail::scalar_on_host(n.index, all));
    const auto re = staticflow::detail::control_evaluation::written_array_extents<typename A::shape_type>(index, ae, ve, n.dynamic_size);
    T* data = out.template allocate<0>(re);
    const std::size_t inner = staticflow::detail::product(ve);
    const std::size_t old = staticflow::detail::product(ae);
    const std::size_t total = re[0] * inner;
    if (old > 0) evaluate_into(n.array, all, ae, data);
    if (total > old) ::thrust::fill(async_policy(), data + old, data + total, T{});
    evaluate_into(n.value, all, ve, data + static_cast<std::size_t>(index) * inner);
  }
};

}  // namespace staticflow::thrust_backend
