// staticflow/control/cond.hpp -- sf::cond and sf::switch_case: data-dependent branches.
//
// Both (all) branches are traced, as tf.cond traces both; their results must agree in number,
// dtype and shape, which the compiler checks. At run time the predicate is computed first and
// only the branch it selects runs: each branch is a graph of its own, planned separately
// (`with_plans`), whose materialized nodes are computed only when it is taken. A `bool` or
// `std::bool_constant` predicate is a trace-time `if`: only that branch is traced.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/control/binding.hpp"
#include "staticflow/control/structure.hpp"
#include "staticflow/effects/recorder.hpp"
#include "staticflow/graph/child_refs.hpp"
#include "staticflow/plan/plan.hpp"

namespace staticflow {
namespace graph {

/// cond: predicate true runs branch 0, false branch 1.
struct cond_kind {
  static constexpr const char* name = "cond";
  template <class P>
  static constexpr std::size_t branch(P p, std::size_t) { return p ? 0 : 1; }
};
/// switch_case: an index in [0, n) runs that branch; any other index runs the last (as
/// tf.switch_case does).
struct switch_kind {
  static constexpr const char* name = "switch_case";
  template <class P>
  static constexpr std::size_t branch(P p, std::size_t n) {
    return p >= 0 && static_cast<std::uint64_t>(p) < n ? static_cast<std::size_t>(p) : n - 1;
  }
};

namespace detail {
template <class... N>
constexpr bool graphs_equal(const std::tuple<N...>& a, const std::tuple<N...>& b) {
  return [&]<std::size_t... K>(std::index_sequence<K...>) {
    return (plan::detail::structurally_equal(staticflow::detail::get<K>(a), staticflow::detail::get<K>(b)) && ...);
  }(std::index_sequence_for<N...>{});
}
template <class... N>
constexpr bool graphs_equal(const staticflow::detail::value_pack<N...>& a, const staticflow::detail::value_pack<N...>& b) {
  return [&]<std::size_t... K>(std::index_sequence<K...>) {
    return (plan::detail::structurally_equal(staticflow::detail::pack_get<K>(a), staticflow::detail::pack_get<K>(b)) && ...);
  }(std::index_sequence_for<N...>{});
}
template <class P>
constexpr bool plans_equal(const P& a, const P& b) {
  return graphs_equal(a.outputs, b.outputs) && graphs_equal(a.slots, b.slots);
}
}  // namespace detail

/// A branch node as its slot holds it: each branch planned over the ArgCount values visible where
/// the node runs.
template <class Kind, std::size_t ArgCount, class Pred, class... Plans>
struct branch_plan : node<branch_plan<Kind, ArgCount, Pred, Plans...>> {
  static constexpr bool materialized = true;
  static constexpr bool self_allocating = true;
  static constexpr std::size_t visible_values = ArgCount;
  using output_specs = staticflow::detail::specs_of_nodes_t<typename std::tuple_element_t<0, std::tuple<Plans...>>::outputs_type>;
  using kind = Kind;
  using value_type = bool;          // not a tensor: its results are read through output_of
  using shape_type = shape<dyn>;

  Pred pred;
  std::tuple<Plans...> plans;

  constexpr child_refs<const Pred&> children() const { return {pred}; }
  template <class P>
  constexpr auto with_children(const P& p) const { return branch_plan<Kind, ArgCount, P, Plans...>{{}, p, plans}; }
  constexpr bool same_parameters(const branch_plan& o) const {
    return [&]<std::size_t... K>(std::index_sequence<K...>) {
      return (detail::plans_equal(staticflow::detail::get<K>(plans), staticflow::detail::get<K>(o.plans)) && ...);
    }(std::index_sequence_for<Plans...>{});
  }
  std::string name() const { return Kind::name; }
};

/// cond / switch_case as traced: the selector and every branch's results (a tuple of nodes each).
template <class Kind, class Pred, class... Branches>
struct branch_node : node<branch_node<Kind, Pred, Branches...>> {
  static constexpr bool materialized = true;
  static constexpr bool self_allocating = true;
  using output_specs = staticflow::detail::specs_of_nodes_t<std::tuple_element_t<0, std::tuple<Branches...>>>;
  using kind = Kind;
  using value_type = bool;
  using shape_type = shape<dyn>;

