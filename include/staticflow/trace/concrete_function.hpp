// staticflow/trace/concrete_function.hpp -- one signature's traced graph: what every backend's
// concrete function shares (the cache's type-erased base with the effects, the graph, its plan,
// the outputs' specs, the listings and the pretty-printed signature). How a call runs is the
// backend's: backend/cpu/concrete_function.hpp (the CPU backend, and sf::backend::eager's op by op
// evaluation), backend/thrust/concrete_function.hpp (device kernels).
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/backend/backend.hpp"
#include "staticflow/effects/recorder.hpp"
#include "staticflow/graph/print.hpp"
#include "staticflow/interop/xtensor.hpp"
#include "staticflow/plan/planned_listing.hpp"
#include "staticflow/plan/plan.hpp"
#include "staticflow/trace/constant_trace.hpp"
#include "staticflow/trace/signature.hpp"

namespace staticflow {
namespace detail {

template <class Tuple> struct decayed_tuple;
template <class... T> struct decayed_tuple<std::tuple<T...>> {
  using type = std::tuple<std::remove_cvref_t<T>...>;
};

/// The names a function's listings use: sf::arg_names' (empty: a, b, ...) and sf::function_name's
/// (empty: none was given).
struct listing_names {
  std::vector<std::string> arg_names;
  std::string function_name;
};

/// A listing with the signature's tensor arguments as parameters (static values are not
/// parameters: they are constants of the graph), named as sf::arg_names and sf::function_name
/// said when `names` (the concrete function) is given.
template <class Sig>
graph::detail::listing parameter_listing(const listing_names& names = {}) {
  graph::detail::listing l(std::tuple_size<Sig>::value, names.arg_names, names.function_name);
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    ([&] {
      using entry = std::tuple_element_t<I, Sig>;
      if constexpr (spec_type<entry>) l.add_parameter(I, short_spec_string(entry{}));
    }(), ...);
  }(std::make_index_sequence<std::tuple_size<Sig>::value>{});
  return l;
}

/// The erased views of a call on host memory (what its effects receive): each view's data and
/// extents; a static value (no view) none.
template <class Views>
STATICFLOW_INLINE auto erase_host_views(const Views& views) {
  return staticflow::detail::apply(
      [](const auto&... v) STATICFLOW_LAMBDA_INLINE {
        return std::array<erased_view, sizeof...(v) + 1>{[](const auto& one) STATICFLOW_LAMBDA_INLINE {
          if constexpr (std::is_same<std::remove_cvref_t<decltype(one)>, no_view>::value) return erased_view{};
          else return erased_view{one.data, one.ext.data()};
        }(v)...};
      },
      views);
}
}  // namespace detail

/// What a function's cache holds: type-erased access to every concrete function.
class concrete_function_base {
 public:
  explicit concrete_function_base(const void* key) : key_(key) {}
  virtual ~concrete_function_base() = default;
  concrete_function_base(const concrete_function_base&) = delete;
  concrete_function_base& operator=(const concrete_function_base&) = delete;

  /// The signature key (one address per signature type) this function was traced for.
  const void* key() const { return key_; }
  /// This signature in TensorFlow's pretty-printed form.
  virtual std::string pretty_printed_signature() const = 0;

  /// The effects (variable assignments, prints, for_range loops) recorded while tracing, which
  /// every call runs before computing its outputs; null when there are none.
  const detail::effect_program* effects() const { return effects_.get(); }
  void set_effects(std::unique_ptr<detail::effect_program> p) {
    effects_ = std::move(p);
    if (effects_) {
      std::vector<const graph::external_source*> reads;
      const bool known = list_output_reads(reads);
      effects_->find_in_place_writes(reads, known);
    }
  }
  /// The names sf::arg_names and sf::function_name gave, which graph_string, to_dot and to_code use.
  const detail::listing_names& listing_names() const { return names_; }
  void set_listing_names(detail::listing_names names) { names_ = std::move(names); }
  /// The "Captures" part of the pretty-printed signature: "  None", or one line per capture.
  std::string captures_string() const { return effects_ ? effects_->captures_string() : std::string("  None"); }

 protected:
  /// Whether a call must go through the effect program.
  STATICFLOW_INLINE bool has_effects() const { return effects_ != nullptr && effects_->active(); }
  /// The external values a call's outputs read, when a call that computes them by value cannot
  /// throw once its effects ran (effect_program::find_in_place_writes); false otherwise.
  virtual bool list_output_reads(std::vector<const graph::external_source*>&) const { return false; }
  /// Runs the effects with the call's views, then f() (the outputs), under the program's locks;
  /// variables written come back to their old contents if anything throws. RestInfallible: f
  /// cannot throw (list_output_reads said so for it).
  template <bool RestInfallible = false, class Views, class F>
  decltype(auto) with_effects(const Views& views, F&& f) const {
    const auto erased = detail::erase_host_views(views);
    return effects_->template run<RestInfallible>(erased.data(), std::forward<F>(f));
  }
  /// with_effects for views a backend erased itself (the Thrust backend's).
  template <class F>
  decltype(auto) with_erased_effects(detail::erased_args args, F&& f) const {
    return effects_->run(args, std::forward<F>(f));
  }

