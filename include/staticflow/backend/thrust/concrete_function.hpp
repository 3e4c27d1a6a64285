// staticflow/backend/thrust/concrete_function.hpp -- one signature's traced graph on the Thrust
// backend: the same graph and plan as on the CPU backend, evaluated by device kernels.
//
// A call takes device tensors (sf::device_tensor, sf::device_view) and C++ scalars, computes the
// materialized slots in order into buffers of the device arena (reductions, matmul, shape ops;
// repeats found by the plan's CSE share a buffer), then each output as one fused kernel. Results
// are sf::device_tensor values that live on the device; under CUDA nothing waits for the device
// until a result is read on the host (to_host) or block_until_ready() is called.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include <thrust/copy.h>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/backend/backend.hpp"
#include "staticflow/backend/thrust/arena.hpp"
#include "staticflow/backend/thrust/effect_graph.hpp"
#include "staticflow/backend/thrust/kernel.hpp"
#include "staticflow/backend/thrust/linalg.hpp"
#include "staticflow/backend/thrust/reduce.hpp"
#include "staticflow/backend/thrust/run_plan.hpp"
#include "staticflow/backend/thrust/shape_ops.hpp"
#include "staticflow/backend/thrust/system.hpp"
#include "staticflow/interop/device.hpp"
#include "staticflow/plan/planned_listing.hpp"
#include "staticflow/plan/plan.hpp"
#include "staticflow/trace/constant_trace.hpp"
#include "staticflow/trace/concrete_function.hpp"

