// staticflow/trace/function.hpp -- sf::function: the polymorphic function that traces a generic
// lambda once per signature and runs the traced graph on every call.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/backend/backend.hpp"
#include "staticflow/graph/child_refs.hpp"
#include "staticflow/interop/tensor.hpp"
#include "staticflow/interop/tensor_ref.hpp"
#include "staticflow/interop/xarray.hpp"
#include "staticflow/trace/cache.hpp"
#include "staticflow/backend/cpu/concrete_function.hpp"
#include "staticflow/trace/concrete_function.hpp"
#include "staticflow/trace/dispatch.hpp"
#include "staticflow/trace/eager_mode.hpp"
#include "staticflow/effects/recorder.hpp"
#include "staticflow/graph/external.hpp"
#include "staticflow/graph/operators.hpp"
#include "staticflow/plan/path_counts.hpp"
#include "staticflow/trace/input_signature.hpp"
#include "staticflow/trace/log.hpp"
#include "staticflow/trace/options.hpp"
#include "staticflow/trace/signature.hpp"

namespace staticflow {
namespace detail {
/// The last concrete function this thread used for signature Sig of a function of type Fn,
/// tagged with the owner's id. Ids are never reused, so a stale entry can never match: the hot
/// path is one thread-local compare, with no lock and no atomic.
template <class Fn, class Sig>
struct last_used {
  std::uint64_t owner = 0;
  concrete_function_base* concrete = nullptr;
};
template <class Fn, class Sig>
inline constinit thread_local last_used<Fn, Sig> last_used_slot{};

inline std::uint64_t next_function_id() {
  static std::atomic<std::uint64_t> counter{0};
  return counter.fetch_add(1, std::memory_order_relaxed) + 1;
}

/// Whether argument type A lives in device memory (sf::device_tensor, sf::device_view): only the
/// Thrust backend reads it.
template <class A>
inline constexpr bool on_device_v = requires { requires argument_traits<std::remove_cvref_t<A>>::on_device; };

/// The backend a call runs on: the Thrust backend when an argument lives on the device, else the
/// function's own.
template <class Backend, class... Args>
using call_backend_t = std::conditional_t<(on_device_v<Args> || ...), backend::thrust_t, Backend>;

/// The cache key of (backend, signature). Thrust concrete functions have keys of their own, so a
/// function object can hold a signature's CPU and device graphs side by side.
template <class B, class Sig>
inline constexpr const void* concrete_key = &type_key<Sig>;
template <class Sig>
inline constexpr const void* concrete_key<backend::thrust_t, Sig> = &type_key<std::pair<backend::thrust_t, Sig>>;
template <class B, class Sig>
using last_used_key_t = std::conditional_t<std::is_same<B, backend::thrust_t>::value, std::pair<B, Sig>, Sig>;

/// Whether a call may run on B: the Thrust backend needs backend/thrust/thrust.hpp (and Thrust).
template <class B, class Dep>
constexpr bool backend_included() {
  if constexpr (std::is_same<B, backend::thrust_t>::value)
    return requires { sizeof(std::conditional_t<true, thrust_backend::enabled, Dep>); };
  else return true;
}

/// The name of a type as the compiler spells it (GCC and Clang), for log messages.
template <class T>
std::string type_name() {
  const std::string_view p = __PRETTY_FUNCTION__;
  const auto start = p.find("T = ");
  if (start == std::string_view::npos) return "a staticflow function";
  auto end = p.find(';', start);
  if (end == std::string_view::npos) end = p.rfind(']');
  return std::string(p.substr(start + 4, end - start - 4));
}

/// Eager calls of graphs made only of elementwise ops, literals and eager values (the common
/// case) are evaluated op by op with no plan slots for their eager values: a leaf of the call's
/// argument I becomes graph::argument<I> (every leaf of that type reads the one value, so the
/// graph is the traced graph's type, whose plan and kernels the traced path has instantiated
/// already), and each read of a value computed on the spot (eager_kind: two of one type may
/// differ) becomes an argument of its own after them, whose view points at the value's data. (As
/// slots, the eager values of an N-node chain made the plan's tuples, repeat search and slot code
/// grow as N^2 at compile time; as an argument per read, `v = v * v + v` five levels deep made a
/// graph of 3^5 distinct leaves: 24 s of g++, and six levels did not compile.) Graphs with any
/// other materialized node keep the planned path.
template <class N>
constexpr bool eager_elementwise() {
  if constexpr (graph::detail::is_eager_value<N>::value) {
    return true;
  } else if constexpr (plan::materializes<N>::value || requires { N::projected_output; }) {
    return false;
  } else {
    using kids = decltype(graph::children(std::declval<const N&>()));
    return []<std::size_t... K>(std::index_sequence<K...>) {
      return (eager_elementwise<std::remove_cvref_t<std::tuple_element_t<K, kids>>>() && ...);
    }(std::make_index_sequence<std::tuple_size<kids>::value>{});
  }
}

/// Whether N is a leaf of an eager call's argument (graph/external.hpp: one value per call).
template <class N>
struct is_eager_argument : std::false_type {};
template <class T, class S, std::size_t I>
struct is_eager_argument<graph::eager_argument_value<T, S, I>> : std::true_type {
  static constexpr std::size_t index = I;
};
/// Whether N is a value computed on the spot in an eager call (a cond's result, a loop's).
template <class N>
inline constexpr bool is_computed_eager_value_v = graph::detail::is_eager_value<N>::value && !is_eager_argument<N>::value;

/// An elementwise eager result reading computed values more often than this, and reading a node
/// with children twice close by (plan/path_counts.hpp's local_repeat), is a computed value read
/// by hand at every level of a chain (`v = v * v + v` four levels deep over a cond's result reads
/// it 3^4 = 81 times in 9 node types): one argument per read would make a graph of 81 distinct
/// leaves, so it takes the planned path instead, whose repeats are one node (plan/repeats.hpp).
/// Long chains without repeats keep their arguments.
inline constexpr std::size_t eager_reads_as_arguments_limit = 64;

/// How many times graph N reads a computed eager value (each occurrence), counted up to 2^20 (a
/// class per node type, recursing class to class: see graph/traversal.hpp).
template <class N, bool Leaf = graph::detail::is_eager_value<N>::value, class Kids = graph::detail::child_list_t<N>>
struct eager_value_reads : std::integral_constant<std::size_t, is_computed_eager_value_v<N> ? 1 : 0> {};
template <class N, template <class...> class List, class... K>
struct eager_value_reads<N, false, List<K...>>
    : std::integral_constant<std::size_t, std::min((std::size_t{0} + ... + eager_value_reads<std::remove_cvref_t<K>>::value),
                                                   std::size_t{1} << 20)> {};

/// Whether an eager call's result G reads its eager values as arguments (above).
template <class G>
constexpr bool eager_reads_as_arguments() {
  if constexpr (eager_value_reads<G>::value <= eager_reads_as_arguments_limit) return true;
  else return !plan::detail::local_repeats_in_outputs<std::tuple<G>>::value;
}

/// Whether an eager call's result G (a node, a tuple, ...) is one such graph.
template <class G>
constexpr bool eager_elementwise_result() {
  if constexpr (!symbolic<G>) return false;
  else if constexpr (!eager_elementwise<G>()) return false;
  else return eager_reads_as_arguments<G>();
}

template <class... L> struct eager_spec_cat { using type = std::tuple<>; };
template <class... A> struct eager_spec_cat<std::tuple<A...>> { using type = std::tuple<A...>; };
template <class... A, class... B, class... Rest>
struct eager_spec_cat<std::tuple<A...>, std::tuple<B...>, Rest...> : eager_spec_cat<std::tuple<A..., B...>, Rest...> {};

/// The specs of the computed eager values graph N reads, one per occurrence, in post-order.
template <class N>
struct eager_leaf_specs {
  template <std::size_t... K>
  static auto of(std::index_sequence<K...>) -> typename eager_spec_cat<
      typename eager_leaf_specs<std::remove_cvref_t<std::tuple_element_t<K, decltype(graph::children(std::declval<const N&>()))>>>::type...>::type;
  using type = decltype(of(std::make_index_sequence<std::tuple_size<decltype(graph::children(std::declval<const N&>()))>::value>{}));
};
template <class T, class S, class K>
  requires graph::detail::is_eager_value<graph::external_leaf<T, S, K>>::value
struct eager_leaf_specs<graph::external_leaf<T, S, K>> {
  using type = std::conditional_t<is_computed_eager_value_v<graph::external_leaf<T, S, K>>, std::tuple<spec_of_t<T, S>>, std::tuple<>>;
};

template <class Kids, std::size_t K>
constexpr std::size_t eager_leaves_before() {
  return []<std::size_t... J>(std::index_sequence<J...>) {
    return (std::size_t{0} + ... + std::tuple_size<typename eager_leaf_specs<std::remove_cvref_t<std::tuple_element_t<J, Kids>>>::type>::value);
  }(std::make_index_sequence<K>{});
}

/// Graph n with its argument leaves read as the call's arguments and computed eager value
/// occurrence k read as argument Base + k.
template <std::size_t Base, class N>
constexpr auto eager_values_as_arguments(const N& n) {
  if constexpr (is_eager_argument<N>::value) {
    return graph::argument<is_eager_argument<N>::index, typename N::value_type, typename N::shape_type>{};
  } else if constexpr (graph::detail::is_eager_value<N>::value) {
    return graph::argument<Base, typename N::value_type, typename N::shape_type>{};
  } else if constexpr (graph::detail::is_literal<N>::value) {
    return n;
  } else {
    using kids = decltype(graph::children(n));
    return [&]<std::size_t... K>(std::index_sequence<K...>) {
      [[maybe_unused]] const auto c = graph::children(n);
      return graph::with_children(n, eager_values_as_arguments<Base + eager_leaves_before<kids, K>()>(graph::child<K>(c))...);
    }(std::make_index_sequence<std::tuple_size<kids>::value>{});
  }
}

/// Points view Base + k at computed eager value occurrence Base + k of n.
template <std::size_t Base, class N, class Views>
void eager_value_views(const N& n, Views& views) {
  if constexpr (is_computed_eager_value_v<N>) {
    staticflow::detail::get<Base>(views) = {n.data(), n.result_extents()};
  } else if constexpr (!graph::detail::is_eager_value<N>::value) {
    using kids = decltype(graph::children(n));
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      [[maybe_unused]] const auto c = graph::children(n);
      (eager_value_views<Base + eager_leaves_before<kids, K>()>(graph::child<K>(c), views), ...);
    }(std::make_index_sequence<std::tuple_size<kids>::value>{});
  }
}

template <class Sig>
struct eager_views;
template <class... E>
struct eager_views<std::tuple<E...>> {
  using type = std::tuple<tensor_view<typename E::value_type, E::shape_type::rank>...>;
};

/// An eager call's concrete function, constructed out of line. Its graph and plan are often
/// empty objects (leaves and ops without data: no byte of them is ever written), and with the
/// construction inlined GCC 12 at -O3 reported the object as maybe-uninitialized wherever a node
/// of it was passed by reference (four warnings per example program).
template <class C, class G>
[[gnu::noinline]] C make_eager_concrete(G&& graph) {
  return C(std::forward<G>(graph));
}

/// What an eager call's `use` sees for such a graph: the concrete function and its views.
template <class C, class Views>
struct eager_call_target {
  const C& c;
  const Views& views;
  auto operator()() const { return c.call_views(views); }
  template <class Out>
  void call_into(Out&& out) const { c.call_into_views(std::forward<Out>(out), views); }
};
}  // namespace detail

