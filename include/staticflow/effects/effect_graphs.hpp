// staticflow/effects/effect_graphs.hpp -- what any backend needs to know about the graphs an
// effect evaluates on every call, at the type level: the loop variables they read (which become
// external leaves over the loop's cells), the arguments they read and the signature they are
// planned with. Backend-neutral: cpu::effect_graph and thrust_backend::effect_graph plan and run
// graphs from these.
//
// An effect is recorded while the function is traced, where the signature's type is not known;
// its graph knows the arguments it reads from its own argument leaves. So the effect builds its
// own signature (the specs of those leaves, placeholders elsewhere) and rebuilds typed views from
// the call's type-erased ones.
#pragma once

#include <algorithm>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/control/binding.hpp"
#include "staticflow/control/cond.hpp"
#include "staticflow/control/while_loop.hpp"
#include "staticflow/effects/loop_effects.hpp"
#include "staticflow/graph/child_refs.hpp"
#include "staticflow/graph/external.hpp"

namespace staticflow::detail::effect_graphs {
/// What an effect graph passes for `in_place_ok` when it asks for graph k's buffer while its
/// slots are still being computed (cpu::effect_graph: a graph that is one slot's value, computed
/// straight into the buffer): the target gives memory that nothing the call reads lies in (a
/// variable's next buffer, a staging buffer), or null (then the value goes through a slot).
struct fresh_buffer_t {};
inline constexpr fresh_buffer_t fresh_buffer{};

template <class N> struct is_bound_variable : std::false_type {};
template <class Scope, std::size_t K, class T, class S>
struct is_bound_variable<graph::bound_variable<Scope, K, T, S>> : std::true_type {};
template <class N> struct is_external : std::false_type {};
template <class T, class S, class K> struct is_external<graph::external_leaf<T, S, K>> : std::true_type {};
template <class N> struct is_branch : std::false_type {};
template <class Kind, class Pred, class... B>
struct is_branch<graph::branch_node<Kind, Pred, B...>> : std::true_type {};
template <class N> struct is_while : std::false_type {};
template <class Scope, class Inits, class Cond, class Body>
struct is_while<graph::while_node<Scope, Inits, Cond, Body>> : std::true_type {
  using scope = Scope;
};

// ---- The variables of loops whose bodies hold the effect ----
// An effect recorded in a loop body (effects/loop_effects.hpp) may read the loop's variables:
// each becomes an external leaf over the loop's cell for that variable, which the loop's kernel
// points at the current values before it runs the body's effects. Loops inside the effect's graph
// keep their own variables (Bound lists their scopes).
template <class Scope, class... Bound>
constexpr bool bound_inside(std::type_identity<std::tuple<Bound...>>) {
  return (std::is_same<Scope, Bound>::value || ...);
}
template <class Bound, class N>
constexpr bool reads_free_variables();
template <class Bound, class N>
inline constexpr bool reads_free_variables_v = reads_free_variables<Bound, N>();
template <class Bound, class... N>
constexpr bool any_reads_free_variables(std::type_identity<std::tuple<N...>>) {
  return (reads_free_variables_v<Bound, std::remove_cvref_t<N>> || ...);
}
template <class Bound, class... N>
constexpr bool any_reads_free_variables(std::type_identity<graph::child_refs<N...>>) {
  return (reads_free_variables_v<Bound, std::remove_cvref_t<N>> || ...);
}
template <class Bound, class Scope>
using with_scope = decltype(std::tuple_cat(std::declval<Bound>(), std::declval<std::tuple<Scope>>()));

/// Whether graph N reads a loop variable that no loop inside N (nor in Bound) binds.
template <class Bound, class N>
constexpr bool reads_free_variables() {
  if constexpr (is_bound_variable<N>::value) {
    return !bound_inside<typename N::scope_type>(std::type_identity<Bound>{});
  } else if constexpr (is_while<N>::value) {
    using inner = with_scope<Bound, typename is_while<N>::scope>;
    return any_reads_free_variables<Bound>(std::type_identity<decltype(N::inits)>{}) ||
           reads_free_variables_v<inner, decltype(N::cond)> ||
           any_reads_free_variables<inner>(std::type_identity<decltype(N::body)>{});
  } else if constexpr (is_branch<N>::value) {
    return reads_free_variables_v<Bound, decltype(N::pred)> ||
           []<class... B>(std::type_identity<std::tuple<B...>>) {
             return (any_reads_free_variables<Bound>(std::type_identity<B>{}) || ...);
           }(std::type_identity<decltype(N::branches)>{});
  } else {
    return any_reads_free_variables<Bound>(std::type_identity<decltype(graph::children(std::declval<const N&>()))>{});
  }
}

template <class Bound, class N>
auto externalize_variables(const N& n);
template <class Bound, class... N>
auto externalize_all(const std::tuple<N...>& graphs) {
  return staticflow::detail::apply([](const auto&... g) { return std::tuple{externalize_variables<Bound>(g)...}; }, graphs);
}

/// Graph n with every loop variable it reads freely as an external leaf over its loop's cell (a
/// trace_error when that loop's body is not being traced).
template <class Bound, class N>
auto externalize_variables(const N& n) {
  if constexpr (!reads_free_variables_v<Bound, N>) {
    return n;
  } else if constexpr (is_bound_variable<N>::value) {
    return graph::external<typename N::value_type, typename N::shape_type>(
        staticflow::detail::loop_variable_source<typename N::scope_type>(N::index));
  } else if constexpr (is_while<N>::value) {
    using Scope = typename is_while<N>::scope;
    using inner = with_scope<Bound, Scope>;
    auto i = externalize_all<Bound>(n.inits);
    auto c = externalize_variables<inner>(n.cond);
    auto b = externalize_all<inner>(n.body);
    return graph::while_node<Scope, decltype(i), decltype(c), decltype(b)>{{}, i, c, b, n.max_iterations, n.effects};
  } else if constexpr (is_branch<N>::value) {
    auto p = externalize_variables<Bound>(n.pred);
    return staticflow::detail::apply([&](const auto&... b) {
      return graph::branch_node<typename N::kind, decltype(p), decltype(externalize_all<Bound>(b))...>{
          {}, p, {externalize_all<Bound>(b)...}};
    }, n.branches);
  } else {
    return graph::apply_children(
        [&](const auto&... kid) { return graph::with_children(n, externalize_variables<Bound>(kid)...); }, graph::children(n));
  }
}
template <class N>
using externalized_t = decltype(externalize_variables<std::tuple<>>(std::declval<const N&>()));

/// 1 + the largest argument index in graph N (0 when it reads no argument), and whether every
/// node of N can be evaluated with no loop around it (no loop variable: eager.hpp's
/// evaluable_now). Both are variables, so that each node type is looked
/// at once however many paths lead to it (a shared node, eager.hpp's holds_eager_value).
template <class N>
constexpr std::size_t argument_bound_of_node();
template <class N>
inline constexpr std::size_t argument_bound_v = argument_bound_of_node<N>();
template <class N>
constexpr std::size_t argument_bound() {
  return argument_bound_v<N>;
}
template <class... N>
constexpr std::size_t argument_bound_of(std::type_identity<std::tuple<N...>>) {
  return std::max({std::size_t{0}, argument_bound_v<std::remove_cvref_t<N>>...});
}
template <class N>
constexpr std::size_t argument_bound_of_node() {
  if constexpr (graph::detail::is_argument<N>::value) {
    return N::index + 1;
  } else if constexpr (is_while<N>::value) {
    // a loop's condition and body read the arguments they capture (a differentiated loop's do)
    return std::max({argument_bound_of(std::type_identity<decltype(N::inits)>{}), argument_bound_v<decltype(N::cond)>,
                     argument_bound_of(std::type_identity<decltype(N::body)>{})});
  } else if constexpr (is_branch<N>::value) {  // so do a cond's branches
    return []<class... B>(std::type_identity<std::tuple<B...>>) {
      return std::max({argument_bound_v<decltype(N::pred)>, argument_bound_of(std::type_identity<B>{})...});
    }(std::type_identity<decltype(N::branches)>{});
  } else {
    using kids = decltype(graph::children(std::declval<const N&>()));
    return []<std::size_t... K>(std::index_sequence<K...>) {
      return std::max({std::size_t{0}, argument_bound_v<std::remove_cvref_t<std::tuple_element_t<K, kids>>>...});
    }(std::make_index_sequence<std::tuple_size<kids>::value>{});
  }
}
template <class N>
constexpr bool effect_supported_by_node();
template <class N>
inline constexpr bool effect_supported_v = effect_supported_by_node<N>();
template <class N>
constexpr bool effect_supported() {
  return effect_supported_v<N>;
}
template <class N>
constexpr bool effect_supported_by_node() {
  if constexpr (is_bound_variable<N>::value) {
    return false;
  } else if constexpr (is_branch<N>::value) {
    return []<class... B>(std::type_identity<std::tuple<B...>>) {
      return effect_supported_v<decltype(N::pred)> &&
             ([]<class... O>(std::type_identity<std::tuple<O...>>) { return (effect_supported_v<O> && ...); }(
                  std::type_identity<B>{}) &&
              ...);
    }(std::type_identity<decltype(N::branches)>{});
  } else if constexpr (is_while<N>::value) {
    // (its condition and body read its own variables; those of an enclosing loop whose body is
    // being traced are external leaves by the time an effect plans them: externalize_variables)
    return []<class... I>(std::type_identity<std::tuple<I...>>) {
      return (effect_supported_v<I> && ...);
    }(std::type_identity<decltype(N::inits)>{});
  } else {
    using kids = decltype(graph::children(std::declval<const N&>()));
    return []<std::size_t... K>(std::index_sequence<K...>) {
      return (effect_supported_v<std::remove_cvref_t<std::tuple_element_t<K, kids>>> && ...);
    }(std::make_index_sequence<std::tuple_size<kids>::value>{});
  }
}

template <class... T>
struct first_non_void {
  using type = void;
};
template <class H, class... T>
struct first_non_void<H, T...> {
  using type = std::conditional_t<std::is_void<H>::value, typename first_non_void<T...>::type, H>;
};

/// The spec of argument I in graph N (void when N does not read it).
template <std::size_t I, class N, class = void>
struct argument_entry;
template <std::size_t I, class N, class Kids>
struct argument_entry_in;
template <std::size_t I, class N, class... K>
struct argument_entry_in<I, N, std::tuple<K...>> {
  using type = typename first_non_void<typename argument_entry<I, std::remove_cvref_t<K>>::type...>::type;
};
template <std::size_t I, class N, class... K>
struct argument_entry_in<I, N, graph::child_refs<K...>> : argument_entry_in<I, N, std::tuple<K...>> {};
template <std::size_t I, class N, class>
struct argument_entry {
  using type = typename argument_entry_in<I, N, decltype(graph::children(std::declval<const N&>()))>::type;
};
template <std::size_t I, class Scope, class Inits, class Cond, class Body>
struct argument_entry<I, graph::while_node<Scope, Inits, Cond, Body>> {
  using type = typename first_non_void<typename argument_entry_in<I, Inits, Inits>::type, typename argument_entry<I, Cond>::type,
                                       typename argument_entry_in<I, Body, Body>::type>::type;
};
template <std::size_t I, class Kind, class Pred, class... B>
struct argument_entry<I, graph::branch_node<Kind, Pred, B...>> {
  using type = typename first_non_void<typename argument_entry<I, Pred>::type, typename argument_entry_in<I, B, B>::type...>::type;
};
template <std::size_t I, std::size_t J, class T, class S>
struct argument_entry<I, graph::argument<J, T, S>> {
  using type = std::conditional_t<I == J, spec_of_t<T, S>, void>;
};

/// The spec of argument I in any of the graphs Gs (void when none reads it).
template <std::size_t I, class Gs>
struct argument_entry_of_all;
template <std::size_t I, class... G>
struct argument_entry_of_all<I, std::tuple<G...>> {
  using type = typename first_non_void<typename argument_entry<I, G>::type...>::type;
};

/// The signature the graphs Gs (a std::tuple) of an effect are evaluated with: the spec of each
/// argument they read, a placeholder (a static value, which has no data) for the others.
template <class Gs, std::size_t... I>
auto effect_signature(std::index_sequence<I...>)
    -> std::tuple<std::conditional_t<std::is_void<typename argument_entry_of_all<I, Gs>::type>::value, std::integral_constant<int, 0>,
                                     typename argument_entry_of_all<I, Gs>::type>...>;

}  // namespace staticflow::detail::effect_graphs