 private:
  const void* key_;
  std::unique_ptr<detail::effect_program> effects_;
  detail::listing_names names_;
};

namespace detail {
/// What the concrete function of a value-returning lambda is on every backend: the graph traced
/// for signature Sig (or, where the compiler traced it, the lambda traced again only when the
/// graph is asked for), the plan of it every call evaluates (the compiler's, or the run-time
/// trace's), the outputs' node types and specs, the listings and the pretty-printed signature.
/// A backend's concrete_function derives from concrete_function_base (first: the cache's pointer
/// to it needs no adjustment) and from this, and adds how a call runs. Not polymorphic: a class
/// with a vtable of its own would add a vtable, a typeinfo and its name, each mangled with the
/// whole graph type, to every concrete function of a translation unit.
template <class Sig, class Result, class Fn>
class concrete_function_shared {
  static_assert(checked_result<Result>::ok);

 protected:
  using nodes_type = decltype(output_nodes(std::declval<const Result&>()));

 public:
  using signature_type = Sig;
  using graph_type = Result;
  static constexpr std::size_t output_count = std::tuple_size<nodes_type>::value;

  /// Output K's node types: as traced, and as its fused loop sees it; its spec.
  template <std::size_t K>
  using output_node = std::remove_cvref_t<std::tuple_element_t<K, nodes_type>>;
  template <std::size_t K>
  using output_spec = spec_of_node_t<output_node<K>>;
  using output_values_type = typename decayed_tuple<nodes_type>::type;
  using plan_type = plan::evaluation_plan<std::tuple_size<Sig>::value, output_values_type>;
  template <std::size_t K>
  using lowered_output = std::tuple_element_t<K, typename plan_type::outputs_type>;
  /// How many nodes the planner materializes (before removing repeats).
  static constexpr std::size_t materialized_count = plan_type::slot_count;
  /// Whether the plan was made by the compiler (detail::constant_trace): then every call
  /// evaluates that constant plan, not the one made from the run-time trace (which is equal).
  static constexpr bool traced_at_compile_time = [] {
    if constexpr (std::is_void<Fn>::value) return false;
    else return constant_plan_possible<plan_type, output_values_type, Fn, Sig>;
  }();

  /// The graph the lambda returned while tracing (for a function the compiler traced: traced now
  /// if not yet; such a lambda has no state and its trace no side effect, so this is the trace the
  /// first call would have made).
  const Result& graph() const { return graph_.get(); }
  /// The plan: lowered outputs, slots, and which slots repeat others.
  const plan_type& evaluation_plan() const { return plan(); }

  /// The graph's listing, its arguments and function named as `names` says: the backend's
  /// graph_string (a jaxpr-like SSA listing, a loop's condition and body and a cond's branches
  /// under their node), to_dot (Graphviz: sub-graphs as clusters, each node marked fused, and
  /// into which loops, materialized or a view) and to_code (the C++-ish program the graph stands
  /// for, tf.autograph.to_code's analog) print it.
  graph::detail::listing make_listing(const listing_names& names) const {
    auto l = parameter_listing<Sig>(names);
    if constexpr (output_count > 0) {
      const auto outs = output_nodes(graph());
      staticflow::detail::apply([&](const auto&... n) { (l.add_output(n), ...); }, outs);
      plan::detail::mark_planned<output_values_type>(l, outs);
    }
    return l;
  }

  /// The signature in TensorFlow's pretty-printed form, given its "Captures" part.
  std::string signature_string(const std::string& captures) const {
    std::string s = "Input Parameters:\n" + input_parameters_string<Sig>() + "Output Type:\n  ";
    if constexpr (output_count == 0) {
      s += "None";
    } else if constexpr (output_count == 1 && !is_tuple<Result>::value) {
      s += tensor_spec_string<spec_of_node_t<Result>>();
    } else {
      s += "Tuple[";
      [&]<std::size_t... K>(std::index_sequence<K...>) {
        const std::string outputs[] = {tensor_spec_string<output_spec<K>>()...};
        for (std::size_t k = 0; k < output_count; ++k) (s += k ? ", " : "") += outputs[k];
      }(std::make_index_sequence<output_count>{});
      s += "]";
    }
    return s + "\nCaptures:\n" + captures;
  }