/// What sf::function returns. Calling it computes the call's signature (a type), traces the
/// lambda with symbolic tensors the first time that signature is seen by this object, and then
/// evaluates the traced graph. Move-only: the cache is identity.
///
namespace detail {
template <class Fn>
inline constexpr bool traced_in_eager_mode = [] {
  if constexpr (requires { Fn::traced_in_eager_mode; }) return bool(Fn::traced_in_eager_mode);
  else return false;
}();
}  // namespace detail

/// `Config` holds the template arguments of sf::function<...>: the input signature, shape
/// specializations, the dtypes and ranks compiled for run-time arguments (trace/options.hpp).
template <class Fn, class Backend = backend::cpu_t, class Config = detail::function_config<>>
class polymorphic_function {
 public:
  using config_type = Config;
  using backend_type = Backend;
  /// Whether calls compile a branch to eager mode (sf::run_functions_eagerly): not on the Thrust
  /// backend (eager mode is a CPU debugging aid), nor with STATICFLOW_EAGER_MODE=0.
  /// A function object that declares `static constexpr bool traced_in_eager_mode = true` (the
  /// gradient functions of autodiff/grad.hpp) runs its traced graph in eager mode too.
  static constexpr bool eager_path = eager_mode_compiled && !std::is_same<Backend, backend::thrust_t>::value &&
                                     !detail::traced_in_eager_mode<Fn>;
  /// The concrete function type for a signature (a std::tuple of entries).
  template <class Sig, class B = Backend>
  using concrete_for_signature = concrete_function<B, Sig, typename detail::traced_result<Fn, Sig>::type, Fn>;

