// staticflow/plan/compact_signature.hpp -- a slot's kernel over the values it reads, not over all
// the values its plan can see.
//
// A plan lowers each materialized node to a graph whose arguments are the function's arguments
// followed by every slot before it (plan/plan.hpp), and a kernel is a template over that whole
// signature: its cursors, its loop choice and its alias test walk every position. A plan with k
// slots therefore compiled k kernels of size O(k), quadratic in the slots, and two slots that
// compute the same thing from different positions (a value a graph reuses in several places, each
// copy its own slot) were two kernels. A graph that reused a materialized value four ways three
// levels deep took 3.2 GB of g++'s front end.
//
// Before a kernel is instantiated, its graph's arguments are renumbered 0..m-1 in the order of the
// indices it reads, and it gets the matching m entries of the signature and views. The kernel then
// depends only on what it computes: its cost no longer grows with the plan, and equal slots share
// one instantiation. A graph that holds graphs of its own (cond branches, loop bodies: they are
// planned over the whole signature), one result of a node with several, a shared node or a
// loop's bound variable is left as it is.
#pragma once

#include <array>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/control/binding.hpp"
#include "staticflow/graph/leaf.hpp"
#include "staticflow/graph/traversal.hpp"

namespace staticflow::plan {
namespace detail {
template <class N> struct is_bound_variable_leaf : std::false_type {};
template <class Scope, std::size_t K, class T, class S>
struct is_bound_variable_leaf<graph::bound_variable<Scope, K, T, S>> : std::true_type {};

/// A node that may read a value other than through its children: a variable's read, a shared node,
/// a node holding graphs of its own (a cond's branches, a loop's body), a custom gradient, one
/// result of a node with several.
template <class N>
concept reads_beside_children = is_bound_variable_leaf<N>::value || graph::detail::is_shared<N>::value ||
                                requires(const N& n) { n.subgraphs(); } || requires(const N& n) { n.body; } ||
                                requires(const N& n) { n.y; } || requires { N::projected_output; };

/// Whether every argument of graph N is one of its nodes' children (nothing reads a value
/// elsewhere), so that renumbering them renumbers every read. (A class per node type, recursing
/// class to class; see graph/traversal.hpp.)
template <class N, int Case = graph::detail::is_argument<N>::value ? 1 : reads_beside_children<N> ? 2 : 0,
          class Kids = graph::detail::child_list_t<N>>
struct renumberable;
template <class N, template <class...> class List, class... K>
struct renumberable<N, 0, List<K...>> : std::bool_constant<(renumberable<std::remove_cvref_t<K>>::value && ...)> {};
template <class N, class Kids>
struct renumberable<N, 1, Kids> : std::true_type {};
template <class N, class Kids>
struct renumberable<N, 2, Kids> : std::false_type {};

/// The argument indices a graph reads (Read: its graph::detail::arguments_read), in increasing
/// order: one per distinct read set, not per graph type.
template <auto Read>
constexpr auto read_indices() {
  constexpr std::size_t count = [] {
    std::size_t c = 0;
    for (bool r : Read) c += r ? 1 : 0;
    return c;
  }();
  std::array<std::size_t, count> indices{};
  std::size_t next = 0;
  for (std::size_t i = 0; i < Read.size(); ++i)
    if (Read[i]) indices[next++] = i;
  return indices;
}
template <auto Indices, class = std::make_index_sequence<Indices.size()>>
struct index_list;
template <auto Indices, std::size_t... J>
struct index_list<Indices, std::index_sequence<J...>> {
  using type = std::index_sequence<Indices[J]...>;
};
template <class N>
using read_sequence = index_list<read_indices<graph::detail::arguments_read<N>::value>()>;

template <std::size_t I, std::size_t... U>
constexpr std::size_t position_of(std::index_sequence<U...>) {
  std::size_t position = 0, at = 0;
  ((U == I ? (position = at, ++at) : ++at), ...);
  return position;
}
}  // namespace detail

/// Whether a kernel of graph N may run over its compact signature.
template <class N>
inline constexpr bool compactable_v = detail::renumberable<N>::value;

/// The indices of the arguments graph N reads, as a std::index_sequence in increasing order.
template <class N>
using read_arguments_t = typename detail::read_sequence<N>::type;

namespace detail {
template <class Used, class N, std::size_t... K>
constexpr auto renumber_children(const N& n, std::index_sequence<K...>);
}
/// Graph n with argument U_j renamed argument j (Used: read_arguments_t of n).
template <class Used, class N>
constexpr auto renumber_arguments(const N& n) {
  if constexpr (graph::detail::is_argument<N>::value) {
    return graph::argument<detail::position_of<N::index>(Used{}), typename N::value_type, typename N::shape_type>{};
  } else if constexpr (std::tuple_size<graph::detail::child_list_t<N>>::value == 0) {
    return n;
  } else {
    return detail::renumber_children<Used>(n, graph::detail::child_indices<N>{});
  }
}
template <class Used, class N, std::size_t... K>
constexpr auto detail::renumber_children(const N& n, std::index_sequence<K...>) {
  [[maybe_unused]] const auto c = graph::children(n);
  return graph::with_children(n, renumber_arguments<Used>(graph::child<K>(c))...);
}

/// The entries U... of a signature (a tuple of specs) or of a tuple of views.
template <class Tuple, class Used>
struct select_entries;
template <class Tuple, std::size_t... U>
struct select_entries<Tuple, std::index_sequence<U...>> {
  using type = std::tuple<std::tuple_element_t<U, Tuple>...>;
};
template <class Used, class Tuple>
constexpr auto select_views(const Tuple& all) {
  return [&]<std::size_t... U>(std::index_sequence<U...>) {
    return std::tuple<std::tuple_element_t<U, Tuple>...>{staticflow::detail::get<U>(all)...};
  }(Used{});
}

/// f(signature, graph, views) over the compact signature of graph n where it has one, else over
/// the whole signature Sig and views `all` as they are. `signature` is a std::type_identity.
template <class Sig, class N, class All, class F>
constexpr decltype(auto) with_compact_signature(const N& n, const All& all, F&& f) {
  if constexpr (compactable_v<N>) {
    using used = read_arguments_t<N>;
    return f(std::type_identity<typename select_entries<Sig, used>::type>{}, renumber_arguments<used>(n),
             select_views<used>(all));
  } else {
    return f(std::type_identity<Sig>{}, n, all);
  }
}

}  // namespace staticflow::plan
