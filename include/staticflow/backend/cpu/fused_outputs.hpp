// staticflow/backend/cpu/fused_outputs.hpp -- multi-output fusion: a function's full reduction
// and its elementwise outputs of the same extents computed in one pass over the inputs.
//
// value_and_grad of a loss is the common case: the loss is a reduction, each gradient of an
// elementwise loss an elementwise output over the same elements. Computed apart, every input is
// read once per output and every subexpression they share (the tanh of sum(tanh(x * w + b)) and of
// its gradient) is computed once per output. In one pass each input is read once, and because
// each step computes all its values before it stores any (a store could alias an input, which
// would force the compiler to read and compute again), the compiler merges the shared work.
//
// The reduction keeps reduce.hpp's order exactly (blocks of 4096, four accumulators per block,
// block results combined pairwise): the value is bit-identical to the unfused one, whatever the
// thread count. The plan decides at compile time what may fuse (output_fusion); each call checks
// at run time that the outputs have the reduction's extents, read no broadcast argument and
// overlap no input, and otherwise computes everything the usual way.
#pragma once

#include <array>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/backend/cpu/kernel.hpp"
#include "staticflow/backend/cpu/reduce.hpp"
#include "staticflow/graph/reduce.hpp"
#include "staticflow/graph/traversal.hpp"
#include "staticflow/plan/plan.hpp"