  explicit polymorphic_function(Fn fn, detail::function_settings settings = {})
      : fn_(std::move(fn)), cache_(std::make_unique<detail::concrete_cache>(with_defaults(std::move(settings)))) {}

  polymorphic_function(polymorphic_function&& other)
      : fn_(std::move(other.fn_)), id_(other.id_), cache_(std::move(other.cache_)) {
    other.id_ = detail::next_function_id();  // the moved-from object is valid and empty
    other.cache_ = std::make_unique<detail::concrete_cache>(cache_->settings());
  }
  polymorphic_function& operator=(polymorphic_function&&) = delete;
  polymorphic_function(const polymorphic_function&) = delete;
  polymorphic_function& operator=(const polymorphic_function&) = delete;

  template <class... Args>
  using concrete_type = concrete_for_signature<detail::signature_of_t<Args...>>;

  /// Runs the graph for these arguments, tracing it first if this signature is new. Arguments of
  /// static rank and dtype with no input signature or specialization in the way take the direct
  /// path (one thread-local compare); the others go through the dispatch map (trace/dispatch.hpp).
  template <class... Args>
  STATICFLOW_INLINE auto operator()(const Args&... args) {
    if constexpr (((symbolic<Args> || detail::readable<Args>) || ...)) {
      // called while another function is traced: its graph is inlined into the caller's (this
      // function's cache is not touched). An sf::variable argument is read at this point, as in
      // an expression (the seed's `add(v, 1.0)` under a gradient tape); outside a trace that
      // read throws sf::trace_error, which says to pass v.value().
      return fn_(detail::read_if_variable(args)...);
    } else if constexpr (!std::is_same_v<detail::call_backend_t<Backend, Args...>, Backend>) {  // (_v: see call_into)
      return (*this)(backend::thrust, args...);  // device arguments: the Thrust backend
    } else if constexpr (detail::is_direct<Config, Args...>()) {
      if constexpr (!detail::traced_result<Fn, detail::signature_of_t<Args...>>::ok) {
        return detail::reported_call{};  // the lambda returned a plain C++ value: reported
      } else {
        if constexpr (eager_path)
          if (functions_run_eagerly()) [[unlikely]]
            return eager_call<detail::signature_of_t<Args...>>(args...);
        return concrete<detail::signature_of_t<Args...>>()(args...);
      }
    }
    else if constexpr (!detail::call_checks<Config, Args...>::valid)
      return detail::reported_call{};  // the compile error names the argument and the specs
    else
      return detail::call_site<polymorphic_function, Args...>::call(*this, args...);
  }