  Pred pred;
  std::tuple<Branches...> branches;

  constexpr child_refs<const Pred&> children() const { return {pred}; }
  template <class P>
  constexpr auto with_children(const P& p) const { return branch_node<Kind, P, Branches...>{{}, p, branches}; }
  constexpr bool same_parameters(const branch_node& o) const {
    return [&]<std::size_t... K>(std::index_sequence<K...>) {
      return (detail::graphs_equal(staticflow::detail::get<K>(branches), staticflow::detail::get<K>(o.branches)) && ...);
    }(std::index_sequence_for<Branches...>{});
  }
  std::string name() const { return Kind::name; }
  /// The branches' own graphs.
  const std::tuple<Branches...>& subgraphs() const { return branches; }
  /// The branches, for listings: `v(label, scope, parameter specs, outputs)` (no parameters).
  template <class V>
  void for_each_subgraph(V& v) const {
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      (v(branch_label<K>(), std::type_identity<void>{}, std::type_identity<std::tuple<>>{}, staticflow::detail::get<K>(branches)), ...);
    }(std::index_sequence_for<Branches...>{});
  }
  /// cond's branches are TF's true_fn and false_fn; switch_case's its branch_fns, by index.
  template <std::size_t K>
  static std::string branch_label() {
    if constexpr (std::is_same<Kind, cond_kind>::value) return K == 0 ? "true_fn" : "false_fn";
    else return "branch" + std::to_string(K);
  }

  template <class Scope, std::size_t Base>
  constexpr auto bind_variables() const {
    auto p = graph::bind_variables<Scope, Base>(pred);
    return staticflow::detail::apply([&](const auto&... b) {
      return branch_node<Kind, decltype(p), decltype(graph::bind_variables<Scope, Base>(b))...>{
          {}, p, {graph::bind_variables<Scope, Base>(b)...}};
    }, branches);
  }

  template <std::size_t ArgCount>
  constexpr auto with_plans() const {
    return staticflow::detail::apply([&](const auto&... b) {
      return branch_plan<Kind, ArgCount, Pred, plan::evaluation_plan<ArgCount, std::remove_cvref_t<decltype(b)>>...>{
          {}, pred, {plan::evaluation_plan<ArgCount, std::remove_cvref_t<decltype(b)>>(b)...}};
    }, branches);
  }
  /// The same, where a branch holds a value of the enclosing plan's prelude computed before this
  /// node runs: every branch reads such values (Reader::read, plan.hpp's prelude_reader) from the
  /// Reader::visible values, not computing them again.
  template <std::size_t ArgCount, class Reader>
  constexpr auto with_plans(Reader) const {
    constexpr bool reads = (!std::is_same<decltype(Reader::read(std::declval<const Branches&>())), Branches>::value || ...);
    if constexpr (!reads) {
      return with_plans<ArgCount>();
    } else {
      constexpr std::size_t visible = Reader::visible;
      return staticflow::detail::apply([&](const auto&... b) {
        return branch_plan<Kind, visible, Pred, plan::evaluation_plan<visible, decltype(Reader::read(b))>...>{
            {}, pred, {plan::evaluation_plan<visible, decltype(Reader::read(b))>(Reader::read(b))...}};
      }, branches);
    }
  }
};

}  // namespace graph