namespace staticflow::cpu {
namespace detail {

/// One elementwise output of a fused pass: its graph and where it goes.
template <class N, class T>
struct fused_output {
  const N& node;
  T* out;
};

/// The fused pass's cursors: one per argument that the reduction's input or an output reads. One
/// set for all of them (not one per graph, as separate loops have), so that the compiler sees the
/// same pointer behind each read of an argument and can merge the work the graphs share.
template <class Sig, class... N, class Views, std::size_t... I>
STATICFLOW_INLINE auto shared_flat_cursors(const Views& v, std::index_sequence<I...>) {
  [[maybe_unused]] auto one = [&]<std::size_t K>(std::integral_constant<std::size_t, K>) STATICFLOW_LAMBDA_INLINE {
    using entry = std::tuple_element_t<K, Sig>;
    if constexpr (!(graph::uses_argument<K, N> || ...)) return unused_cursor{};
    else if constexpr (is_static_scalar<entry>()) return broadcast_cursor<typename entry::value_type>{*staticflow::detail::get<K>(v).data};
    else return contiguous_cursor<typename entry::value_type>{staticflow::detail::get<K>(v).data};
  };
  return staticflow::detail::pack_values(one(std::integral_constant<std::size_t, I>{})...);
}

template <class B, class O, class Cursors>
STATICFLOW_INLINE std::array<B, 4> four_batches(const O& o, const Cursors& c, std::size_t at) {
  constexpr std::size_t W = B::size;
  return {simd_at<B>(o.node, c, at), simd_at<B>(o.node, c, at + W), simd_at<B>(o.node, c, at + 2 * W),
          simd_at<B>(o.node, c, at + 3 * W)};
}

template <class B, class O>
STATICFLOW_INLINE void store_four(const O& o, const std::array<B, 4>& v, std::size_t at) {
  for (std::size_t u = 0; u < 4; ++u) v[u].store_unaligned(o.out + at + u * B::size);
}

/// One step of four batches at `at`: every value first, then the stores (see the top of this
/// file). `First`: the step that starts the accumulators.
template <bool First, class C, class B, class A, class Cursors, class... O, std::size_t... K>
STATICFLOW_INLINE void fused_step(const A& red, const Cursors& c, const staticflow::detail::value_pack<O...>& outs, std::size_t at,
                                  std::array<B, 4>& acc, std::index_sequence<K...>) {
  constexpr std::size_t W = B::size;
  const std::array<B, 4> r{simd_at<B>(red, c, at), simd_at<B>(red, c, at + W), simd_at<B>(red, c, at + 2 * W),
                           simd_at<B>(red, c, at + 3 * W)};
  const staticflow::detail::value_pack<decltype(four_batches<B>(staticflow::detail::get<K>(outs), c, at))...> values{
      {{four_batches<B>(staticflow::detail::get<K>(outs), c, at)}...}};
  for (std::size_t u = 0; u < 4; ++u) acc[u] = First ? r[u] : C::apply(acc[u], r[u]);
  (store_four<B>(staticflow::detail::get<K>(outs), staticflow::detail::get<K>(values), at), ...);
}

/// reduce_block (reduce.hpp) of graph `red` over [first, first + count) with every output of
/// `outs` written over the same elements in the same pass. A function of its own whose calls are
/// all inlined (one call per block; see kernel.hpp's run_costly_loop).
template <class Op, class A, class Cursors, class... O>
STATICFLOW_FLATTEN typename A::value_type reduce_block_with_outputs(const A& red, const Cursors& cursors,
                                                                    const staticflow::detail::value_pack<O...>& outs, std::size_t first,
                                                                    std::size_t count) {
  using T = typename A::value_type;
  using B = batch_t<T>;
  using C = simd_combine<Op, T>;
  constexpr std::size_t W = B::size;
  constexpr auto each = std::index_sequence_for<O...>{};
  const Cursors c = cursors;  // in registers for the whole block
  T total = Op::template identity<T>();
  std::size_t j = 0;
  if (count >= 4 * W) {
    std::array<B, 4> acc;
    fused_step<true, C>(red, c, outs, first, acc, each);
    for (j = 4 * W; j + 4 * W <= count; j += 4 * W) fused_step<false, C>(red, c, outs, first + j, acc, each);
    const B all = C::apply(C::apply(acc[0], acc[1]), C::apply(acc[2], acc[3]));
    alignas(64) T lanes[W];
    all.store_aligned(lanes);
    total = lanes[0];
    for (std::size_t l = 1; l < W; ++l) total = Op::combine(total, lanes[l]);
  }
  const std::size_t tail = j;
  for (; j < count; ++j) total = Op::combine(total, static_cast<T>(scalar_at(red, c, first + j)));
  staticflow::detail::apply([&](const auto&... o) STATICFLOW_LAMBDA_INLINE {
    (run_loop_body(o.node, c, o.out, first + tail, first + count), ...);
  }, outs);
  return total;
}

/// reduce_range (reduce.hpp) of graph `red` over [0, count) with the outputs written in the same
/// pass.
template <class Op, class A, class Cursors, class Outs>
typename A::value_type reduce_with_outputs(const A& red, const Cursors& c, const Outs& outs, std::size_t count,
                                           std::size_t threads) {
  using T = typename A::value_type;
  constexpr std::size_t block = reduction_block;
  if (count <= block) return reduce_block_with_outputs<Op>(red, c, outs, 0, count);
  return combine_blocks_pairwise<Op, T>((count + block - 1) / block, threads, [&](std::size_t b) {
    return reduce_block_with_outputs<Op>(red, c, outs, b * block, std::min(block, count - b * block));
  });
}

/// Every output of `outs` (one dtype) over [first, last) in one pass: each step computes all its
/// values, then stores them; the tail is each output's usual loop.
template <class Cursors, class... O, std::size_t... K>
STATICFLOW_FLATTEN void outputs_block(const Cursors& cursors, const staticflow::detail::value_pack<O...>& outs, std::size_t first,
                                      std::size_t last, std::index_sequence<K...>) {
  using T = std::remove_pointer_t<decltype(staticflow::detail::get<0>(outs).out)>;
  using B = batch_t<T>;
  constexpr std::size_t W = B::size;
  const Cursors c = cursors;  // in registers for the whole range
  std::size_t j = first;
  for (; j + 4 * W <= last; j += 4 * W) {
    const staticflow::detail::value_pack<decltype(four_batches<B>(staticflow::detail::get<K>(outs), c, j))...> values{
        {{four_batches<B>(staticflow::detail::get<K>(outs), c, j)}...}};
    (store_four<B>(staticflow::detail::get<K>(outs), staticflow::detail::get<K>(values), j), ...);
  }
  (run_loop_body(staticflow::detail::get<K>(outs).node, c, staticflow::detail::get<K>(outs).out, j, last), ...);
}

/// outputs_block over [0, count), split across threads above the grain at multiples of the step.
template <class Cursors, class... O>
void outputs_pass(const Cursors& c, const staticflow::detail::value_pack<O...>& outs, std::size_t count) {
  using T = std::remove_pointer_t<decltype(staticflow::detail::get<0>(outs).out)>;
  constexpr std::size_t step = 4 * batch_t<T>::size;
  constexpr auto each = std::index_sequence_for<O...>{};
  const std::size_t threads = threads_for(count);
  if (threads <= 1) {
    outputs_block(c, outs, 0, count, each);
    return;
  }
  parallel_for((count + step - 1) / step, threads, [&](std::size_t b0, std::size_t b1) {
    outputs_block(c, outs, b0 * step, std::min(count, b1 * step), each);
  });
}

/// Graphs a fused pass evaluates at flat positions: kernel.hpp's elementwise graphs and
/// broadcasts to a static shape (a gradient's seed, `1.0` broadcast to the loss's input); the
/// call's fits_flat check still sees every argument they read.
template <class N>
struct flat_graph : is_elementwise_graph<N> {};
template <class Op, class A>
struct flat_graph<graph::unary<Op, A>> : flat_graph<A> {};
template <class U, class A>
struct flat_graph<graph::cast<U, A>> : flat_graph<A> {};
template <class Op, class A, class B>
struct flat_graph<graph::binary<Op, A, B>> : std::bool_constant<flat_graph<A>::value && flat_graph<B>::value> {};
template <class C, class A, class B>
struct flat_graph<graph::select<C, A, B>>
    : std::bool_constant<flat_graph<C>::value && flat_graph<A>::value && flat_graph<B>::value> {};
template <class A, class R>
struct flat_graph<graph::broadcast_as<A, R>> : std::bool_constant<flat_graph<A>::value && flat_graph<R>::value> {};
template <class S, class A>
struct flat_graph<graph::broadcast<S, A>> : flat_graph<A> {};

template <class N>
struct full_reduction : std::false_type {};
template <class Op, class A, class Axes, bool Keep>
struct full_reduction<graph::reduce<Op, A, Axes, Keep>>
    : std::bool_constant<graph::reduce<Op, A, Axes, Keep>::shape_type::rank == 0 && A::shape_type::rank >= 1 &&
                         std::is_floating_point<typename A::value_type>::value &&
                         std::is_same<typename A::value_type, typename graph::reduce<Op, A, Axes, Keep>::value_type>::value &&
                         flat_graph<A>::value && takes_simd_path<A> &&
                         simd_combine<Op, typename A::value_type>::supported> {};

template <class Views, class T>
bool overlaps_any_view(const Views& views, const T* out, std::size_t size) {
  const auto* lo = reinterpret_cast<const unsigned char*>(out);
  const auto* hi = reinterpret_cast<const unsigned char*>(out + size);
  return staticflow::detail::apply([&](const auto&... v) {
    return ([&] {
      if constexpr (!requires { v.data; v.size(); }) return false;
      else return reinterpret_cast<const unsigned char*>(v.data) < hi &&
                  lo < reinterpret_cast<const unsigned char*>(v.data + staticflow::detail::memory_size(v));
    }() || ...);
  }, views);
}

/// Whether writing output K of `Nodes` (`size` elements at `out`) could overwrite a value an
/// output reads before it is read: any overlap with a view but one that is exactly `out`, which
/// output K may read (at the positions it writes: every other use is a slot of its own) and so
/// may outputs before K that run no later than K. Those are every output before K when the outputs
/// run in order; when `Group` computes its members in one pass (each step reads all its values,
/// then stores them) and the other outputs after it, a member's target may be read only by
/// members before it. What an optimizer's update needs: the new variable reads m and v, whose
/// new values are the group's later members.
template <class Group, std::size_t K, class Nodes, std::size_t I, std::size_t... J>
constexpr bool may_read_target(std::index_sequence<J...>) {
  return ((!graph::uses_argument<I, std::tuple_element_t<J, Nodes>> ||
           (J <= K && !(Group::enabled && Group::template member<K> && !Group::template member<J>))) && ...);
}
template <class Group, std::size_t K, class Nodes, class All, class T>
[[gnu::noinline]] bool target_unsafe_exact(const All& all, const T* out, std::size_t size) {
  const auto* lo = reinterpret_cast<const unsigned char*>(out);
  const auto* hi = reinterpret_cast<const unsigned char*>(out + size);
  bool unsafe = false;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    ([&] {
      const auto& v = staticflow::detail::get<I>(all);
      if constexpr (requires { v.data; v.size(); }) {
        const auto* vlo = reinterpret_cast<const unsigned char*>(v.data);
        const auto* vhi = reinterpret_cast<const unsigned char*>(v.data + staticflow::detail::memory_size(v));
        if (!(vlo < hi && lo < vhi)) return;
        const bool exact = static_cast<const void*>(v.data) == static_cast<const void*>(out) && v.size() == size &&
                           sizeof(*v.data) == sizeof(T);
        constexpr bool readers_ok = may_read_target<Group, K, Nodes, I>(std::make_index_sequence<std::tuple_size<Nodes>::value>{});
        unsafe = unsafe || !exact || !readers_ok;
      }
    }(), ...);
  }(std::make_index_sequence<std::tuple_size<All>::value>{});
  return unsafe;
}
template <class Group, std::size_t K, class Nodes, class All, class T>
STATICFLOW_INLINE bool target_unsafe(const All& all, const T* out, std::size_t size) {
  return overlaps_any_view(all, out, size) && target_unsafe_exact<Group, K, Nodes>(all, out, size);
}
}  // namespace detail

