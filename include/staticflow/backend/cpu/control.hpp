// staticflow/backend/cpu/control.hpp -- running control flow on the CPU: cond / switch_case run
// the plan of the branch their selector picks; while loops keep their variables in state buffers
// and run the condition's and the body's plans until the condition fails; tensor-array nodes.
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

#include "staticflow/backend/cpu/run_plan.hpp"
#include "staticflow/control/cond.hpp"
#include "staticflow/control/tensor_array.hpp"
#include "staticflow/control/while_loop.hpp"
#include "staticflow/core/config.hpp"
#include "staticflow/core/errors.hpp"

namespace staticflow::cpu {
namespace detail {

/// The first N elements of a tuple (the values visible to a branch or a body: a function's
/// arguments and the variables of the loops around it).
template <std::size_t N, class Tuple>
STATICFLOW_INLINE auto first_values(const Tuple& t) {
  return [&]<std::size_t... I>(std::index_sequence<I...>) STATICFLOW_LAMBDA_INLINE {
    return std::tuple{std::get<I>(t)...};
  }(std::make_index_sequence<N>{});
}
template <std::size_t N, class Tuple>
using first_types_t = decltype(first_values<N>(std::declval<Tuple>()));

/// One loop variable's buffer: in place for a small static shape, else on the heap, reused
/// across iterations and grown (never shrunk) as the variable's extents change.
template <class T, class S, bool Static = S::is_static && S::size * sizeof(T) <= STATICFLOW_MAX_STATIC_BYTES>
struct loop_buffer {
  static constexpr std::size_t rank = S::rank;
  static constexpr extents<rank> ext = S::dims;
  alignas(64) std::array<T, S::size> storage;  // not zeroed: the initial values and the body write all of it
  T* current = storage.data();  // a swap exchanges these pointers, not the contents

  loop_buffer() = default;
  loop_buffer(const loop_buffer&) = delete;
  loop_buffer& operator=(const loop_buffer&) = delete;

  T* resize(const extents<rank>&) { return current; }
  T* data() { return current; }
  tensor_view<T, rank> view() const { return {current, S::dims}; }
  void swap(loop_buffer& o) { std::swap(current, o.current); }
};

template <class T, class S>
struct loop_buffer<T, S, false> {
  static constexpr std::size_t rank = S::rank;
  std::unique_ptr<T[]> storage;
  T* start = nullptr;     // storage + skew
  std::size_t skew = 0;   // elements before start (see state_buffers)
  std::size_t capacity = 0;
  extents<rank> ext{};

  T* resize(const extents<rank>& e) {
    const std::size_t n = staticflow::detail::product(e);
    if (n > capacity) {
      storage.reset(new T[n + skew]);
      start = storage.get() + skew;
      capacity = n;
    }
    ext = e;
    return start;
  }
  T* data() { return start; }
  tensor_view<T, rank> view() const { return {start, ext}; }
  void swap(loop_buffer& o) {
    std::swap(storage, o.storage);
    std::swap(start, o.start);
    std::swap(skew, o.skew);
    std::swap(capacity, o.capacity);
    std::swap(ext, o.ext);
  }
  /// Grows the leading extent to `rows`, keeping the data and zero-filling the new rows.
  void grow_leading(std::size_t rows) {
    extents<rank> e = ext;
    e[0] = rows;
    const std::size_t old = staticflow::detail::product(ext), n = staticflow::detail::product(e);
    if (n > capacity) {
      const std::size_t cap = std::max(n, 2 * capacity);
      std::unique_ptr<T[]> p(new T[cap + skew]);
      std::copy_n(start, old, p.get() + skew);
      storage = std::move(p);
      start = storage.get() + skew;
      capacity = cap;
    }
    std::fill(start + old, start + n, T{});
    ext = e;
  }
};

template <class Spec>
using loop_buffer_for = loop_buffer<typename Spec::value_type, typename Spec::shape_type>;
template <class Specs>
struct loop_buffers;
template <class... Spec>
struct loop_buffers<std::tuple<Spec...>> {
  using type = std::tuple<loop_buffer_for<Spec>...>;
};

/// A loop's current and next state. The body reads `cur` while it writes `next`; when the two
/// buffers of a variable sit a multiple of 4 KiB apart, every store looks to the CPU like it may
/// feed a load of the other buffer (4K aliasing) and the loop runs at half speed (measured on a
/// 1024-float update). So the two are kept about 2 KiB apart modulo 4 KiB: by padding for static
/// shapes, by a skew of the heap block for run-time ones.
template <class Specs>
struct state_buffers {
  using buffers = typename loop_buffers<Specs>::type;
  static constexpr std::size_t pad = [] {
    const std::size_t rest = sizeof(buffers) % 4096;
    return ((2048 + 4096 - rest) % 4096) / 64 * 64 + 64;
  }();
  buffers cur;
  alignas(64) unsigned char padding[pad];
  buffers next;