namespace detail {
/// The message when output K differs between two branches. (A named function, not a lambda in the
/// pack expansion: clang rejects a lambda's own local there as an implicit capture.)
template <class Name, class First, class Other, std::size_t Branch, std::size_t K>
constexpr message_string branch_output_message() {
  message_string s;
  s += "staticflow: ";
  s += Name::what;
  s += ": output ";
  s += K;
  s += " is ";
  append_spec(s, std::tuple_element_t<K, First>{});
  s += " in ";
  s += Name::first;
  s += " and ";
  append_spec(s, std::tuple_element_t<K, Other>{});
  s += " in ";
  s += Name::other;
  if constexpr (Name::numbered) s += Branch;
  return s;
}

template <class Name, class First, class Other, std::size_t Branch>
constexpr void check_branch_results() {
  constexpr std::size_t n = std::tuple_size<First>::value;
  constexpr std::size_t m = std::tuple_size<Other>::value;
  control_flow_check<n == m, [] {
    message_string s;
    s += "staticflow: ";
    s += Name::what;
    s += ": ";
    s += Name::first;
    s += " returns ";
    s += n;
    s += " values and ";
    s += Name::other;
    if constexpr (Name::numbered) s += Branch;
    s += " returns ";
    s += m;
    return s;
  }()>();
  if constexpr (n == m) {
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      (control_flow_check<std::is_same<std::tuple_element_t<K, First>, std::tuple_element_t<K, Other>>::value,
                          branch_output_message<Name, First, Other, Branch, K>()>(),
       ...);
    }(std::make_index_sequence<n>{});
  }
}

struct cond_names {
  static constexpr std::string_view what = "sf::cond", first = "the true branch", other = "the false branch";
  static constexpr bool numbered = false;
};
struct switch_names {
  static constexpr std::string_view what = "sf::switch_case", first = "branch 0", other = "branch ";
  static constexpr bool numbered = true;
};

// The spec a C++ number returned at position K takes: that of the first branch whose result
// there is a tensor (a weakly typed literal), else its own canonical dtype.
template <std::size_t K, class Raw>
struct reference_spec;
template <std::size_t K, class... R>
struct reference_spec<K, std::tuple<R...>> {
  template <class First, class... Rest>
  static constexpr auto pick() {
    using V = std::remove_cvref_t<std::tuple_element_t<K, First>>;
    if constexpr (symbolic<V>) return spec_of_node_t<V>{};
    else if constexpr (sizeof...(Rest) == 0) return spec_of_node_t<decltype(to_node(std::declval<V>()))>{};
    else return pick<Rest...>();
  }
  using type = decltype(pick<R...>());
};

template <class Raw, class One>
constexpr auto branch_nodes_one(const One& r) {
  constexpr std::size_t n = std::tuple_size<One>::value;
  constexpr bool same_count = [] {
    return []<class... R>(std::type_identity<std::tuple<R...>>) { return ((std::tuple_size<R>::value == n) && ...); }(
        std::type_identity<Raw>{});
  }();
  if constexpr (same_count) {  // else the count check reports it
    return [&]<std::size_t... K>(std::index_sequence<K...>) {
      return std::tuple{to_node_as<typename reference_spec<K, Raw>::type>(staticflow::detail::get<K>(r))...};
    }(std::make_index_sequence<n>{});
  } else {
    return to_nodes(r);
  }
}

template <class... R>
constexpr auto branch_nodes(const std::tuple<R...>& raw) {
  return staticflow::detail::apply([](const auto&... r) { return std::tuple{branch_nodes_one<std::tuple<R...>>(r)...}; }, raw);
}

/// Makes the effects the branches recorded (variable assignments, sf::print) one effect that runs
/// the picked branch's on every call, and hands the reads the branches left pending to the
/// enclosing body (effects/cond_statement.hpp, included by staticflow.hpp).
template <class Kind, class Pred, std::size_t N>
void record_branch_effects(const Pred& pred, std::array<recorder, N>& branches);

template <class Fn>
auto trace_branch(recorder& r, Fn& fn) {
  body_scope scope(r);
  return as_tuple(fn());
}