namespace staticflow {
namespace thrust_backend {
namespace detail {
/// What a call's argument becomes on the device: a view of device memory, a host scalar (passed
/// by value into the kernels), or nothing (a static value).
template <class A>
auto device_argument(const A& a) {
  if constexpr (static_value_type<A>) {
    return no_view{};
  } else if constexpr (std::is_arithmetic<A>::value) {
    using T = canonical_dtype_t<A>;
    return host_scalar<T>{static_cast<T>(a)};
  } else {
    using T = typename A::value_type;
    return tensor_view<T, A::rank>{a.data(), a.shape()};
  }
}

template <class A>
inline constexpr bool device_readable_v = static_value_type<A> || std::is_arithmetic<A>::value ||
                                          staticflow::detail::is_device_tensor<A>::value;

template <class O>
inline constexpr bool device_output_v = staticflow::detail::is_device_tensor<std::remove_cvref_t<O>>::value;

template <class... Args>
auto make_views(const Args&... args) {
  return std::tuple{device_argument(args)...};
}

}  // namespace detail
}  // namespace thrust_backend

/// The Thrust backend's concrete function.
template <class Sig, class Result, class Fn>
class concrete_function<backend::thrust_t, Sig, Result, Fn> final
    : public concrete_function_base, public detail::concrete_function_shared<Sig, Result, Fn> {
  using shared = detail::concrete_function_shared<Sig, Result, Fn>;
  using typename shared::nodes_type;
  using shared::output_extents;

 public:
  using shared::output_count;
  using shared::traced_at_compile_time;
  using shared::evaluation_plan;
  using typename shared::plan_type;
  template <std::size_t K>
  using output_spec = typename shared::template output_spec<K>;
  static_assert(output_count > 0);
  /// Whether the signature or the graph has strings: reported below, and the call then runs nothing.
  static constexpr bool uses_strings = [] {
    constexpr bool in_signature = []<class... E>(std::type_identity<std::tuple<E...>>) {
      return (false || ... || [] {
        if constexpr (spec_type<E>) return string_dtype<typename E::value_type>;
        else return false;
      }());
    }(std::type_identity<Sig>{});
    return in_signature || []<std::size_t... K>(std::index_sequence<K...>) {
      return (false || ... || graph::mentions_strings_v<std::remove_cvref_t<std::tuple_element_t<K, nodes_type>>>);
    }(std::make_index_sequence<std::tuple_size<nodes_type>::value>{});
  }();
  static_assert(!uses_strings, "staticflow: string tensors run on the CPU backend only (the Thrust backend has no string kernels)");

  explicit concrete_function(Result graph)
      : concrete_function_base(&detail::type_key<std::pair<backend::thrust_t, Sig>>), shared(std::move(graph)) {}
  /// A function the compiler traced (as the CPU backend's, backend/cpu/concrete_function.hpp):
  /// calls evaluate the compiler's plan, and the lambda is traced at run time only for graph().
  explicit concrete_function(detail::traced_by_compiler_t t)
      : concrete_function_base(&detail::type_key<std::pair<backend::thrust_t, Sig>>), shared(t) {}

  /// Output K's container: a device tensor of its dtype and rank.
  template <std::size_t K>
  using result_type = device_tensor<typename output_spec<K>::value_type, output_spec<K>::shape_type::rank>;

  std::string graph_string() const { return this->make_listing(listing_names()).jaxpr(); }
  std::string to_dot() const { return this->make_listing(listing_names()).dot(); }
  std::string to_code() const { return this->make_listing(listing_names()).code(); }
  std::string pretty_printed_signature() const override { return this->signature_string(captures_string()); }

  /// Evaluates the graph; results come back as sf::device_tensor (a std::tuple of them for
  /// several outputs), still being computed under CUDA until read. The function's effects
  /// (variable assignments, sf::print) run first, in program order.
  template <class... Args>
  auto operator()(const Args&... args) const {
    if constexpr (uses_strings) {
      return staticflow::detail::reported_call{};  // reported above; no kernel is instantiated
    } else {
      check_arguments<Args...>();
      const auto views = make_views(args...);
      if (has_effects()) [[unlikely]]
        return effects_then(views, [&] { return compute(views); });
      return compute(views);
    }
  }

  /// Evaluates into the caller's device tensors or views (std::tie them for several outputs).
  /// An output that overlaps an input other than elementwise goes through a device temporary.
  template <class Out, class... Args>
  void call_into(Out&& out, const Args&... args) const {
    check_arguments<Args...>();
    const auto views = make_views(args...);
    if (has_effects()) [[unlikely]]
      effects_then(views, [&] { compute_into(std::forward<Out>(out), views); });
    else compute_into(std::forward<Out>(out), views);
  }

 private:
  static constexpr std::size_t arg_count = std::tuple_size<Sig>::value;

  /// Runs the effects over the call's views (erased for them), then f (the outputs).
  template <class Views, class F>
  decltype(auto) effects_then(const Views& views, F&& f) const {
    std::array<thrust_backend::detail::scalar_cell, arg_count + 1> cells;
    const auto erased = thrust_backend::erase_views(views, cells);
    return with_erased_effects(erased.data(), std::forward<F>(f));
  }

  template <class Views>
  auto compute(const Views& call_views) const {
    return with_slots(call_views, [&](const auto& views) {
      const auto all_ext = output_extents(views);  // throws before anything is computed
      return [&]<std::size_t... K>(std::index_sequence<K...>) {
        auto outs = std::tuple{result_type<K>(staticflow::detail::get<K>(all_ext))...};
        (evaluate<K>(views, staticflow::detail::get<K>(all_ext), staticflow::detail::get<K>(outs).data()), ...);
        if constexpr (output_count == 1) return std::move(std::get<0>(outs));
        else return outs;
      }(std::make_index_sequence<output_count>{});
    });
  }

  template <class Out, class Views>
  void compute_into(Out&& out, const Views& call_views) const {
    thrust_backend::device_arena::scope scope;  // temporaries for aliased outputs
    auto outs = [&]() {
      if constexpr (detail::is_tuple<std::remove_cvref_t<Out>>::value) return std::forward<Out>(out);
      else return std::tuple<Out&>{out};
    }();
    static_assert(std::tuple_size<decltype(outs)>::value == output_count,
                  "staticflow: call_into needs one output container per result (std::tie them)");
    with_slots(call_views, [&](const auto& views) {
      const auto all_ext = output_extents(views);
      [&]<std::size_t... K2>(std::index_sequence<K2...>) {
        (check_output<K2>(staticflow::detail::get<K2>(outs), staticflow::detail::get<K2>(all_ext)), ...);  // all checks first
        auto staged = std::tuple{stage_output<K2>(views, staticflow::detail::get<K2>(all_ext), staticflow::detail::get<K2>(outs))...};
        (copy_staged<K2>(staticflow::detail::get<K2>(staged), staticflow::detail::get<K2>(all_ext), staticflow::detail::get<K2>(outs)), ...);
      }(std::make_index_sequence<output_count>{});
      return 0;
    });
  }

  template <class... Args>
  static constexpr void check_arguments() {
    static_assert((thrust_backend::detail::device_readable_v<Args> && ...),
                  "staticflow: the thrust backend reads device tensors (sf::device_tensor, sf::device_view) "
                  "and C++ scalars; copy a host tensor to the device first with sf::to_device(x)");
    static_assert(std::is_same<detail::signature_of_t<Args...>, Sig>::value,
                  "staticflow: the arguments do not match this concrete function's signature (compare "
                  "the two std::tuple<spec...> types in this diagnostic)");
  }

  template <class... Args>
  static auto make_views(const Args&... args) {
    return thrust_backend::detail::make_views(args...);
  }

  /// Computes the slots (device buffers), then runs f over the argument views followed by the
  /// slots' views.
  template <class Views, class F>
  decltype(auto) with_slots(const Views& views, F&& f) const {
    thrust_backend::device_arena::scope scope;  // the slots' buffers go back when the call ends
    return thrust_backend::with_slots<arg_count>(evaluation_plan(), views, std::forward<F>(f));
  }

  template <std::size_t K, class Views, std::size_t R, class T>
  void evaluate(const Views& views, const extents<R>& ext, T* out) const {
    thrust_backend::evaluate_into(staticflow::detail::get<K>(evaluation_plan().outputs), views, ext, out);
  }

  template <std::size_t K, class O, std::size_t R>
  static void check_output(const O& out, const extents<R>& ext) {
    using T = typename output_spec<K>::value_type;
    static_assert(thrust_backend::detail::device_output_v<O>,
                  "staticflow: call_into on the thrust backend writes into sf::device_tensor or sf::device_view outputs");
    using C = std::remove_cvref_t<O>;
    static_assert(std::is_same<std::remove_cv_t<typename C::value_type>, T>::value,
                  "staticflow: call_into: the output container's dtype differs from the result's");
    static_assert(C::rank == R, "staticflow: call_into: the output container's rank differs from the result's");
    if (out.shape() != ext)
      throw shape_error("call_into: output " + std::to_string(K) + " has shape " + detail::extents_string(out.shape()) +
                        ", the result has shape " + detail::extents_string(ext));
  }

  /// Evaluates output K into `out`, or into a device temporary (returned, null when not used)
  /// when writing `out` now could overwrite an input another element still reads.
  template <std::size_t K, class Views, std::size_t R, class O>
  auto stage_output(const Views& views, const extents<R>& ext, O& out) const {
    using T = typename output_spec<K>::value_type;
    T* data = out.data();
    const std::size_t size = detail::product(ext);
    const bool alias = unsafe_overlap<K>(views, data, size);
    T* temporary = alias ? static_cast<T*>(thrust_backend::device_arena::local().allocate(sizeof(T) * (size ? size : 1))) : nullptr;
    evaluate<K>(views, ext, alias ? temporary : data);
    return temporary;
  }

  template <std::size_t K, class T, std::size_t R, class O>
  static void copy_staged(T* staged, const extents<R>& ext, O& out) {
    const std::size_t n = detail::product(ext);
    if (staged && n) ::thrust::copy_n(thrust_backend::async_policy(), staged, n, out.data());
  }

  /// Any overlap with an input the output reads, except (for a single output) the input being
  /// exactly the output read at the same positions.
  template <std::size_t K, class Views, class T>
  static bool unsafe_overlap(const Views& views, const T* out, std::size_t size) {
    using N = std::tuple_element_t<K, typename plan_type::outputs_type>;
    const auto* lo = reinterpret_cast<const unsigned char*>(out);
    const auto* hi = reinterpret_cast<const unsigned char*>(out + size);
    bool unsafe = false;
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      ([&] {
        using V = std::remove_cvref_t<std::tuple_element_t<I, Views>>;
        if constexpr (requires(const V& v) { v.data; }) {
          // (shared::, not the using-declared name: g++ 12 does not see that inside a generic lambda
          // of a static member function)
          if (shared::output_count == 1 && !graph::uses_argument<I, N>) return;
          const auto& v = staticflow::detail::get<I>(views);
          const auto* vlo = reinterpret_cast<const unsigned char*>(v.data);
          const auto* vhi = reinterpret_cast<const unsigned char*>(v.data + v.size());
          const bool overlap = vlo < hi && lo < vhi;
          const bool same_positions = shared::output_count == 1 && static_cast<const void*>(v.data) == static_cast<const void*>(out) &&
                                      v.size() == size && sizeof(*v.data) == sizeof(T);
          if (overlap && !same_positions) unsafe = true;
        }
      }(), ...);
    }(std::make_index_sequence<std::tuple_size<Views>::value>{});
    return unsafe;
  }
};

/// The Thrust backend's concrete function of a lambda that returns nothing.
template <class Sig, class Fn>
class concrete_function<backend::thrust_t, Sig, void, Fn> final : public detail::effects_only_function<Sig> {
 public:
  concrete_function() : detail::effects_only_function<Sig>(&detail::type_key<std::pair<backend::thrust_t, Sig>>) {}
  /// Runs the effects (a lambda that returns nothing exists for them).
  template <class... Args>
  void operator()(const Args&... args) const {
    static_assert(std::is_same<detail::signature_of_t<Args...>, Sig>::value,
                  "staticflow: the arguments do not match this concrete function's signature");
    if (!this->has_effects()) return;
    const auto views = thrust_backend::detail::make_views(args...);
    std::array<thrust_backend::detail::scalar_cell, sizeof...(Args) + 1> cells;
    const auto erased = thrust_backend::erase_views(views, cells);
    this->with_erased_effects(erased.data(), [] {});
  }
};

}  // namespace staticflow