/// How many fused passes this thread has run (tests prove with it which path a call took).
inline std::size_t& fused_pass_counter() {
  thread_local std::size_t count = 0;
  return count;
}

namespace detail {
// Whether slot L (after K) lets slot K be computed last. A function template rather than a
// lambda in a fold expression: clang 14 crashed instantiating that lambda, on
// tests/autodiff/test_gather.cpp (compiler.clang.gradients).
template <class Plan, std::size_t ArgCount, std::size_t K, std::size_t L>
constexpr bool later_slot_allows_last() {
  using slots = typename Plan::slots_type;
  using N = std::tuple_element_t<L, slots>;
  if constexpr (requires { N::self_allocating; } || std::is_same<N, std::tuple_element_t<K, slots>>::value) return false;
  else return !graph::uses_argument<ArgCount + Plan::template view_base<K>, N>;
}
/// Whether slot K of Plan may be computed after every other slot: no later slot reads its value
/// or may repeat it (a repeat shares its views, plan.hpp's same_as, and would be read before it is
/// computed), and none of them computes its own values (loops, conds).
template <class Plan, std::size_t ArgCount, std::size_t K, std::size_t... J>
constexpr bool computable_last(std::index_sequence<J...>) {
  return (later_slot_allows_last<Plan, ArgCount, K, K + 1 + J>() && ...);
}
template <class Plan, std::size_t ArgCount, std::size_t K>
constexpr bool computable_last() {
  return computable_last<Plan, ArgCount, K>(std::make_index_sequence<Plan::slot_count - K - 1>{});
}

/// The last slot of Plan that is a full reduction of an elementwise graph and may be computed
/// after every other slot; Plan::slot_count when there is none.
template <class Plan, std::size_t ArgCount>
constexpr std::size_t fusable_reduction_slot() {
  std::size_t found = Plan::slot_count;
  [&]<std::size_t... K>(std::index_sequence<K...>) {
    ([&] {
      if constexpr (full_reduction<std::tuple_element_t<K, typename Plan::slots_type>>::value)
        if constexpr (computable_last<Plan, ArgCount, K>()) found = K;
    }(), ...);
  }(std::make_index_sequence<Plan::slot_count>{});
  return found;
}

template <class Plan, std::size_t Slot, bool Any = (Slot < Plan::slot_count)>
struct slot_type_or_void {
  using type = void;
};
template <class Plan, std::size_t Slot>
struct slot_type_or_void<Plan, Slot, true> {
  using type = std::tuple_element_t<Slot, typename Plan::slots_type>;
};
}  // namespace detail

