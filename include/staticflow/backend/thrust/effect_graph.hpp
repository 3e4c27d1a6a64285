// staticflow/backend/thrust/effect_graph.hpp -- the graphs an effect evaluates on every call of a
// function traced for the Thrust backend (the value assigned to a variable, the gradients an
// optimizer applies, a tensor sf::print shows), planned once when the effect is recorded and run
// by the device kernels; and the device evaluation of external leaves (variables, captured data).
//
// Variables live in host memory (effects/variable.hpp: their rollback, locks and snapshots are
// the backend-neutral effect program's). On a host device system (OpenMP, TBB, serial) device
// memory is host memory, so a graph reads a variable where it is and an effect writes its value
// straight into the variable. Under CUDA a read copies the variable to a buffer of the device
// arena and an effect's value is computed on the device and copied back into the variable: one
// transfer each way per call, not device-resident variables (docs/architecture.md).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <tuple>
#include <type_traits>
#include <utility>

#include <thrust/copy.h>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/backend/thrust/arena.hpp"
#include "staticflow/backend/thrust/expr.hpp"
#include "staticflow/backend/thrust/run_plan.hpp"
#include "staticflow/backend/thrust/system.hpp"
#include "staticflow/effects/effect_graphs.hpp"
#include "staticflow/effects/recorder.hpp"
#include "staticflow/graph/external.hpp"
#include "staticflow/plan/plan.hpp"

namespace staticflow::thrust_backend {

/// An external leaf's slot: on a host device system its view points at the data where it lives;
/// under CUDA host data is copied to the device first (a loop variable that a device loop kernel
/// publishes is there already).
template <class T, class S, class K>
struct slot_evaluator<graph::external_leaf<T, S, K>> {
  template <class All, class Out>
  static void run(const graph::external_leaf<T, S, K>& n, All&, const Out& out) {
    const auto ext = n.result_extents();
#if STATICFLOW_THRUST_CUDA
    if (n.source->device_memory) {
      out.template point<0>(n.data(), ext);
      return;
    }
    T* device = out.template allocate<0>(ext);
    const std::size_t count = staticflow::detail::product(ext);
    if (count) ::thrust::copy_n(n.data(), count, ::thrust::device_pointer_cast(device));
#else
    out.template point<0>(n.data(), ext);
#endif
  }
};

namespace detail {
/// A call's argument K as the effect's graph reads it: a device tensor view, or a host scalar for
/// a rank-0 value (the call erased C++ scalars and rank-0 device tensors alike to host values:
/// erase_views below).
template <class Entry>
auto typed_view(const staticflow::detail::erased_view& e) {
  if constexpr (spec_type<Entry>) {
    using T = typename Entry::value_type;
    constexpr std::size_t R = Entry::shape_type::rank;
    if constexpr (R == 0) {
      return host_scalar<T>{*static_cast<const T*>(e.data)};
    } else {
      tensor_view<T, R> v{static_cast<const T*>(e.data), {}};
      for (std::size_t d = 0; d < R; ++d) v.ext[d] = e.ext[d];
      return v;
    }
  } else {
    return no_view{};
  }
}

/// Where a call's rank-0 arguments wait in host memory while its effects run.
using scalar_cell = std::array<unsigned char, 8>;
}  // namespace detail

/// The erased views of a Thrust call (what its effects receive): device tensors as they are,
/// rank-0 values (C++ scalars, and rank-0 device tensors, read back once) in `cells`.
template <class Views, std::size_t N>
auto erase_views(const Views& views, std::array<detail::scalar_cell, N>& cells) {
  std::array<staticflow::detail::erased_view, N> erased{};
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    ([&] {
      const auto& v = staticflow::detail::get<I>(views);
      using V = std::remove_cvref_t<decltype(v)>;
      if constexpr (std::is_same<V, no_view>::value) {
        return;
      } else if constexpr (requires { v.value; }) {  // a host scalar
        static_assert(sizeof(v.value) <= sizeof(detail::scalar_cell));
        std::memcpy(cells[I].data(), &v.value, sizeof(v.value));
        erased[I] = {cells[I].data(), nullptr};
      } else if constexpr (std::tuple_size<std::remove_cvref_t<decltype(v.ext)>>::value == 0) {
        using T = std::remove_cv_t<std::remove_pointer_t<decltype(v.data)>>;
        static_assert(sizeof(T) <= sizeof(detail::scalar_cell));
        ::thrust::copy_n(::thrust::device_pointer_cast(v.data), 1, reinterpret_cast<T*>(cells[I].data()));
        erased[I] = {cells[I].data(), nullptr};
      } else {
        erased[I] = {v.data, v.ext.data()};
      }
    }(), ...);
  }(std::make_index_sequence<std::tuple_size<Views>::value>{});
  return erased;
}