  state_buffers() {
    std::apply([](auto&... b) {
      ([&] {
        if constexpr (requires { b.skew; }) b.skew = 2048 / sizeof(*b.data());
      }(), ...);
    }, next);
  }
};

/// Writes one scalar result (a condition, a selector) to `out`.
template <class T>
struct scalar_target {
  T* out;
  template <std::size_t J, std::size_t R>
  T* allocate(const extents<R>&) const { return out; }
};

/// Checks a tensor-array write of element `value` (extents ve) at `index` into an array of
/// extents `array` and returns the leading extent after it (grown when allowed).
template <std::size_t R, std::size_t ER>
std::size_t checked_write(std::int64_t index, extents<R>& array, const extents<ER>& ve, bool grows) {
  static_assert(ER + 1 == R);
  if (index < 0)
    throw shape_error("tensor_array::write: index " + std::to_string(index) + " is negative");
  const std::size_t rows = array[0];
  if (rows == 0)  // an empty array takes its element shape from its first element
    for (std::size_t d = 0; d < ER; ++d) array[d + 1] = ve[d];
  extents<ER> element{};
  for (std::size_t d = 0; d < ER; ++d) element[d] = array[d + 1];
  if (element != ve)
    throw shape_error("tensor_array::write: the element has shape " + staticflow::detail::extents_string(ve) +
                      ", the array's elements have shape " + staticflow::detail::extents_string(element));
  if (static_cast<std::uint64_t>(index) >= rows && !grows)
    throw shape_error("tensor_array::write: index " + std::to_string(index) +
                      " is out of range for a tensor array of size " + std::to_string(rows) +
                      " (its size is fixed; make it with dynamic_size to let it grow)");
  return std::max(rows, static_cast<std::size_t>(index) + 1);
}

/// Where an in-place tensor-array write puts its index and element until every output of the
/// body is computed (a later output may read the element the write replaces).
template <class I, class T, class ES>
struct staged_write {
  I index{};
  plan::slot_storage<void, T, ES> storage;
  T* value = nullptr;
  extents<ES::rank> value_ext{};
};
struct no_staging {};

// For body output J: the loop variable it belongs to and whether it is the element (part 1) or
// the index (part 0) of an in-place write.
template <bool... InPlace>
struct flat_layout {
  static constexpr std::size_t count = (std::size_t{0} + ... + (InPlace ? 2 : 1));
  static constexpr auto table = [] {
    constexpr bool mask[] = {InPlace...};
    std::array<std::pair<std::size_t, std::size_t>, count> t{};
    std::size_t j = 0;
    for (std::size_t k = 0; k < sizeof...(InPlace); ++k) {
      t[j++] = {k, 0};
      if (mask[k]) t[j++] = {k, 1};
    }
    return t;
  }();
};

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
      ((pick == B ? run_plan<Sig>(std::get<B>(n.plans), visible, out) : void()), ...);
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
  static constexpr bool in_place[] = {InPlace...};
  using layout = detail::flat_layout<InPlace...>;
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
                   !graph::uses_argument<ArgCount + k, std::tuple_element_t<J, typename BodyPlan::outputs_type>>()));
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
      constexpr std::size_t index_output = [] {
        for (std::size_t j = 0; j < layout::count; ++j)
          if (layout::table[j].first == K) return j;
        return std::size_t{0};
      }();
      using I = typename std::tuple_element_t<index_output, typename BodyPlan::outputs_type>::value_type;
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
        return std::get<K>(cur).resize(ext);
      } else if constexpr (!in_place[K]) {
        return std::get<K>(next).resize(ext);
      } else if constexpr (part == 0) {
        return &std::get<K>(staged).index;
      } else {
        auto& s = std::get<K>(staged);
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
        return (graph::uses_argument<J, std::remove_cvref_t<std::tuple_element_t<G, Graphs>>>() || ...);
      }(std::make_index_sequence<std::tuple_size_v<Graphs>>{});
      if constexpr (!used) return detail::unused_cursor{};
      else if constexpr (J >= ArgCount) return detail::broadcast_cursor<std::tuple_element_t<J - ArgCount, State>>{std::get<J - ArgCount>(state)};
      else return detail::broadcast_cursor<std::remove_cv_t<std::remove_pointer_t<decltype(std::get<J>(visible).data)>>>{*std::get<J>(visible).data};
    };
    return std::tuple{one(std::integral_constant<std::size_t, I>{})...};
  }

  template <class FullSig, class All, class Out>
  static void run_scalar(const node_type& n, All& all, const Out& out) {
    auto state = [&]<std::size_t... K>(std::index_sequence<K...>) {
      return std::tuple{detail::scalar_value<FullSig>(std::get<K>(n.inits), all)...};
    }(std::make_index_sequence<V>{});
    const auto visible = detail::first_values<ArgCount>(all);
    const auto& cond = std::get<0>(n.cond.outputs);
    using graphs = decltype(std::tuple_cat(n.cond.outputs, n.body.outputs));
    constexpr auto indices = std::make_index_sequence<ArgCount + V>{};
    // One step: false when the condition fails, else the body's values replace the state.
    auto step = [&]() STATICFLOW_LAMBDA_INLINE {
      const auto c = scalar_cursors<graphs>(visible, state, indices);
      if (!detail::scalar_at(cond, c, 0)) return false;
      state = [&]<std::size_t... K>(std::index_sequence<K...>) STATICFLOW_LAMBDA_INLINE {
        return decltype(state){static_cast<std::tuple_element_t<K, decltype(state)>>(
            detail::scalar_at(std::get<K>(n.body.outputs), c, 0))...};
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
      ((*out.template allocate<K>(extents<0>{}) = std::get<K>(state)), ...);
    }(std::make_index_sequence<V>{});
  }

  template <class FullSig, class All, class Out>
  static void run(const node_type& n, All& all, const Out& out) {
    if constexpr (scalar_loop) run_scalar<FullSig>(n, all, out);
    else run_general<FullSig>(n, all, out);
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
        const auto& init = std::get<K>(n.inits);
        const auto e = graph::node_extents(init, ext_all);
        evaluate_into<FullSig>(init, all, e, std::get<K>(cur).resize(e));
      }(), ...);
    }(std::make_index_sequence<V>{});
    const auto visible = detail::first_values<ArgCount>(all);
    plan::arena& arena = plan::arena::local();
    staging staged;
    // One views tuple for the whole loop, its state entries repointed each iteration (building a
    // new tuple per iteration cost a store-forwarding stall per view).
    auto views = [&]<std::size_t... K>(std::index_sequence<K...>) {
      return std::tuple_cat(visible, std::tuple{std::get<K>(cur).view()...});
    }(std::make_index_sequence<V>{});
    for (std::int64_t iteration = 0;; ++iteration) {
      [&]<std::size_t... K>(std::index_sequence<K...>) STATICFLOW_LAMBDA_INLINE {
        ((std::get<ArgCount + K>(views).data = std::get<K>(cur).data()), ...);
        ([&] {
          if constexpr (!std::tuple_element_t<K, specs>::shape_type::is_static) std::get<ArgCount + K>(views).ext = std::get<K>(cur).ext;
        }(), ...);
      }(std::make_index_sequence<V>{});
      bool go = false;
      if constexpr (CondPlan::slot_count == 0) go = detail::scalar_value<Sig>(std::get<0>(n.cond.outputs), views);
      else run_plan<Sig>(n.cond, views, detail::scalar_target<bool>{&go});
      if (!go || iteration == n.max_iterations) break;
      if constexpr (BodyPlan::slot_count > 0) {
        plan::arena_scope scope;  // what the body's slots take goes back after each iteration
        run_plan<Sig>(n.body, views, body_targets{cur, next, staged, arena});
      } else {
        run_plan<Sig>(n.body, views, body_targets{cur, next, staged, arena});
      }
      [&]<std::size_t... K>(std::index_sequence<K...>) {
        ([&] {
          if constexpr (in_place[K]) write_in_place(std::get<K>(cur), std::get<K>(staged), n.grows[K]);
          else if constexpr (!overwrite[K]) std::get<K>(cur).swap(std::get<K>(next));
        }(), ...);
      }(std::make_index_sequence<V>{});
    }
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      ([&] {
        auto& b = std::get<K>(cur);
        const auto v = b.view();
        std::copy_n(v.data, v.size(), out.template allocate<K>(v.ext));
      }(), ...);
    }(std::make_index_sequence<V>{});
  }

  template <class Buffer, class Staged>
  static void write_in_place(Buffer& b, const Staged& s, bool grows) {
    constexpr bool growable = requires { b.grow_leading(std::size_t{}); };
    auto ext = b.view().ext;  // an empty array takes its element extents from this element
    const std::size_t rows = detail::checked_write(static_cast<std::int64_t>(s.index), ext, s.value_ext, grows && growable);
    if constexpr (growable) {
      if (rows != ext[0] || ext != b.ext) {
        b.ext = ext;
        b.grow_leading(rows);
      }
    }
    const std::size_t inner = staticflow::detail::product(s.value_ext);
    std::copy_n(s.value, inner, b.data() + static_cast<std::size_t>(s.index) * inner);
  }
};

