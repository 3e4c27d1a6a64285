// staticflow/backend/cpu/concrete_function.hpp -- one signature's traced graph run on the CPU
// backend: a call computes the plan's materialized slots in order (arena buffers), then each
// output as one fused loop, straight into a new result container or the caller's (call_into);
// the equal-extents, direct-slot, grouped-output and fused-output paths below skip what a call
// does not need. sf::backend::eager evaluates the same plan op by op (backend/eager/evaluate.hpp).
// What every backend's concrete function shares (graph, plan, listings, signature, effects):
// trace/concrete_function.hpp.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/backend/backend.hpp"
#include "staticflow/backend/cpu/control.hpp"
#include "staticflow/backend/cpu/effect_graph.hpp"
#include "staticflow/backend/cpu/fused_outputs.hpp"
#include "staticflow/backend/cpu/kernel.hpp"
#include "staticflow/backend/cpu/linalg.hpp"
#include "staticflow/backend/cpu/reduce.hpp"
#include "staticflow/backend/cpu/run_plan.hpp"
#include "staticflow/backend/cpu/shape_ops.hpp"
#include "staticflow/backend/eager/evaluate.hpp"
#include "staticflow/plan/arena.hpp"
#include "staticflow/plan/plan.hpp"
#include "staticflow/trace/concrete_function.hpp"