/// What a plan's outputs may fuse, known from its types: the plan's last slot that is a full
/// reduction (to a scalar) of an elementwise graph and that no later slot reads (`slot`; the
/// fused pass computes it after every other slot), with every output K that is an elementwise
/// graph of the same dtype and rank as the reduction's input and does not read the reduction
/// (`member<K>`). `enabled` when there is at least one.
template <class Sig, class Plan>
struct output_fusion {
  static constexpr std::size_t arg_count = std::tuple_size<Sig>::value;
  static constexpr std::size_t slot = detail::fusable_reduction_slot<Plan, arg_count>();
  using slot_type = typename detail::slot_type_or_void<Plan, slot>::type;
  static constexpr bool reduction = slot < Plan::slot_count;

  template <std::size_t K>
  static constexpr bool member = [] {
    using N = std::tuple_element_t<K, typename Plan::outputs_type>;
    if constexpr (!reduction) {
      return false;
    } else {
      using A = std::remove_cvref_t<decltype(std::declval<const slot_type&>().a)>;
      if constexpr (!detail::flat_graph<N>::value || !detail::takes_simd_path<N>) return false;
      else return std::is_same<typename N::value_type, typename A::value_type>::value &&
                  N::shape_type::rank == A::shape_type::rank &&
                  !graph::uses_argument<arg_count + Plan::template view_base<slot>, N>;
    }
  }();

