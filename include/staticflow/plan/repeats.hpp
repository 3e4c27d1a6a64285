// staticflow/plan/repeats.hpp -- a node that a program reads in several places, made one node
// before the plan is made.
//
// A traced graph is a tree of types: `auto s = sf::reduce_sum(x); s * s + s` holds s's type three
// times, and written as a chain (`v = v * v + v`, k levels deep over a reduction) it holds the
// reduction 3^k times. The compiler stores each type once, but a plan that gives every occurrence
// its own slot walks paths, not types: its slot lists had 3^k entries, and the tuples that carried
// them made the compile grow as 3^k (4 levels: more than 4 GB of g++), although the run-time
// common-subexpression rule then computed the reduction once.
//
// So before planning, each materialized node whose type determines its values
// (graph::value_free_v) and that the outputs reach along two paths or more is wrapped in a shared
// node keyed by its type (graph::typed_value_key). The planner computes a shared node once, in
// its prelude, and lowers every occurrence to a read of that one slot (plan/plan.hpp): the
// reduction is one slot by construction. The paths are counted once per graph over its distinct
// node types, up to 2 (plan/path_counts.hpp), never walked, and a subtree without such a node is
// not rebuilt.
//
// Elementwise nodes are fused into their consumers' loops and recomputed there (the cost rule),
// which is right for small trees but not for a chain that reads each level several times: the
// fused loop of `v = v * v + v` written k levels deep evaluates 3^k ops per element, and g++'s
// optimizer grows with it (5 levels: 78 s). So an elementwise node whose type determines its
// values, that the outputs reach along two paths or more, and whose fused tree (the ops one loop
// evaluates for it per element, a materialized or stored node below counting as one) is larger
// than fused_tree_budget is stored as well (graph::stored, keyed by its type): computed once into
// a buffer that each reader reads, as XLA's fusion stops duplicating a producer past a size. The
// budget spares the small trees that recomputation suits (an activation and its derivative in a
// gradient), and a node whose type does not say its values (a run-time literal below it) is never
// stored: two such nodes of one type may hold different values.
#pragma once

#include <algorithm>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/graph/child_refs.hpp"
#include "staticflow/graph/shape_ops.hpp"
#include "staticflow/graph/shared.hpp"
#include "staticflow/graph/traversal.hpp"
#include "staticflow/plan/cost_rule.hpp"
#include "staticflow/plan/path_counts.hpp"

#ifndef STATICFLOW_FUSED_TREE_BUDGET
/// The largest fused tree (ops per element) of an elementwise node read twice or more that the
/// planner leaves to its readers' loops (plan/repeats.hpp); a larger one is stored once.
#define STATICFLOW_FUSED_TREE_BUDGET 32
#endif

namespace staticflow::plan {
inline constexpr std::size_t fused_tree_budget = STATICFLOW_FUSED_TREE_BUDGET;
}  // namespace staticflow::plan