/// The start of a tensor array: `count` zero elements.
template <class T, class S, class N>
struct slot_evaluator<graph::ta_zeros<T, S, N>> {
  template <class FullSig, class All, class Out>
  static void run(const graph::ta_zeros<T, S, N>& n, All& all, const Out& out) {
    const auto count = static_cast<std::int64_t>(detail::scalar_value<FullSig>(n.count, all));
    if (count < 0) throw shape_error("tensor_array: the size " + std::to_string(count) + " is negative");
    extents<S::rank> ext = S::dims;
    for (std::size_t d = 0; d < S::rank; ++d)
      if (ext[d] == dyn) ext[d] = d == 0 ? static_cast<std::size_t>(count) : 0;
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
    auto re = ae;
    constexpr bool growable = A::shape_type::dims[0] == dyn;  // a static leading extent is a fixed size
    re[0] = detail::checked_write(index, re, ve, n.dynamic_size && growable);
    T* data = out.template allocate<0>(re);
    const std::size_t inner = staticflow::detail::product(ve);
    const std::size_t old = staticflow::detail::product(ae);
    if (old > 0) evaluate_into<FullSig>(n.array, all, ae, data);
    std::fill(data + old, data + re[0] * inner, T{});
    evaluate_into<FullSig>(n.value, all, ve, data + static_cast<std::size_t>(index) * inner);
  }
};

}  // namespace staticflow::cpu