  static constexpr std::size_t output_count = std::tuple_size<typename Plan::outputs_type>::value;
  static constexpr bool enabled = []<std::size_t... K>(std::index_sequence<K...>) {
    return (member<K> || ...);
  }(std::make_index_sequence<output_count>{});
};

namespace detail {
template <class Fusion, std::size_t... K>
constexpr auto fused_members(std::index_sequence<K...>) {
  return std::tuple_cat(std::conditional_t<Fusion::template member<K>, std::tuple<std::integral_constant<std::size_t, K>>,
                                           std::tuple<>>{}...);
}
}  // namespace detail

/// Computes the reduction `red` (slot Fusion::slot, after every other slot) into `slot_data` and every
/// member output K into `staticflow::detail::get<K>(outputs)` (its extents `staticflow::detail::get<K>(ext)`) in one pass, when
/// the call allows it: each member has the reduction input's extents, every argument read has
/// them too (or is a static scalar), and no member overlaps a value of the call. Returns whether
/// it ran; when it did not, nothing was written.
template <class Full, class Fusion, class Plan, class Red, class All, class Ext, class Outputs>
bool compute_fused_outputs(const Plan& p, const Red& red, const All& all, typename Red::value_type* slot_data,
                           const Ext& ext, const Outputs& outputs) {
  using members = decltype(detail::fused_members<Fusion>(std::make_index_sequence<Fusion::output_count>{}));
  using Op = typename Red::op_type;
  constexpr auto args = std::make_index_sequence<std::tuple_size<All>::value>{};
  const auto in_ext = graph::node_extents(red.a, staticflow::detail::extents_of_views(all));
  const std::size_t count = staticflow::detail::product(in_ext);
  if (!detail::fits_flat<Full, std::remove_cvref_t<decltype(red.a)>>(all, count, args)) return false;
  const bool fits = staticflow::detail::apply([&](auto... k) {
    return ([&] {
      constexpr std::size_t K = decltype(k)::value;
      using N = std::tuple_element_t<K, typename Plan::outputs_type>;
      return staticflow::detail::same_extents(staticflow::detail::get<K>(ext), in_ext) &&
             detail::fits_flat<Full, N>(all, count, args) && !detail::overlaps_any_view(all, staticflow::detail::get<K>(outputs), count);
    }() && ...);
  }, members{});
  if (!fits) return false;
  using A = std::remove_cvref_t<decltype(red.a)>;
  const auto cursors = staticflow::detail::apply([&](auto... k) {
    return detail::shared_flat_cursors<Full, A, std::tuple_element_t<decltype(k)::value, typename Plan::outputs_type>...>(all, args);
  }, members{});
  const auto outs = staticflow::detail::apply([&](auto... k) {
    return staticflow::detail::pack_values([&] {
      constexpr std::size_t K = decltype(k)::value;
      using N = std::tuple_element_t<K, typename Plan::outputs_type>;
      return detail::fused_output<N, std::remove_pointer_t<std::tuple_element_t<K, Outputs>>>{staticflow::detail::get<K>(p.outputs),
                                                                                             staticflow::detail::get<K>(outputs)};
    }()...);
  }, members{});
  slot_data[0] = Op::finish(detail::reduce_with_outputs<Op>(red.a, cursors, outs, count, threads_for(count)), count);
  ++fused_pass_counter();
  return true;
}