namespace staticflow {
namespace detail {

/// A static-shape result container, default-initialized: the kernel writes every element. Its own
/// function with one return, so the object is constructed in place (NRVO) and never moved: a move
/// of the indeterminate storage inlined into a caller drew GCC's -Wuninitialized at -O1.
template <class C>
STATICFLOW_INLINE C unfilled() {
  C result;
  return result;
}

// Keyed on the one fact (not on the concrete function, traced and eager differ) so it reports once.
template <bool HasStringOutput>
struct call_into_check {
  static_assert(!HasStringOutput,
                "staticflow: call_into: string results come back from a call (f(args...)) as std::string, "
                "not into a container");
  static constexpr bool ok = !HasStringOutput;
};

/// Where an output container's (or a scalar output's) values are written.
template <class Out>
auto output_data(Out& out) {
  if constexpr (detail::is_scalar_value_v<Out>) return &out;
  else return out.data();
}
}  // namespace detail

/// The concrete function of the CPU backend (and of sf::backend::eager, which evaluates the same
/// plan op by op): arguments are host containers (xtensor, sf::tensor, C++ scalars), results come
/// back in new containers or go into the caller's (call_into).
template <class Backend, class Sig, class Result, class Fn>
class concrete_function final : public concrete_function_base,
                               public detail::concrete_function_shared<Sig, Result, Fn> {
  using shared = detail::concrete_function_shared<Sig, Result, Fn>;
  using typename shared::nodes_type;
  using shared::plan;
  using shared::output_extents;

 public:
  using shared::output_count;
  using shared::traced_at_compile_time;
  using typename shared::output_values_type;
  using typename shared::plan_type;
  template <std::size_t K>
  using output_node = typename shared::template output_node<K>;
  template <std::size_t K>
  using lowered_output = typename shared::template lowered_output<K>;

  explicit concrete_function(Result graph) : concrete_function_base(&detail::type_key<Sig>), shared(std::move(graph)) {}
  /// A function the compiler traced (traced_at_compile_time): calls need no graph at all.
  explicit concrete_function(detail::traced_by_compiler_t t) : concrete_function_base(&detail::type_key<Sig>), shared(t) {}

  /// A jaxpr-like SSA listing of the graph, with each value's spec; a loop's condition and body
  /// and a cond's branches are listed under their node.
  std::string graph_string() const { return this->make_listing(listing_names()).jaxpr(); }
  /// The graph in Graphviz's dot language: sub-graphs as clusters, each node marked fused (and
  /// into which loops), materialized or a view.
  std::string to_dot() const { return this->make_listing(listing_names()).dot(); }
  /// The C++-ish program the graph stands for (tf.autograph.to_code's analog), each value's spec
  /// and evaluation in a comment.
  std::string to_code() const { return this->make_listing(listing_names()).code(); }
  std::string pretty_printed_signature() const override { return this->signature_string(captures_string()); }

  /// Whether a call reads or makes strings: it then runs in a string_scope (core/string.hpp) and
  /// its string results come back as std::string.
  static constexpr bool uses_strings = [] {
    return []<std::size_t... K>(std::index_sequence<K...>) {
      return (false || ... || graph::mentions_strings_v<std::remove_cvref_t<std::tuple_element_t<K, nodes_type>>>);
    }(std::make_index_sequence<std::tuple_size<nodes_type>::value>{});
  }();

  /// Whether an output is a string tensor.
  static constexpr bool has_string_output = [] {
    return []<std::size_t... K>(std::index_sequence<K...>) {
      return (false || ... || string_dtype<typename std::remove_cvref_t<std::tuple_element_t<K, nodes_type>>::value_type>);
    }(std::make_index_sequence<std::tuple_size<nodes_type>::value>{});
  }();

  /// Evaluates the graph; results come back in new containers (see result_container_t).
  template <class... Args>
  STATICFLOW_INLINE auto operator()(const Args&... args) const {
    if constexpr (!check_arguments<Args...>()) {
      return detail::reported_call{};  // reported; evaluating with them would only add errors from the kernels
    } else if constexpr (uses_strings) {
      return call_with_strings(args...);
    } else {
      if (has_effects()) [[unlikely]]
        return effects_then_compute(args...);
      auto slots = std::tuple<detail::scalar_slot_t<Args>...>{};
      return compute(make_views(slots, args...));
    }
  }

  /// Evaluates into the caller's container(s): `out` is one container (or a scalar) for one
  /// output, a tuple of references (std::tie) for several. Nothing is allocated unless an output
  /// overlaps an input in a way that is not elementwise, which goes through a temporary.
  template <class Out, class... Args>
  STATICFLOW_INLINE void call_into(Out&& out, const Args&... args) const {
    if constexpr (!check_arguments<Args...>()) {
      return;  // reported
    } else if constexpr (uses_strings) {
      auto slots = std::tuple<detail::scalar_slot_t<Args>...>{};
      call_into_views(std::forward<Out>(out), make_views(slots, args...));  // in a string_scope
    } else {
      if (has_effects()) [[unlikely]] {
        effects_then_compute_into(std::forward<Out>(out), args...);
        return;
      }
      auto slots = std::tuple<detail::scalar_slot_t<Args>...>{};
      compute_into(std::forward<Out>(out), make_views(slots, args...));
    }
  }

  /// Like operator() and call_into, given the views of Sig's values (an eager call of an
  /// elementwise graph, whose eager values are its arguments: trace/function.hpp).
  /// A call that reads or makes strings runs in a string_scope; its string results come back as
  /// std::string (copied out of the scope's bytes before it ends).
  template <class Views>
  auto call_views(const Views& views) const {
    if constexpr (uses_strings) {
      string_scope strings;
      if (has_effects()) [[unlikely]]
        return detail::owned_strings(with_effects(views, [&] { return compute(views); }));
      return detail::owned_strings(compute(views));
    } else {
      if (has_effects()) [[unlikely]]
        return with_effects<outputs_infallible>(views, [&] { return compute(views); });
      return compute(views);
    }
  }
  template <class Out, class Views>
  void call_into_views(Out&& out, const Views& views) const {
    if constexpr (detail::call_into_check<has_string_output>::ok) {
      [[maybe_unused]] std::conditional_t<uses_strings, string_scope, char> strings;
      if (has_effects()) [[unlikely]]
        with_effects(views, [&] { compute_into(std::forward<Out>(out), views); });
      else
        compute_into(std::forward<Out>(out), views);
    }
  }

 private:
  // A call that reads or makes strings: the bytes its ops make are given back when it ends, after
  // its string results are copied out as std::string.
  template <class... Args>
  [[gnu::noinline]] auto call_with_strings(const Args&... args) const {
    auto slots = std::tuple<detail::scalar_slot_t<Args>...>{};
    return call_views(make_views(slots, args...));
  }

  // The calls with effects, out of line and given the arguments, not their views: views passed
  // from the call's own path would be stored to memory on every call, effects or not.
  template <class... Args>
  [[gnu::noinline]] auto effects_then_compute(const Args&... args) const {
    auto slots = std::tuple<detail::scalar_slot_t<Args>...>{};
    return call_views(make_views(slots, args...));
  }
  template <class Out, class... Args>
  [[gnu::noinline]] void effects_then_compute_into(Out&& out, const Args&... args) const {
    auto slots = std::tuple<detail::scalar_slot_t<Args>...>{};
    call_into_views(std::forward<Out>(out), make_views(slots, args...));
  }

  /// A traced callable may relate its arguments' run-time extents (sf::jvp: a tangent has the
  /// extents of its argument); its check_argument_extents throws before anything is computed.
  template <class Views>
  STATICFLOW_INLINE static void check_argument_extents(const Views& arg_views) {
    if constexpr (requires { Fn::check_argument_extents(detail::extents_of_views(arg_views)); })
      Fn::check_argument_extents(detail::extents_of_views(arg_views));
  }

  template <class Views>
  STATICFLOW_INLINE auto compute(const Views& arg_views) const {
    check_argument_extents(arg_views);
    if constexpr (fuses_outputs) return compute_fused(arg_views);
    else return with_slots(arg_views, [&](const auto& views) STATICFLOW_LAMBDA_INLINE {
      const auto all_ext = output_extents(views);  // throws before anything is written
      if constexpr (output_count == 1) {  // returned in place (NRVO): no copy of a static result
        auto out = make_result<0>(staticflow::detail::get<0>(all_ext));
        evaluate<0>(views, staticflow::detail::get<0>(all_ext), detail::output_data(out));
        return out;
      } else {
        return [&]<std::size_t... K>(std::index_sequence<K...>) STATICFLOW_LAMBDA_INLINE {
          auto outs = std::tuple{make_result<K>(staticflow::detail::get<K>(all_ext))...};
          bool grouped = false;
          if constexpr (groups_outputs)
            grouped = cpu::compute_grouped_outputs<full_signature, group>(
                plan().outputs, views, all_ext, std::tuple{grouped_output_data<K>(staticflow::detail::get<K>(outs))...});
          ([&] {
            if constexpr (groups_outputs && group::template member<K>)
              if (grouped) return;
            evaluate<K>(views, staticflow::detail::get<K>(all_ext), detail::output_data(staticflow::detail::get<K>(outs)));
          }(), ...);
          return outs;
        }(std::make_index_sequence<output_count>{});
      }
    });
  }

  template <class Out, class Views>
  STATICFLOW_INLINE void compute_into(Out&& out, const Views& arg_views) const {
    auto outs = [&]() STATICFLOW_LAMBDA_INLINE {
      if constexpr (detail::is_tuple<std::remove_cvref_t<Out>>::value) return std::forward<Out>(out);
      else return std::tuple<Out&>{out};
    }();
    static_assert(std::tuple_size<decltype(outs)>::value == output_count,
                  "staticflow: call_into needs one output container per result (std::tie them)");
    if constexpr (equal_extents_path) {
      if constexpr (!detail::is_scalar_value_v<std::remove_cvref_t<std::tuple_element_t<0, decltype(outs)>>>) {
        if (compute_equal_extents_into(staticflow::detail::get<0>(outs), arg_views)) [[likely]] return;
        // (some argument broadcasts, or the output's shape is wrong): out of line, so that the
        // common path keeps its views in registers
        compute_general_into(outs, arg_views);
        return;
      }
    }
    compute_general_into_inline(outs, arg_views);
  }

  template <class Outs, class Views>
  [[gnu::noinline]] void compute_general_into(Outs& outs, const Views arg_views) const {
    compute_general_into_inline(outs, arg_views);
  }

  template <class Outs, class Views>
  STATICFLOW_INLINE void compute_general_into_inline(Outs& outs, const Views& arg_views) const {
    check_argument_extents(arg_views);
    if constexpr (direct_slot < plan_type::slot_count) {
      if constexpr (!detail::is_scalar_value_v<std::remove_cvref_t<std::tuple_element_t<0, Outs>>>)
        if (compute_direct_into(staticflow::detail::get<0>(outs), arg_views)) return;
    }
    if constexpr (fuses_outputs) {
      compute_fused_into(outs, arg_views);
      return;
    }
    with_slots(arg_views, [&](const auto& views) STATICFLOW_LAMBDA_INLINE {
      const auto all_ext = output_extents(views);
      if constexpr (output_count == 1) {
        // one output: no staging tuple; an output that overlaps an input goes out of line
        auto& out0 = staticflow::detail::get<0>(outs);
        const auto& ext = staticflow::detail::get<0>(all_ext);
        check_output<0>(out0, ext);
        auto* data = detail::output_data(out0);
        if (cpu::output_aliases_input(staticflow::detail::get<0>(plan().outputs), views, data, detail::product(ext))) [[unlikely]]
          evaluate_through_temporary<0>(views, ext, data);
        else
          evaluate<0>(views, ext, data);
        return;
      }
      [&]<std::size_t... K>(std::index_sequence<K...>) STATICFLOW_LAMBDA_INLINE {
        (check_output<K>(staticflow::detail::get<K>(outs), staticflow::detail::get<K>(all_ext)), ...);  // all checks first
        bool grouped = false;
        if constexpr (groups_outputs)
          grouped = cpu::compute_grouped_outputs<full_signature, group>(
              plan().outputs, views, all_ext, std::tuple{grouped_output_data<K>(staticflow::detail::get<K>(outs))...});
        // An output that overlaps an input goes through a temporary, copied out only after every
        // output is computed: a later output may still read the input an earlier one overwrites.
        auto staged = std::tuple{
            stage_unless_fused<K, groups_outputs && group::template member<K>>(grouped, views, staticflow::detail::get<K>(all_ext), staticflow::detail::get<K>(outs))...};
        (copy_staged<K>(staticflow::detail::get<K>(staged), staticflow::detail::get<K>(all_ext), staticflow::detail::get<K>(outs)), ...);
      }(std::make_index_sequence<output_count>{});
    });
  }

  /// Run-time extents, the common case: an elementwise graph whose arguments all have the
  /// output's extents is one flat loop, with no shape inference per node. Returns false (nothing
  /// done) when some argument broadcasts or does not match: the general path then computes the
  /// result's extents, and throws if they are wrong.
  template <class O, class Views>
  STATICFLOW_INLINE bool compute_equal_extents_into(O& out, const Views& views) const {
    constexpr std::size_t R = output_spec<0>::shape_type::rank;
    if constexpr (std::remove_cvref_t<O>::rank != R) {
      return false;  // the general path's check_output reports it
    } else {
      extents<R> ext;
      for (std::size_t d = 0; d < R; ++d) ext[d] = static_cast<std::size_t>(out.shape()[d]);
      if (!cpu::detail::all_arguments_have<Sig, lowered_output<0>>(views, ext)) [[unlikely]] return false;
      check_output<0>(out, ext);  // the compile-time checks (the extents are equal by construction)
      auto* data = detail::output_data(out);
      const std::size_t size = detail::product(ext);
      const auto& node = staticflow::detail::get<0>(plan().outputs);
      if (cpu::output_aliases_input(node, views, data, size, std::true_type{})) [[unlikely]]
        evaluate_through_temporary<0>(views, ext, data);
      else
        cpu::evaluate_flat_into<full_signature>(node, views, size, data);
      return true;
    }
  }

  /// The only output is the plan's last slot: computes that slot straight into `out` (no slot
  /// buffer, no copy), unless `out` overlaps an argument or the slot repeats an earlier one.
  /// The extents are checked before anything is written. Returns whether it ran.
  template <class O, class Views>
  STATICFLOW_INLINE bool compute_direct_into(O& out, const Views& arg_views) const {
    auto* data = detail::output_data(out);
    std::size_t size = 1;
    for (const auto d : out.shape()) size *= static_cast<std::size_t>(d);
    if (plan().same_as[direct_slot] != direct_slot || any_overlap(arg_views, data, size)) return false;
    plan::arena_scope scope;
    auto where = [&](const auto& ext) STATICFLOW_LAMBDA_INLINE {
      check_output<0>(out, ext);  // throws before anything is written
      return data;
    };
    cpu::with_slots<Sig>(plan(), arg_views, [](const auto&) {}, cpu::direct_slot<direct_slot, decltype(where)>{where});
    return true;
  }

 public:
  /// The signature the fused loops see: the arguments, then the values of the materialized slots.
  using full_signature = cpu::full_signature_t<Sig, plan_type>;
  /// The slot call_into computes straight into the caller's container (slot_count: none).
  static constexpr std::size_t direct_slot = [] {
    if constexpr (output_count == 1)
      return cpu::detail::direct_output_slot<std::tuple_size<Sig>::value, plan_type, lowered_output<0>>();
    else
      return plan_type::slot_count;
  }();

  /// Which loop output K compiles to on the CPU backend.
  template <std::size_t K = 0>
  static constexpr cpu::kernel_kind kernel = cpu::kernel_kind_v<lowered_output<K>>;
  /// Whether the outputs fuse with a full reduction of the plan (computed after its other slots)
  /// where the call allows it (backend/cpu/fused_outputs.hpp): value_and_grad of an elementwise loss.
  static constexpr bool fuses_outputs = [] {
    if constexpr (output_count < 2 || std::is_same<Backend, backend::eager_t>::value) return false;
    else return cpu::output_fusion<Sig, plan_type>::enabled;
  }();
  /// Whether call_into first tries the equal-extents path (compute_equal_extents_into).
  static constexpr bool equal_extents_path = [] {
    if constexpr (output_count != 1 || plan_type::slot_count != 0 || std::is_same<Backend, backend::eager_t>::value)
      return false;
    else
      return cpu::detail::equal_extents_candidate<Sig, lowered_output<0>>;
  }();

  /// Whether computing the outputs by value (not call_into: the caller's containers are checked)
  /// cannot throw: scalars of numbers, no output fusion, and every slot of the plan an external
  /// value or a scalar from scalars (cpu::detail::infallible_slot), so that effects before it may
  /// write in place (effect_program::find_in_place_writes). A training step returning its loss.
  static constexpr bool outputs_infallible = [] {
    if constexpr (uses_strings || requires { &Fn::check_argument_extents; } ||
                  requires { &Fn::template check_argument_extents<std::tuple<>>; } ||
                  std::is_same<Backend, backend::eager_t>::value) {
      return false;
    } else {
      return !fuses_outputs &&
             []<std::size_t... K>(std::index_sequence<K...>) {
               return (cpu::detail::infallible_slot<lowered_output<K>>() && ...);
             }(std::make_index_sequence<output_count>{}) &&
             []<std::size_t... K>(std::index_sequence<K...>) {
               return (cpu::detail::infallible_slot<std::tuple_element_t<K, typename plan_type::slots_type>>() && ...);
             }(std::make_index_sequence<plan_type::slot_count>{});
    }
  }();
  bool list_output_reads(std::vector<const graph::external_source*>& sources) const override {
    if constexpr (outputs_infallible && !traced_at_compile_time) {
      staticflow::detail::pack_apply([&](const auto&... slot) {
        ([&] {
          if constexpr (cpu::detail::is_external<std::remove_cvref_t<decltype(slot)>>::value) sources.push_back(slot.source);
        }(), ...);
      }, plan().slots);
      return true;
    } else {
      return false;
    }
  }


 private:
  template <std::size_t K>
  using output_spec = typename shared::template output_spec<K>;

  // ---- multi-output fusion (backend/cpu/fused_outputs.hpp): a full reduction of the plan
  // (output_fusion::slot, computed after the other slots) in one pass with the elementwise
  // outputs of its extents ----
  using fusion = cpu::output_fusion<Sig, plan_type>;

  template <std::size_t K, class O>
  STATICFLOW_INLINE static auto* fused_output_data(O& out) {
    if constexpr (fusion::template member<K>) return detail::output_data(out);
    else return static_cast<void*>(nullptr);
  }

  /// Offers slot fusion::slot to `fused_pass(red, views, data)` after the other slots (see
  /// cpu::fused_slot).
  template <class Views, class Fused, class F>
  STATICFLOW_INLINE decltype(auto) with_fused_slots(const Views& arg_views, Fused& fused_pass, F&& f) const {
    plan::arena_scope scope;
    return cpu::with_slots<Sig>(plan(), arg_views, std::forward<F>(f), cpu::fused_slot<fusion::slot, Fused&>{fused_pass});
  }

  /// call_into with fused outputs: the outputs are checked before anything is written, the members
  /// computed with the reduction when the call allows it, then every other output as usual.
  template <class Outs, class Views>
  STATICFLOW_INLINE void compute_fused_into(Outs& outs, const Views& arg_views) const {
    constexpr auto every = std::make_index_sequence<output_count>{};
    bool fused = false;
    auto fused_pass = [&](const auto& red, const auto& views, auto* data) STATICFLOW_LAMBDA_INLINE {
      const auto all_ext = output_extents(views);
      return [&]<std::size_t... K>(std::index_sequence<K...>) STATICFLOW_LAMBDA_INLINE {
        (check_output<K>(staticflow::detail::get<K>(outs), staticflow::detail::get<K>(all_ext)), ...);
        const auto data_of = std::tuple{fused_output_data<K>(staticflow::detail::get<K>(outs))...};
        return fused = cpu::compute_fused_outputs<full_signature, fusion>(plan(), red, views, data, all_ext, data_of);
      }(every);
    };
    with_fused_slots(arg_views, fused_pass, [&](const auto& views) STATICFLOW_LAMBDA_INLINE {
      const auto all_ext = output_extents(views);
      [&]<std::size_t... K>(std::index_sequence<K...>) STATICFLOW_LAMBDA_INLINE {
        (check_output<K>(staticflow::detail::get<K>(outs), staticflow::detail::get<K>(all_ext)), ...);  // all checks first
        auto staged = std::tuple{
            stage_unless_fused<K, fusion::template member<K>>(fused, views, staticflow::detail::get<K>(all_ext), staticflow::detail::get<K>(outs))...};
        (copy_staged<K>(staticflow::detail::get<K>(staged), staticflow::detail::get<K>(all_ext), staticflow::detail::get<K>(outs)), ...);
      }(every);
    });
  }

  template <std::size_t K, bool Member, class Views, std::size_t R, class O>
  STATICFLOW_INLINE auto stage_unless_fused(bool fused, const Views& views, const extents<R>& ext, O& out) const {
    using T = typename output_spec<K>::value_type;
    if constexpr (Member)
      if (fused) return std::unique_ptr<T[]>{};
    return stage_output<K>(views, ext, out);
  }

  // Without a reduction to fuse with: elementwise outputs of one extent in one pass
  // (cpu::output_group; sf::grad of several arguments, sf::jvp's value and tangent).
  using group = cpu::output_group<typename plan_type::outputs_type>;
  static constexpr bool groups_outputs = [] {
    if constexpr (output_count < 2 || fuses_outputs || std::is_same<Backend, backend::eager_t>::value) return false;
    else return group::enabled;
  }();

  template <std::size_t K, class O>
  STATICFLOW_INLINE static auto* grouped_output_data(O& out) {
    if constexpr (group::template member<K>) return detail::output_data(out);
    else return static_cast<void*>(nullptr);
  }

  template <std::size_t... K>  // (only its type is used)
  static auto results_of(std::index_sequence<K...>) {
    return std::tuple{make_result<K>(extents<output_spec<K>::shape_type::rank>{})...};
  }

  /// The call by value with fused outputs: the results are made when the fused pass runs (it
  /// writes into them), or after the slots when it does not.
  template <class Views>
  STATICFLOW_INLINE auto compute_fused(const Views& arg_views) const {
    constexpr auto every = std::make_index_sequence<output_count>{};
    using results = decltype(results_of(every));
    std::optional<results> made;
    bool fused = false;
    auto make_all = [&](const auto& all_ext) STATICFLOW_LAMBDA_INLINE {
      [&]<std::size_t... K>(std::index_sequence<K...>) STATICFLOW_LAMBDA_INLINE {
        made.emplace(make_result<K>(staticflow::detail::get<K>(all_ext))...);
      }(every);
    };
    auto fused_pass = [&](const auto& red, const auto& views, auto* data) STATICFLOW_LAMBDA_INLINE {
      const auto all_ext = output_extents(views);
      make_all(all_ext);
      return [&]<std::size_t... K>(std::index_sequence<K...>) STATICFLOW_LAMBDA_INLINE {
        const auto data_of = std::tuple{fused_output_data<K>(staticflow::detail::get<K>(*made))...};
        return fused = cpu::compute_fused_outputs<full_signature, fusion>(plan(), red, views, data, all_ext, data_of);
      }(every);
    };
    return with_fused_slots(arg_views, fused_pass, [&](const auto& views) STATICFLOW_LAMBDA_INLINE {
      const auto all_ext = output_extents(views);
      if (!made) make_all(all_ext);
      [&]<std::size_t... K>(std::index_sequence<K...>) STATICFLOW_LAMBDA_INLINE {
        ([&] {
          if constexpr (fusion::template member<K>)
            if (fused) return;
          evaluate<K>(views, staticflow::detail::get<K>(all_ext), detail::output_data(staticflow::detail::get<K>(*made)));
        }(), ...);
      }(every);
      return std::move(*made);
    });
  }

  template <class... Args>
  static constexpr bool check_arguments() {
    constexpr bool match = std::is_same<detail::signature_of_t<Args...>, Sig>::value;
    static_assert(match,
                  "staticflow: the arguments do not match this concrete function's signature (compare "
                  "the two std::tuple<spec...> types in this diagnostic)");
    constexpr bool values = (!spec_type<Args> && ...);
    static_assert(values, "staticflow: a spec only describes an argument; call with tensors or scalars");
    return match && values;
  }

  // (a std::tuple, not a value_pack as the views inside the plan are: with a value_pack here, the
  // call path of bench_small_call's opaque calls took 8.7 -> 11.5 ns)
  template <class Slots, class... Args>
  STATICFLOW_INLINE static auto make_views(Slots& slots, const Args&... args) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) STATICFLOW_LAMBDA_INLINE {
      return std::tuple{detail::make_view(args, staticflow::detail::get<I>(slots))...};
    }(std::index_sequence_for<Args...>{});
  }

  /// Computes the materialized nodes (slots) in order, then runs f over the views of the
  /// arguments followed by the slots'. With no slot, f sees the argument views as they are.
  template <class Views, class F>
  STATICFLOW_INLINE decltype(auto) with_slots(const Views& views, F&& f) const {
    if constexpr (plan_type::slot_count == 0) {
      return f(views);
    } else {
      plan::arena_scope scope;  // what the slots take from the arena goes back when the call ends
      return cpu::with_slots<Sig>(plan(), views, std::forward<F>(f));
    }
  }

  template <std::size_t K, std::size_t R>
  STATICFLOW_INLINE static auto make_result(const extents<R>& ext) {
    using C = result_container_t<output_spec<K>>;
    if constexpr (detail::is_scalar_value_v<C>) {
      return C{};  // a scalar: copying an indeterminate one out of here would be undefined
    } else if constexpr (output_spec<K>::shape_type::is_static) {
      return detail::unfilled<C>();
    } else {
      return C::from_shape(ext);
    }
  }

  template <std::size_t K, class Views, std::size_t R, class T>
  STATICFLOW_INLINE void evaluate(const Views& views, const extents<R>& ext, T* out) const {
    const auto& node = staticflow::detail::get<K>(plan().outputs);
    if constexpr (std::is_same<Backend, backend::eager_t>::value) eager::evaluate_into<full_signature>(node, views, ext, out);
    else cpu::evaluate_into<full_signature>(node, views, ext, out);
  }

  template <std::size_t K, class O, std::size_t R>
  STATICFLOW_INLINE static void check_output(const O& out, const extents<R>& ext) {
    using T = typename output_spec<K>::value_type;
    if constexpr (detail::is_scalar_value_v<std::remove_cvref_t<O>>) {
      static_assert(R == 0 && std::is_same<std::remove_cvref_t<O>, T>::value,
                    "staticflow: call_into: a scalar output needs a rank-0 result of the same dtype");
    } else {
      using C = std::remove_cvref_t<O>;
      static_assert(std::is_same<std::remove_cv_t<typename C::value_type>, T>::value,
                    "staticflow: call_into: the output container's dtype differs from the result's");
      static_assert(C::rank == R, "staticflow: call_into: the output container's rank differs from the result's");
      extents<R> have{};
      for (std::size_t d = 0; d < R; ++d) have[d] = static_cast<std::size_t>(out.shape()[d]);
      if (have != ext)
        throw shape_error("call_into: output " + std::to_string(K) + " has shape " + detail::extents_string(have) +
                          ", the result has shape " + detail::extents_string(ext));
    }
  }

  /// Evaluates output K straight into `out`, or into a returned temporary when it must not be
  /// written yet (null when written).
  template <std::size_t K, class Views, std::size_t R, class O>
  STATICFLOW_INLINE auto stage_output(const Views& views, const extents<R>& ext, O& out) const {
    using T = typename output_spec<K>::value_type;
    T* data = detail::output_data(out);
    const std::size_t size = detail::product(ext);
    const bool alias = output_count > 1 ? any_overlap(views, data, size)
                                        : cpu::output_aliases_input(staticflow::detail::get<K>(plan().outputs), views, data, size);
    std::unique_ptr<T[]> temporary;
    if (alias) temporary.reset(new T[size]);
    evaluate<K>(views, ext, alias ? temporary.get() : data);
    return temporary;
  }

  /// Evaluates output K into a temporary, then copies it to `out` (an input overlaps `out`).
  template <std::size_t K, class Views, std::size_t R, class T>
  [[gnu::noinline]] void evaluate_through_temporary(const Views views, const extents<R> ext, T* out) const {
    const std::size_t size = detail::product(ext);
    const std::unique_ptr<T[]> temporary(new T[size]);
    evaluate<K>(views, ext, temporary.get());
    std::copy(temporary.get(), temporary.get() + size, out);
  }

  template <std::size_t K, class T, std::size_t R, class O>
  STATICFLOW_INLINE static void copy_staged(const std::unique_ptr<T[]>& staged, const extents<R>& ext, O& out) {
    if (staged) std::copy(staged.get(), staged.get() + detail::product(ext), detail::output_data(out));
  }

  template <class Views, class T>
  static bool any_overlap(const Views& views, const T* out, std::size_t size) {
    const auto* lo = reinterpret_cast<const unsigned char*>(out);
    const auto* hi = reinterpret_cast<const unsigned char*>(out + size);
    return staticflow::detail::apply([&](const auto&... v) STATICFLOW_LAMBDA_INLINE {
      return ([&]() STATICFLOW_LAMBDA_INLINE {
        if constexpr (std::is_same<std::remove_cvref_t<decltype(v)>, no_view>::value) return false;
        else return reinterpret_cast<const unsigned char*>(v.data) < hi &&
                    lo < reinterpret_cast<const unsigned char*>(v.data + v.size());
      }() || ...);
    }, views);
  }
};

}  // namespace staticflow