/// Traces every branch, in order. While a function is traced, each branch's effects are recorded
/// apart, so that a call runs only those of the branch its selector picks.
template <class Kind, class P, class... Fn>
auto trace_branches_recorded(const P& p, Fn&... fn) {
  if (!tracing()) return std::tuple{as_tuple(fn())...};
  std::array<recorder, sizeof...(Fn)> recorded;
  auto raw = [&]<std::size_t... B>(std::index_sequence<B...>) {
    auto fns = std::forward_as_tuple(fn...);
    return std::tuple{trace_branch(recorded[B], staticflow::detail::get<B>(fns))...};  // a braced list: left to right
  }(std::index_sequence_for<Fn...>{});
  record_branch_effects<Kind>(p, recorded);
  return raw;
}

template <class Kind, class P, class... Fn>
constexpr auto trace_branches(const P& p, Fn&... fn) {
  if (std::is_constant_evaluated()) return std::tuple{as_tuple(fn())...};  // a compile-time trace: no effect
  return trace_branches_recorded<Kind>(p, fn...);
}

template <class Kind, class Names, class P, class... Fn>
constexpr auto make_branches(const P& p, Fn&&... fn) {
  auto results = branch_nodes(trace_branches<Kind>(p, fn...));
  using first = specs_of_nodes_t<std::tuple_element_t<0, decltype(results)>>;
  [&]<std::size_t... B>(std::index_sequence<B...>) {
    (check_branch_results<Names, first, specs_of_nodes_t<std::tuple_element_t<B, decltype(results)>>, B>(), ...);
  }(std::index_sequence_for<Fn...>{});
  return staticflow::detail::apply([&](auto&... r) {
    graph::branch_node<Kind, P, std::remove_cvref_t<decltype(r)>...> n{{}, p, {r...}};
    return unwrap_single(graph::outputs_of(n));
  }, results);
}
}  // namespace detail

namespace detail {
/// The message for a predicate that is not a scalar bool tensor (a named function: clang crashes
/// on a lambda in this template argument).
template <class S>
constexpr message_string cond_predicate_message() {
  message_string s;
  s += "staticflow: sf::cond: the predicate must be a scalar bool tensor, not ";
  append_spec(s, S{});
  s += " (reduce it with sf::reduce_any / sf::reduce_all, or compare it)";
  return s;
}

/// sf::cond whose branches return nothing: an effect that runs the effects of one branch
/// (effects/cond_statement.hpp, included by staticflow.hpp).
template <class Pred, class TrueFn, class FalseFn>
void cond_statement(const Pred& pred, TrueFn& true_fn, FalseFn& false_fn);
/// In an eager call (sf::run_functions_eagerly) a predicate made of eager values is evaluated
/// at once and only its branch runs (effects/eager.hpp, included by staticflow.hpp).
template <class Pred, class TrueFn, class FalseFn>
constexpr bool eager_cond_possible();
template <class Pred, class TrueFn, class FalseFn>
constexpr auto eager_cond(const Pred& pred, TrueFn& true_fn, FalseFn& false_fn);
}  // namespace detail

/// Runs true_fn() if pred, else false_fn(), and returns what it returns (a tensor or a tuple).
/// Branches that return nothing run for their effects (variable assignments, sf::print): the
/// statement form of tf.cond that AutoGraph makes of an `if` without a result.
/// pred is a scalar bool tensor: both branches are traced and must return the same specs; only
/// the taken branch runs. A `bool` or `std::bool_constant` pred is a trace-time `if` that traces
/// only the branch it picks.
namespace detail {
// Keyed on the branches' specs (not their node types, which differ between the traced and the
// eager call) so branches of different types are reported once.
template <class TrueKey, class FalseKey, bool Same>
struct bool_cond_check {
  static_assert(Same,
                "staticflow: sf::cond with a C++ bool runs one branch at trace time, so both branches "
                "must return the same C++ type; use std::bool_constant (sf::static_value<true>) to "
                "trace only the branch it picks");
  static constexpr bool ok = true;
};
}  // namespace detail