 protected:
  explicit concrete_function_shared(Result graph) : graph_(std::move(graph)), plan_(run_time_plan()) {}
  /// A function the compiler traced (traced_at_compile_time): calls need no graph at all, so the
  /// lambda is traced again at run time only when the graph is asked for (graph(), the listings).
  /// Until then the run-time trace is not even compiled: for a gradient function, the adjoint's
  /// walk, a fifth of its translation unit's compile time (docs/architecture.md).
  explicit concrete_function_shared(traced_by_compiler_t) { static_assert(traced_at_compile_time); }

  STATICFLOW_INLINE const plan_type& plan() const {
    if constexpr (traced_at_compile_time) return constant_plan_v<plan_type, output_values_type, Fn, Sig>;
    else return plan_;
  }

  /// Each output's extents, given the views of the arguments (and slots: their extents are not read).
  template <class Views>
  STATICFLOW_INLINE auto output_extents(const Views& views) const {
    const auto arg_ext = extents_of_views(views);
    return [&]<std::size_t... K>(std::index_sequence<K...>) STATICFLOW_LAMBDA_INLINE {
      return std::tuple{graph::node_extents(staticflow::detail::get<K>(plan().outputs), arg_ext)...};
    }(std::make_index_sequence<output_count>{});
  }

 private:
  output_values_type output_values() const { return output_values_of<output_values_type>(graph()); }

  /// The plan of the run-time trace, kept only where the compiler made none (plan() returns that).
  struct no_run_time_plan {};
  using run_time_plan_type = std::conditional_t<traced_at_compile_time, no_run_time_plan, plan_type>;
  run_time_plan_type run_time_plan() const {
    if constexpr (traced_at_compile_time) return {};
    else return plan_type(output_values());
  }

  traced_graph<Result, Fn, Sig, traced_at_compile_time> graph_;
  [[no_unique_address]] run_time_plan_type plan_;
};
}  // namespace detail

/// The graph traced for one signature: calling it evaluates the graph with no lookup at all.
/// `Backend` is the backend it runs on; `Sig` is the tuple of signature entries; `Result` is what
/// the lambda returned while tracing; `Fn` is the lambda's type (void: no trace by the compiler is
/// tried). Defined by each backend (backend/cpu/concrete_function.hpp for sf::backend::cpu and
/// sf::backend::eager, backend/thrust/concrete_function.hpp), but for lambdas that return nothing:
/// below. (No default argument: nvcc's front end repeats a declaration's defaults on the later
/// definition, which the host compiler then rejects as a redefinition.)
template <class Backend, class Sig, class Result, class Fn>
class concrete_function;

namespace detail {
/// What the concrete function of a lambda that returns nothing (it exists for its effects) is on
/// every backend: its listings show the parameters only, its signature "Output Type: None".
template <class Sig>
class effects_only_function : public concrete_function_base {
 public:
  using signature_type = Sig;
  static constexpr std::size_t output_count = 0;
  std::string graph_string() const { return parameter_listing<Sig>(listing_names()).jaxpr(); }
  std::string to_dot() const { return parameter_listing<Sig>(listing_names()).dot(); }
  std::string to_code() const { return parameter_listing<Sig>(listing_names()).code(); }
  std::string pretty_printed_signature() const override {
    return "Input Parameters:\n" + input_parameters_string<Sig>() + "Output Type:\n  None\nCaptures:\n" + captures_string();
  }

 protected:
  using concrete_function_base::concrete_function_base;
};
}  // namespace detail

/// A lambda that returns nothing, on a backend of host memory (the CPU backend, sf::backend::eager).
template <class Backend, class Sig, class Fn>
class concrete_function<Backend, Sig, void, Fn> final : public detail::effects_only_function<Sig> {
 public:
  concrete_function() : detail::effects_only_function<Sig>(&detail::type_key<Sig>) {}
  /// Runs the effects (a lambda that returns nothing exists for them).
  template <class... Args>
  void operator()(const Args&... args) const {
    static_assert(std::is_same<detail::signature_of_t<Args...>, Sig>::value,
                  "staticflow: the arguments do not match this concrete function's signature");
    if (!this->has_effects()) return;
    auto slots = std::tuple<detail::scalar_slot_t<Args>...>{};
    const auto views = [&]<std::size_t... I>(std::index_sequence<I...>) {
      return std::tuple{detail::make_view(args, staticflow::detail::get<I>(slots))...};
    }(std::index_sequence_for<Args...>{});
    this->template with_effects<true>(views, [] {});
  }
  /// No outputs: nothing after the effects can throw.
  bool list_output_reads(std::vector<const graph::external_source*>&) const override { return true; }
};

}  // namespace staticflow