namespace staticflow::plan::detail {

/// The number of paths from node N down to a node of type M, not through shared nodes (a shared
/// node is planned once already), counted up to 2. One class per pair of types: asked only for
/// materialized nodes, which are few (the elementwise nodes below ask plan/path_counts.hpp). As
/// there, every question here is a class read as `::value`: a variable or a lambda per node type
/// would be a mangled name holding the graph's type (the one below holds the whole graph).
template <class M, class N, int Case = std::is_same<M, N>::value ? 1 : graph::detail::is_shared<N>::value ? 2 : 0,
          class Kids = child_list_t<N>>
struct paths_to_type;
template <class M, class N, template <class...> class List, class... K>
struct paths_to_type<M, N, 0, List<K...>>
    : std::integral_constant<std::size_t, std::min((std::size_t{0} + ... + paths_to_type<M, std::remove_cvref_t<K>>::value), std::size_t{2})> {};
template <class M, class N, class Kids>
struct paths_to_type<M, N, 1, Kids> : std::integral_constant<std::size_t, 1> {};
template <class M, class N, class Kids>
struct paths_to_type<M, N, 2, Kids> : std::integral_constant<std::size_t, 0> {};

template <class M, class Outputs>
struct paths_from_outputs : std::integral_constant<std::size_t, 0> {};
template <class M, class... O>
struct paths_from_outputs<M, std::tuple<O...>> : std::integral_constant<std::size_t, (std::size_t{0} + ... + paths_to_type<M, O>::value)> {};

/// Whether the planner marks node N of a graph with outputs Outputs shared: a materialized node
/// with one value whose type determines its values, reached along two paths or more.
template <class Outputs, class N,
          bool Candidate = !graph::detail::is_shared<N>::value && shareable_as_is<N>::value && graph::value_free_v<N>>
struct repeated : std::false_type {};
template <class Outputs, class N>
struct repeated<Outputs, N, true> : std::bool_constant<(paths_from_outputs<N, Outputs>::value >= 2)> {};

// The fused tree sizes and the stored test are asked only in a graph that reads a node with
// children twice close by (local_repeats_in_outputs, plan/path_counts.hpp): asked for every node
// of every graph, they cost a 200-node chain without repeats 20 s more of g++ (105 -> 129 s at
// -O2), and a path table over hundreds of distinct nodes passes clang's constexpr step limit.

/// What reading child Kid costs its parent's loop per element: one read of a buffer if the child is
/// stored (stored_repeat_in below), its whole fused tree otherwise.
template <class Outputs, class Kid>
struct read_cost;

template <class Outputs, class Kids>
struct fused_tree_sum;
template <class Outputs, template <class...> class List, class... Kid>
struct fused_tree_sum<Outputs, List<Kid...>>
    : std::integral_constant<std::size_t, (std::size_t{1} + ... + read_cost<Outputs, std::remove_cvref_t<Kid>>::value)> {};

constexpr std::size_t capped_tree_size(std::size_t sum) { return sum <= fused_tree_budget ? sum : fused_tree_budget + 1; }

/// The ops a fused loop evaluates per element for node N of a graph with outputs Outputs: N and
/// its elementwise subtree, where a materialized, shared or stored node below counts as one (a read
/// of its buffer); 1 for a materialized or shared N. Capped at fused_tree_budget + 1.
template <class Outputs, class N, bool Read = graph::detail::is_shared<N>::value || materializes<N>::value>
struct fused_tree_size : std::integral_constant<std::size_t, 1> {};
template <class Outputs, class N>
struct fused_tree_size<Outputs, N, false>
    : std::integral_constant<std::size_t, capped_tree_size(fused_tree_sum<Outputs, child_list_t<N>>::value)> {};

/// Whether the planner stores elementwise node N of a graph with outputs Outputs: its fused tree is
/// over budget, its type determines its values, and it is reached along two paths or more (each
/// question asked only when the one before holds: the common case instantiates no type walk).
template <class Outputs, class N, bool ValueFree = graph::value_free_v<N>>
struct stored_repeat_of_value_free : std::false_type {};
template <class Outputs, class N>
struct stored_repeat_of_value_free<Outputs, N, true> : std::bool_constant<(counted_paths<N, Outputs>::value >= 2)> {};
template <class Outputs, class N, bool OverBudget = (fused_tree_size<Outputs, N>::value > fused_tree_budget)>
struct stored_repeat : std::false_type {};
template <class Outputs, class N>
struct stored_repeat<Outputs, N, true> : stored_repeat_of_value_free<Outputs, N> {};
template <class Outputs, class N, bool Repeats = local_repeats_in_outputs<Outputs>::value>
struct stored_repeat_in : std::false_type {};  // (nothing read twice: no tree is walked)
template <class Outputs, class N>
struct stored_repeat_in<Outputs, N, true> : stored_repeat<Outputs, N> {};

template <class Outputs, class Kid>
struct read_cost
    : std::integral_constant<std::size_t, stored_repeat_in<Outputs, Kid>::value ? 1 : fused_tree_size<Outputs, Kid>::value> {};

/// Whether subtree N holds a node the planner marks (N included), outside shared nodes.
/// (Case 0: its children decide; 1: N is marked; 2: a shared node.)
template <class Outputs, class N,
          int Case = graph::detail::is_shared<N>::value                                           ? 2
                     : (repeated<Outputs, N>::value || stored_repeat_in<Outputs, N>::value) ? 1
                                                                                              : 0,
          class Kids = child_list_t<N>>
struct holds_repeats;
template <class Outputs, class N, template <class...> class List, class... K>
struct holds_repeats<Outputs, N, 0, List<K...>> : std::bool_constant<(holds_repeats<Outputs, std::remove_cvref_t<K>>::value || ...)> {};
template <class Outputs, class N, class Kids>
struct holds_repeats<Outputs, N, 1, Kids> : std::true_type {};
template <class Outputs, class N, class Kids>
struct holds_repeats<Outputs, N, 2, Kids> : std::false_type {};

/// n with every repeated node below it marked shared, and every stored repeat stored and shared
/// (keyed by its type as rebuilt: the nodes below it may be marked too). One instantiation per
/// node type.
template <class Outputs, class N>
constexpr auto mark_repeats(const N& n) {
  if constexpr (!holds_repeats<Outputs, N>::value) {
    return n;
  } else {
    using kids = decltype(graph::children(n));
    const auto rebuilt = [&]<std::size_t... K>(std::index_sequence<K...>) {
      [[maybe_unused]] const auto c = graph::children(n);
      return graph::with_children(n, mark_repeats<Outputs>(graph::child<K>(c))...);
    }(std::make_index_sequence<std::tuple_size<kids>::value>{});
    using R = std::remove_cvref_t<decltype(rebuilt)>;
    if constexpr (repeated<Outputs, N>::value) {
      return graph::shared_node<decltype(graph::typed_value_key<R>())>(rebuilt);
    } else if constexpr (stored_repeat_in<Outputs, N>::value) {
      using S = graph::stored<R>;
      return graph::shared_node<decltype(graph::typed_value_key<S>())>(S(rebuilt));
    } else {
      return rebuilt;
    }
  }
}

/// The outputs with their repeated nodes marked.
template <class Outputs>
constexpr auto mark_output_repeats(const Outputs& outs) {
  return staticflow::detail::apply([](const auto&... o) { return std::tuple{mark_repeats<Outputs>(o)...}; }, outs);
}
template <class Outputs>
using marked_outputs_t = decltype(mark_output_repeats(std::declval<const Outputs&>()));

}  // namespace staticflow::plan::detail