template <class Pred, class TrueFn, class FalseFn>
constexpr auto cond(const Pred& pred, TrueFn&& true_fn, FalseFn&& false_fn) {
  if constexpr (std::is_same<Pred, std::true_type>::value) {
    return true_fn();
  } else if constexpr (std::is_same<Pred, std::false_type>::value) {
    return false_fn();
  } else if constexpr (std::is_same<Pred, bool>::value) {
    using T = decltype(true_fn());
    using F = decltype(false_fn());
    constexpr bool same = std::is_same<T, F>::value;
    static_assert(detail::bool_cond_check<typename detail::check_key<T, T>::type,
                                          typename detail::check_key<F, F>::type, same>::ok);
    if constexpr (!same) {
      return true_fn();  // reported; one branch's type carries on so nothing else fails after it
    } else {
      if (pred) return true_fn();
      return false_fn();
    }
  } else if constexpr (!symbolic<Pred>) {
    static_assert(symbolic<Pred>,
                  "staticflow: sf::cond: the predicate must be a scalar bool tensor, a bool or a "
                  "std::bool_constant");
  } else {
    using S = spec_of_node_t<Pred>;
    constexpr bool scalar_bool = std::is_same<typename S::value_type, bool>::value && S::shape_type::rank == 0;
    detail::control_flow_check<scalar_bool, detail::cond_predicate_message<S>()>();
    if constexpr (!scalar_bool)  // (reported; going on with a scalar bool adds no error of its own)
      return cond(reduce_any(cast<bool>(pred)), std::forward<TrueFn>(true_fn), std::forward<FalseFn>(false_fn));
    else if constexpr (std::is_void<decltype(true_fn())>::value && std::is_void<decltype(false_fn())>::value)
      detail::cond_statement(pred, true_fn, false_fn);  // branches run for their effects
    else if constexpr (detail::eager_cond_possible<Pred, TrueFn, FalseFn>())
      return detail::eager_cond(pred, true_fn, false_fn);
    else
      return detail::make_branches<graph::cond_kind, detail::cond_names>(pred, std::forward<TrueFn>(true_fn),
                                                                         std::forward<FalseFn>(false_fn));
  }
}

/// Runs fns[index]() (the last one when index is out of range, as tf.switch_case does) and returns
/// what it returns. index is a scalar integer tensor (every branch traced, all must return the same
/// specs) or a C++ integer (only that branch is traced when given as std::integral_constant).
template <class Index, class... Fn>
constexpr auto switch_case(const Index& index, Fn&&... fns) {
  static_assert(sizeof...(Fn) > 0, "staticflow: sf::switch_case needs at least one branch");
  if constexpr (static_value_type<Index>) {
    constexpr auto i = Index::value;
    constexpr std::size_t pick = graph::switch_kind::branch(i, sizeof...(Fn));
    return std::get<pick>(std::forward_as_tuple(fns...))();
  } else if constexpr (!symbolic<Index>) {
    static_assert(symbolic<Index>,
                  "staticflow: sf::switch_case: the index must be a scalar integer tensor or a "
                  "std::integral_constant (sf::static_value<2>)");
  } else {
    using S = spec_of_node_t<Index>;
    using T = typename S::value_type;
    detail::control_flow_check<std::is_integral<T>::value && !std::is_same<T, bool>::value && S::shape_type::rank == 0, [] {
      detail::message_string s;
      s += "staticflow: sf::switch_case: the index must be a scalar integer tensor, not ";
      detail::append_spec(s, S{});
      return s;
    }()>();
    return detail::make_branches<graph::switch_kind, detail::switch_names>(index, std::forward<Fn>(fns)...);
  }
}

}  // namespace staticflow