  /// Calls the lambda now, as in eager mode (sf::run_functions_eagerly): the cache is not used.
  template <class Sig, class... Args>
  [[gnu::noinline]] auto eager_call(const Args&... args) {
    return with_eager_graph<Sig>([](const auto& c) { return c(); }, args...);
  }

  /// call_into in eager mode, out of line like eager_call: inlined, it made every call_into's
  /// frame bigger (a run-time-dims call on 4 floats 1.8 -> 2.1 ns).
  template <class Sig, class Out, class... Args>
  [[gnu::noinline]] void eager_call_into(Out&& out, const Args&... args) {
    with_eager_graph<Sig>([&](const auto& c) { c.call_into(std::forward<Out>(out)); }, args...);
  }

  /// Runs the lambda with eager values over the arguments' data (effects at its top level run as
  /// they are met, sf::cond picks its branch at once: effects/eager.hpp), then calls
  /// use(concrete function of what it returned, evaluated op by op). Variables written are put
  /// back when anything throws.
  template <class Sig, class Use, class... Args>
  decltype(auto) with_eager_graph(Use&& use, const Args&... args) {
    auto slots = std::tuple<detail::scalar_slot_t<Args>...>{};
    const auto views = [&]<std::size_t... I>(std::index_sequence<I...>) {
      return staticflow::detail::pack_values(detail::make_view(args, staticflow::detail::get<I>(slots))...);
    }(std::index_sequence_for<Args...>{});
    std::array<const void*, sizeof...(Args) + 1> data{};
    std::array<graph::external_source, sizeof...(Args) + 1> sources{};
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      ([&] {
        if constexpr (spec_type<std::tuple_element_t<I, Sig>>) {
          data[I] = staticflow::detail::get<I>(views).data;
          sources[I] = {&data[I], staticflow::detail::get<I>(views).ext.data(), "eager_arg"};
        }
      }(), ...);
    }(std::index_sequence_for<Args...>{});
    const auto run_lambda = [&]<std::size_t... I>(std::index_sequence<I...>) -> decltype(auto) {
      return fn_(detail::eager_argument<I, std::tuple_element_t<I, Sig>>(&sources[I])...);
    };
    using G = decltype(run_lambda(std::index_sequence_for<Args...>{}));
    std::vector<const detail::variable_base*> written;
    try {
      std::unique_ptr<detail::effect_program> program;
      // A plain C++ result is reported by checked_result; planning nothing over it keeps that the one error.
      if constexpr (std::is_void<G>::value || !detail::checked_result<G>::ok) {
        {
          detail::trace_scope recording(&written);
          run_lambda(std::index_sequence_for<Args...>{});
          program = recording.finish();
        }
        concrete_function<backend::eager_t, std::tuple<>, void, void> c;
        if (program) c.set_effects(std::move(program));
        return use(c);
      } else {
        std::optional<G> graph;
        {
          detail::trace_scope recording(&written);
          graph.emplace(run_lambda(std::index_sequence_for<Args...>{}));
          program = recording.finish();
        }
        if constexpr (detail::eager_elementwise_result<G>()) {
          // the call's arguments, then one argument per read of a value computed on the spot
          using leaf_sig = typename detail::eager_leaf_specs<G>::type;
          using G2 = decltype(detail::eager_values_as_arguments<sizeof...(Args)>(*graph));
          const auto run = [&](const auto& all_views) -> decltype(auto) {
            using full_sig = typename detail::eager_spec_cat<Sig, leaf_sig>::type;
            auto c = detail::make_eager_concrete<concrete_function<backend::eager_t, full_sig, G2, void>>(
                detail::eager_values_as_arguments<sizeof...(Args)>(*graph));
            if (program) c.set_effects(std::move(program));
            return use(detail::eager_call_target<decltype(c), std::remove_cvref_t<decltype(all_views)>>{c, all_views});
          };
          if constexpr (std::tuple_size<leaf_sig>::value == 0) {
            return run(views);
          } else {
            typename detail::eager_views<leaf_sig>::type leaf_views;
            detail::eager_value_views<0>(*graph, leaf_views);
            return run(staticflow::detail::values_concat(views, leaf_views));
          }
        } else {
          auto c = detail::make_eager_concrete<concrete_function<backend::eager_t, std::tuple<>, G, void>>(std::move(*graph));
          if (program) c.set_effects(std::move(program));
          return use(c);
        }
      }
    } catch (...) {
      for (const auto* v : written) const_cast<detail::variable_base*>(v)->restore();
      throw;
    }
  }

  /// Runs this call on backend B (sf::backend::thrust, or the function's own backend; a function
  /// on the Thrust backend may also run a call on sf::backend::cpu). Each (backend, signature)
  /// has its own concrete function. Arguments need a static rank and dtype.
  template <class B, class... Args>
    requires detail::is_backend_v<B>
  STATICFLOW_INLINE auto operator()(B, const Args&... args) {
    static_assert(std::is_same<B, Backend>::value || std::is_same<B, backend::thrust_t>::value ||
                      (std::is_same<Backend, backend::thrust_t>::value && std::is_same<B, backend::cpu_t>::value),
                  "staticflow: a call can choose sf::backend::thrust or the function's own backend");
    static_assert(detail::backend_included<B, Fn>(),
                  "staticflow: sf::backend::thrust needs #include <staticflow/backend/thrust/thrust.hpp> (and Thrust)");
    if constexpr (std::is_same<B, Backend>::value)
      return (*this)(args...);
    else if constexpr (!detail::is_direct<Config, Args...>())
      static_assert(detail::always_false<B>,
                    "staticflow: a call on another backend than the function's needs arguments of static rank and "
                    "dtype that match its input signature, if any, exactly");
    else
      return concrete<detail::signature_of_t<Args...>, B>()(args...);
  }

  /// Like operator(), writing into the caller's container(s); see concrete_function::call_into.
  /// With run-time ranks or dtypes, `out` may be an xt::xarray or an sf::tensor of the result's
  /// rank and dtype (a mismatch throws before anything is written).
  template <class Out, class... Args>
  STATICFLOW_INLINE void call_into(Out&& out, const Args&... args) {
    using B = detail::call_backend_t<Backend, Out, Args...>;
    // (std::is_same_v, not std::is_same<...>::value as elsewhere: g++ 12 rejects the latter for an
    // alias over a fold of the call's pack, "invalid use of pack expansion expression")
    if constexpr (!std::is_same_v<B, Backend>) {
      static_assert(detail::backend_included<B, Fn>(),
                    "staticflow: sf::backend::thrust needs #include <staticflow/backend/thrust/thrust.hpp> (and Thrust)");
      concrete<detail::signature_of_t<Args...>, B>().call_into(std::forward<Out>(out), args...);
    } else if constexpr (detail::is_direct<Config, Args...>()) {
      if constexpr (eager_path) {
        if (functions_run_eagerly()) [[unlikely]] {
          eager_call_into<detail::signature_of_t<Args...>>(std::forward<Out>(out), args...);
          return;
        }
      }
      concrete<detail::signature_of_t<Args...>>().call_into(std::forward<Out>(out), args...);
    }
    else if constexpr (detail::call_checks<Config, Args...>::valid)
      detail::call_site<polymorphic_function, Args...>::call_into(*this, out, args...);
  }

  /// The concrete function for these arguments (tensors, scalars, static values or sf::spec
  /// types), traced if needed. Equal signatures give the same object. With an input signature and
  /// no arguments: the signature's one graph. When the variant is chosen at run time (xt::xarray,
  /// sf::tensor, shape specializations) the result is an sf::concrete_function_ref.
  template <class... Args>
  decltype(auto) get_concrete_function(const Args&... args) {
    if constexpr (Config::has_signature && sizeof...(Args) == 0)
      return concrete<typename Config::signature>();
    else if constexpr (detail::is_direct<Config, Args...>())
      return concrete<detail::signature_of_t<Args...>, detail::call_backend_t<Backend, Args...>>();
    else if constexpr (!detail::call_checks<Config, Args...>::valid)
      return detail::reported_call_object();  // the compile error names the argument and the specs
    else
      return detail::call_site<polymorphic_function, Args...>::get(*this, args...);
  }

  /// Why a call with these arguments would trace a new concrete function (its signature and
  /// how it differs from the closest traced one), or why it would throw; empty when it would
  /// reuse a concrete function. Runs nothing.
  template <class... Args>
  std::string explain_miss(const Args&... args) const {
    if constexpr (detail::is_direct<Config, Args...>()) {
      using Sig = detail::signature_of_t<Args...>;
      return cache_->explain(detail::concrete_key<detail::call_backend_t<Backend, Args...>, Sig>,
                             detail::describe_signature<Sig>());
    } else if constexpr (!detail::call_checks<Config, Args...>::valid) {
      return std::string();
    } else {
      return detail::call_site<polymorphic_function, Args...>::explain(*this, args...);
    }
  }

  /// How many times the lambda has been traced (once per signature; clear_cache does not reset it).
  std::size_t tracing_count() const { return cache_->tracing_count(); }

  /// How many concrete functions the cache holds, and the most it may hold.
  std::size_t cache_size() const { return cache_->size(); }
  std::size_t cache_capacity() const { return cache_->settings().capacity; }

  /// Drops every concrete function: the next calls trace again. Not to be called while another
  /// thread calls this function; references from get_concrete_function dangle afterwards.
  void clear_cache() {
    cache_->clear();
    id_ = detail::next_function_id();  // every thread's last-used slot goes stale
  }

  /// Where this function's warnings go (an empty callback: the process-wide one, see
  /// sf::set_log_callback).
  void set_log_callback(log_callback cb) { cache_->set_log_callback(std::move(cb)); }

  /// The name log messages use (sf::function_name, else the lambda's type).
  const std::string& name() const { return cache_->settings().name; }
  /// The parameter names sf::arg_names gave (empty when none were given).
  const std::vector<std::string>& arg_names() const { return cache_->settings().arg_names; }

  /// Every traced signature, in TensorFlow's format, separated by blank lines; parameters are
  /// named as sf::arg_names says, else arg0, arg1, ...
  std::string pretty_printed_concrete_signatures() const {
    std::string s;
    const auto& names = cache_->settings().arg_names;
    cache_->for_each([&](const concrete_function_base& c) {
      std::string one = c.pretty_printed_signature();
      if (!names.empty()) one = detail::rename_parameters(std::move(one), names);
      s += s.empty() ? "" : "\n\n";
      s += one;
    });
    return s;
  }

 private:
  friend struct detail::dispatch_access;

  template <class Sig, class B = Backend>
  using concrete_for_t = concrete_for_signature<Sig, B>;

  static detail::function_settings with_defaults(detail::function_settings s) {
    if (s.name.empty()) s.name = detail::type_name<Fn>();
    return s;
  }

  template <class Sig, class B = Backend>
  STATICFLOW_INLINE concrete_for_t<Sig, B>& concrete() {
    auto& slot = detail::last_used_slot<Fn, detail::last_used_key_t<B, Sig>>;
    if (slot.owner == id_) [[likely]]
      return static_cast<concrete_for_t<Sig, B>&>(*slot.concrete);
    return concrete_slow<Sig, false, B>();
  }

  /// The same for a call whose variant the dispatch map chose: counted for the retracing warning.
  template <class Sig>
  STATICFLOW_INLINE concrete_for_t<Sig>& dispatched_concrete() {
    auto& slot = detail::last_used_slot<Fn, Sig>;
    if (slot.owner == id_) [[likely]] {
      cache_->count_call();
      return static_cast<concrete_for_t<Sig>&>(*slot.concrete);
    }
    return concrete_slow<Sig, true>();
  }

  template <class Sig, bool Dispatched, class B = Backend>
  [[gnu::noinline]] concrete_for_t<Sig, B>& concrete_slow() {
    auto& c = cache_->template find_or_trace<Dispatched>(
        detail::concrete_key<B, Sig>,
        [](void* self) { return static_cast<polymorphic_function*>(self)->template trace<Sig, B>(); }, this,
        &detail::describe_signature<Sig>);
    detail::last_used_slot<Fn, detail::last_used_key_t<B, Sig>> = {id_, &c};
    return static_cast<concrete_for_t<Sig, B>&>(c);
  }

  /// Calls the lambda with symbolic arguments: its C++ side effects happen here, once. Effects
  /// (variable assignments, sf::print, sf::for_range) are recorded and kept by the concrete
  /// function, which runs them on every call.
  template <class Sig, class B = Backend>
  std::unique_ptr<concrete_function_base> trace() {
    constexpr bool on_device = std::is_same<B, backend::thrust_t>::value;
    detail::trace_scope recording(nullptr, on_device);  // effects plan their graphs for B
    const auto& settings = cache_->settings();
    const graph::detail::tracing_arg_names_scope names(settings.arg_names);
    auto traced = trace_graph<Sig, B>();
    traced->set_listing_names({settings.arg_names, settings.named ? settings.name : std::string()});
    if (auto program = recording.finish()) traced->set_effects(std::move(program));
    return traced;
  }

  template <class Sig, class B>
  std::unique_ptr<concrete_function_base> trace_graph() {
    using C = concrete_for_t<Sig, B>;
    return [&]<std::size_t... I>(std::index_sequence<I...>) -> std::unique_ptr<concrete_function_base> {
      if constexpr (std::is_void<typename detail::traced_result<Fn, Sig>::type>::value) {
        fn_(detail::symbolic_argument<I, std::tuple_element_t<I, Sig>>()...);
        return std::make_unique<C>();
      } else if constexpr (requires { requires C::traced_at_compile_time; }) {
        // The compiler traced the lambda (trace/constant_trace.hpp): it has no state and its trace
        // no C++ side effect, so nothing is traced now; the concrete function traces it again if
        // its graph is asked for.
        return std::make_unique<C>(detail::traced_by_compiler);
      } else {
        return std::make_unique<C>(fn_(detail::symbolic_argument<I, std::tuple_element_t<I, Sig>>()...));
      }
    }(std::make_index_sequence<std::tuple_size<Sig>::value>{});
  }

  Fn fn_;
  std::uint64_t id_ = detail::next_function_id();
  std::unique_ptr<detail::concrete_cache> cache_;
};