/// Graphs G... planned together for evaluation by an effect on the device (one plan: what they
/// share is computed once). `run` writes each graph's value where the effect's target says, in
/// host memory, as cpu::effect_graph does.
template <class... G>
class effect_graph {
  static_assert(sizeof...(G) >= 1);
  using planned = std::tuple<staticflow::detail::effect_graphs::externalized_t<G>...>;
  using first = std::tuple_element_t<0, planned>;

 public:
  static constexpr std::size_t arg_count =
      std::max({staticflow::detail::effect_graphs::argument_bound<staticflow::detail::effect_graphs::externalized_t<G>>()...});
  using signature =
      decltype(staticflow::detail::effect_graphs::effect_signature<planned>(std::make_index_sequence<arg_count>{}));
  using plan_type = plan::evaluation_plan<arg_count, planned>;
  using value_type = typename first::value_type;
  static constexpr std::size_t rank = first::shape_type::rank;

  explicit effect_graph(const G&... g)
      : plan_(planned{staticflow::detail::effect_graphs::externalize_variables<std::tuple<>>(g)...}) {}

  /// Evaluates the graphs in order: `target(k, ext)` (k a std::integral_constant) is called once
  /// graph k's extents are known (it may throw: graphs before k have been written) and returns
  /// where in host memory to write its value. For one graph, `target(ext)` will do. With
  /// DeviceTargets the targets are device memory (a traced collective's buffers): the kernels
  /// write there, and the run waits for them, so that another stream (NCCL's) may read them.
  template <bool DeviceTargets = false, class Target>
  void run(staticflow::detail::erased_args args, Target&& target) const {
    const auto views = [&]<std::size_t... I>(std::index_sequence<I...>) {
      return std::tuple{detail::typed_view<std::tuple_element_t<I, signature>>(args[I])...};
    }(std::make_index_sequence<arg_count>{});
    device_arena::scope scope;  // the slots' buffers (and CUDA's staging buffers) go back at the end
    with_slots<arg_count>(plan_, views, [&](const auto& all) {
      [&]<std::size_t... K>(std::index_sequence<K...>) {
        (write<K, DeviceTargets>(all, target), ...);
      }(std::index_sequence_for<G...>{});
      return 0;
    });
    if constexpr (DeviceTargets) synchronize();
  }

 private:
  template <std::size_t K, bool DeviceTargets, class All, class Target>
  void write(const All& all, Target& target) const {
    const auto& node = staticflow::detail::get<K>(plan_.outputs);
    using T = typename std::remove_cvref_t<decltype(node)>::value_type;
    const auto ext = graph::node_extents(node, staticflow::detail::extents_of_views(all));
    T* out = [&] {
      if constexpr (requires { target(std::integral_constant<std::size_t, K>{}, ext); })
        return target(std::integral_constant<std::size_t, K>{}, ext);
      else return target(ext);
    }();
#if STATICFLOW_THRUST_CUDA
    if constexpr (!DeviceTargets) {
      const std::size_t count = staticflow::detail::product(ext);
      T* device = static_cast<T*>(device_arena::local().allocate(sizeof(T) * (count ? count : 1)));
      evaluate_into(node, all, ext, device);
      if (count) ::thrust::copy_n(::thrust::device_pointer_cast(device), count, out);  // waits for the kernel
      return;
    }
#endif
    evaluate_into(node, all, ext, out);
  }

  plan_type plan_;
};

}  // namespace staticflow::thrust_backend