/// Outputs of a plan that one pass may compute together, without a reduction: every output K
/// that is an elementwise graph of the dtype and rank of the first such output (`member<K>`).
/// `enabled` when there are at least two.
template <class Outputs>
struct output_group {
  static constexpr std::size_t output_count = std::tuple_size<Outputs>::value;
  template <std::size_t K>
  static constexpr bool candidate = [] {
    using N = std::tuple_element_t<K, Outputs>;
    if constexpr (!detail::flat_graph<N>::value || !detail::takes_simd_path<N>) return false;
    else return N::shape_type::rank >= 1;
  }();
  static constexpr std::size_t first = []<std::size_t... K>(std::index_sequence<K...>) {
    std::size_t f = output_count;
    ((f = (f == output_count && candidate<K>) ? K : f), ...);
    return f;
  }(std::make_index_sequence<output_count>{});
  template <std::size_t K>
  static constexpr bool member = [] {
    if constexpr (first == output_count || !candidate<K>) {
      return false;
    } else {
      using N = std::tuple_element_t<K, Outputs>;
      using F = std::tuple_element_t<first, Outputs>;
      return std::is_same<typename N::value_type, typename F::value_type>::value && N::shape_type::rank == F::shape_type::rank;
    }
  }();
  static constexpr std::size_t count = []<std::size_t... K>(std::index_sequence<K...>) {
    return (std::size_t{0} + ... + std::size_t{member<K>});
  }(std::make_index_sequence<output_count>{});
  static constexpr bool enabled = count >= 2;
};

/// Below this many elements outputs are not grouped: the pass's checks cost more than reading
/// the inputs again (a loop body over 64 floats, 1000 iterations: 3-5 % slower grouped).
inline constexpr std::size_t min_grouped_count = 512;

/// Computes every member output K of `Group` (extents `staticflow::detail::get<K>(ext)`) into
/// `staticflow::detail::get<K>(outputs)` in one pass, when the call allows it: the members have one extent, every
/// argument they read fits the flat loop, and (`CheckOverlap`) no member's target overlaps a value
/// of the call that the pass or a later output still reads (detail::target_unsafe). A plan's own targets (run_plan) need no overlap test: a loop body writes a variable in
/// place only where nothing else reads it, at the positions it reads. Returns whether it ran;
/// when it did not, nothing was written.
template <class Full, class Group, bool CheckOverlap = true, class Nodes, class All, class Ext, class Outputs>
bool compute_grouped_outputs(const Nodes& nodes, const All& all, const Ext& ext, const Outputs& outputs) {
  using members = decltype(detail::fused_members<Group>(std::make_index_sequence<Group::output_count>{}));
  constexpr auto args = std::make_index_sequence<std::tuple_size<All>::value>{};
  const auto& first_ext = staticflow::detail::get<Group::first>(ext);
  const std::size_t count = staticflow::detail::product(first_ext);
  if (count < min_grouped_count) return false;
  const bool fits = staticflow::detail::apply([&](auto... k) {
    return ([&] {
      constexpr std::size_t K = decltype(k)::value;
      using N = std::tuple_element_t<K, Nodes>;
      return staticflow::detail::same_extents(staticflow::detail::get<K>(ext), first_ext) &&
             detail::fits_flat<Full, N>(all, count, args) &&
             (!CheckOverlap || !detail::target_unsafe<Group, K, Nodes>(all, staticflow::detail::get<K>(outputs), count));
    }() && ...);
  }, members{});
  if (!fits) return false;
  const auto cursors = staticflow::detail::apply([&](auto... k) {
    return detail::shared_flat_cursors<Full, std::tuple_element_t<decltype(k)::value, Nodes>...>(all, args);
  }, members{});
  const auto outs = staticflow::detail::apply([&](auto... k) {
    return staticflow::detail::pack_values([&] {
      constexpr std::size_t K = decltype(k)::value;
      return detail::fused_output<std::tuple_element_t<K, Nodes>, std::remove_pointer_t<std::tuple_element_t<K, Outputs>>>{
          staticflow::detail::get<K>(nodes), staticflow::detail::get<K>(outputs)};
    }()...);
  }, members{});
  detail::outputs_pass(cursors, outs, count);
  ++fused_pass_counter();
  return true;
}

}  // namespace staticflow::cpu