namespace detail {
inline void apply_option(function_settings&, backend::cpu_t) {}
inline void apply_option(function_settings&, backend::eager_t) {}
inline void apply_option(function_settings&, backend::thrust_t) {}
inline void apply_option(function_settings& s, function_name n) {
  s.name = std::move(n.value);
  s.named = true;
}
inline void apply_option(function_settings& s, cache_capacity c) { s.capacity = c.value; }
template <std::size_t N>
void apply_option(function_settings& s, arg_names_t<N> n) {
  s.arg_names.assign(n.names.begin(), n.names.end());
}
}  // namespace detail

/// Wraps a generic lambda as a traced, polymorphic function (tf.function).
///
///   sf::function(fn)                               one graph per signature the calls have
///   sf::function<sf::spec<float, sf::dyn>>(fn)     an input signature: one graph for every call
///   sf::function<sf::specialize<sf::shape<4>>>(fn) a static variant for run-time shape (4,)
///   sf::function<sf::dtypes<float>, sf::ranks<1, 2>>(fn)   variants for xt::xarray / sf::tensor
///
/// Options after the lambda: the backend that runs its kernels (sf::backend::cpu, the default,
/// or sf::backend::eager), sf::arg_names("x", ...), sf::function_name("f"), sf::cache_capacity(n).
template <class... Specs, class Fn, class... Options>
auto function(Fn fn, Options... options) {
  // Each check reports its own option; an option it reported is skipped below (no second error).
  [[maybe_unused]] constexpr bool options_ok = (detail::checked_run_time_option<Options>::ok && ...);
  using config = detail::function_config<Specs...>;
  [[maybe_unused]] constexpr bool template_options_ok = config::options_ok;
  using backend_type = typename detail::backend_of<Options...>::type;
  if constexpr (config::has_signature && detail::arg_name_count<Options...> > 0) {
    constexpr std::size_t given = detail::arg_name_count<Options...>;
    constexpr std::size_t expected = std::tuple_size<typename config::signature>::value;
    detail::require_declaration<given == expected, detail::arg_names_message<given, expected>()>();
  }
  [[maybe_unused]] constexpr bool fits = detail::specializations_fit_signature<config>();
  detail::function_settings settings;
  ([&] {
    if constexpr (detail::checked_run_time_option<Options>::ok) detail::apply_option(settings, std::move(options));
  }(), ...);
  return polymorphic_function<Fn, backend_type, config>(std::move(fn), std::move(settings));
}

}  // namespace staticflow
