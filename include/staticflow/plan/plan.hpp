// staticflow/plan/plan.hpp -- from a traced graph to an evaluation plan.
//
// The cost rule: a node that is not elementwise (a reduction, a matmul, a shape op, later cond and
// loops) is *materialized*: computed once per call, in dependency order, into a buffer of its own
// (a "slot"), however many times the graph uses it. Every elementwise node is fused into the loop
// of its consumer and recomputed there. `plan::materializes<Node>::value` states the rule; tests assert
// it.
//
// Lowering replaces every materialized occurrence by an argument node that reads its slot, so
// the fused CPU loop needs nothing new: the value of slot K is argument `ArgCount + view_base<K>`
// (a node with several results, such as a while_loop over several variables, fills several
// consecutive views, read through `graph::output_of<J, Node>`). Slots are numbered in
// post-order (children first), which is a valid evaluation order. A node that holds graphs of
// its own (cond branches, loop bodies) has them planned in turn, over the values visible where
// it runs (`with_plans<ArgCount>()`); only the branch taken, or the body while it loops, runs. Structurally equal slots (same
// type, same literal values and parameters) are detected once, when the plan is made, and
// computed once (common-subexpression elimination).
#pragma once

#include <array>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticflow/core/errors.hpp"
#include "staticflow/core/value_pack.hpp"
#include "staticflow/graph/child_refs.hpp"
#include "staticflow/graph/custom_gradient.hpp"
#include "staticflow/graph/traversal.hpp"
#include "staticflow/plan/cost_rule.hpp"
#include "staticflow/plan/repeats.hpp"
#include "staticflow/plan/epilogues.hpp"
#include "staticflow/plan/transposed_operands.hpp"

namespace staticflow::plan {

/// Whether N is a shared node the planner computes once, in the plan's prelude (its child is
/// materialized); a shared node over anything else is its child.
/// (This and the counts below are classes read as `::value`, recursing class to class: as
/// constexpr functions they were a mangled function per node type, and their index_sequence
/// lambdas two more; see graph/traversal.hpp.)
template <class N, bool Shared = graph::detail::is_shared<N>::value>
struct prelude_node : std::false_type {};
template <class N>
struct prelude_node<N, true> : std::bool_constant<materializes<typename N::held_type>::value> {};

/// How many values the materialized nodes of subtree N produce, N included: the number of views
/// (argument slots) the subtree's slots occupy. (A prelude node's slot is in the prelude, counted
/// there.)
template <class N, bool Prelude = prelude_node<N>::value, class Kids = graph::detail::child_list_t<N>>
struct materialized_count;
template <class N, class Kids>
struct materialized_count<N, true, Kids> : std::integral_constant<std::size_t, 0> {};
template <class N, template <class...> class List, class... K>
struct materialized_count<N, false, List<K...>>
    : std::integral_constant<std::size_t, (std::size_t{0} + ... + materialized_count<std::remove_cvref_t<K>>::value) +
                                              (materializes<N>::value ? view_count<N>::value : 0)> {};

namespace detail {
using staticflow::detail::concat_tuple_types;
using staticflow::detail::pack_concat;
using staticflow::detail::pack_get;
using staticflow::detail::pack_of;
using staticflow::detail::pack_to_tuple;
using staticflow::detail::value_pack;

// The slot base of child K of N: Base + the counts of the children before it (Kids: a node's
// child_refs or a std::tuple of nodes).
template <class Kids, std::size_t K, class Before = std::make_index_sequence<K>>
struct count_before;
template <class Kids, std::size_t K, std::size_t... J>
struct count_before<Kids, K, std::index_sequence<J...>>
    : std::integral_constant<std::size_t, (std::size_t{0} + ... + materialized_count<std::remove_cvref_t<std::tuple_element_t<J, Kids>>>::value)> {};

/// The child indices of a node of type X (cv-ref qualified or not), as the walks below take them:
/// a walk expands its node's children over them, rather than in an index_sequence lambda or a
/// helper function, which were a closure type or a function more per node, each named after the
/// walk's instantiation.
template <class X>
using indices_of_t = graph::detail::child_indices<std::remove_cvref_t<X>>;

// ---- the prelude: the distinct shared nodes of a plan's outputs, each computed once ----
template <class... S>
struct prelude_list {
  static constexpr std::size_t size = sizeof...(S);
};
template <class L, class S>
struct prelude_contains;
template <class... T, class S>
struct prelude_contains<prelude_list<T...>, S> : std::bool_constant<(std::is_same<T, S>::value || ...)> {};
template <class L, class S>
struct prelude_append;
template <class... T, class S>
struct prelude_append<prelude_list<T...>, S> {
  using type = prelude_list<T..., S>;
};

// L with the shared nodes of N added, each after the shared nodes inside it (post-order).
template <class L, class N>
struct prelude_add;
template <class L, class Kids>
struct prelude_fold;
template <class L>
struct prelude_fold<L, std::tuple<>> {
  using type = L;
};
template <class L, class K0, class... K>
struct prelude_fold<L, std::tuple<K0, K...>> {
  using type = typename prelude_fold<typename prelude_add<L, std::remove_cvref_t<K0>>::type, std::tuple<K...>>::type;
};
template <class Kids>
struct kids_as_tuple {
  using type = Kids;
};
template <class... K>
struct kids_as_tuple<graph::child_refs<K...>> {
  using type = std::tuple<K...>;
};
// (the children as a std::tuple before the fold, not a fold over child_refs deriving from the
// tuple's: each level of a graph costs two levels of template instantiation, so that a 200-node
// chain with its stored forward values, autodiff/forward_values.hpp, stays within g++'s 900)
template <class L, class N>
struct prelude_add {
  using kids = typename kids_as_tuple<decltype(graph::children(std::declval<const N&>()))>::type;
  using type = typename prelude_fold<L, kids>::type;
};
// A shared node met for the first time: the shared nodes inside it, then it. Met again: nothing.
// (A class per case, so that a node met again is not walked again: as arguments of one
// std::conditional_t both cases were instantiated, and every further path to a shared node walked
// its whole subtree again, which grew as the square of an unrolled loop's steps.)
template <class L, class S, bool Seen = prelude_contains<L, S>::value>
struct prelude_add_shared {
  using type = L;
};
template <class L, class S>
struct prelude_add_shared<L, S, false> {
  using type = typename prelude_append<typename prelude_add<L, typename S::held_type>::type, S>::type;
};
template <class L, class Key>
  requires(prelude_node<graph::shared_node<Key>>::value)
struct prelude_add<L, graph::shared_node<Key>> : prelude_add_shared<L, graph::shared_node<Key>> {};
template <class Outputs>
using prelude_of_t = typename prelude_fold<prelude_list<>, Outputs>::type;

// Entry I of the prelude: the slots of its node's subtree, then its own (materialized_count of
// the node it shares); where they start, where the node's own view is, how many views in all.
template <class L, std::size_t I>
struct prelude_entry;
template <class... S, std::size_t I>
struct prelude_entry<prelude_list<S...>, I> {
  using shared_type = std::tuple_element_t<I, std::tuple<S...>>;
  using node_type = typename shared_type::held_type;
  static constexpr std::size_t base = []<std::size_t... J>(std::index_sequence<J...>) {
    return (std::size_t{0} + ... +
            materialized_count<typename std::tuple_element_t<J, std::tuple<S...>>::held_type>::value);
  }(std::make_index_sequence<I>{});
  static constexpr std::size_t view = base + materialized_count<node_type>::value - 1;
};
template <class L>
constexpr std::size_t prelude_views() {
  if constexpr (L::size == 0) return 0;
  else return prelude_entry<L, L::size - 1>::view + 1;
}
template <class L, class S>
constexpr std::size_t prelude_index() {
  return []<class... T>(std::type_identity<prelude_list<T...>>) {
    std::size_t i = 0, found = 0;
    ((std::is_same<T, S>::value ? (found = i, ++i) : ++i), ...);
    return found;
  }(std::type_identity<L>{});
}

template <std::size_t ArgCount, std::size_t Base, class L, class N, std::size_t... K>
constexpr auto lower(const N& n, std::index_sequence<K...>);

// Whether N is one result of a shared node with several results (a differentiated loop's).
template <class N>
struct reads_shared_results : std::false_type {};
template <class N>
  requires requires { N::projected_output; }
struct reads_shared_results<N> : prelude_node<std::remove_cvref_t<decltype(std::declval<const N&>().source)>> {};

// N with each child lowered (its materialized descendants replaced by slot reads).
template <std::size_t ArgCount, std::size_t Base, class L, class N, std::size_t... K>
constexpr auto lower_children(const N& n, std::index_sequence<K...>) {
  using kids = graph::detail::child_list_t<N>;
  [[maybe_unused]] const auto c = graph::children(n);
  return graph::with_children(
      n, lower<ArgCount, Base + count_before<kids, K>::value, L>(graph::child<K>(c), indices_of_t<std::tuple_element_t<K, kids>>{})...);
}

// n lowered: its materialized descendants, and n itself if materialized, read from their slots.
// K...: n's child indices (indices_of_t<N>).
template <std::size_t ArgCount, std::size_t Base, class L, class N, std::size_t... K>
constexpr auto lower(const N& n, std::index_sequence<K...>) {
  if constexpr (graph::detail::is_argument<N>::value || graph::detail::is_literal<N>::value) {
    return n;
  } else if constexpr (prelude_node<N>::value) {
    // every occurrence reads the one slot of its prelude entry
    constexpr std::size_t view = prelude_entry<L, prelude_index<L, N>()>::view;
    return graph::argument<ArgCount + view, typename N::value_type, typename N::shape_type>{};
  } else if constexpr (graph::detail::is_shared<N>::value) {
    return lower<ArgCount, Base, L>(n.value(), indices_of_t<typename N::held_type>{});
  } else if constexpr (graph::detail::is_custom_gradient<N>::value) {
    return lower<ArgCount, Base, L>(n.y, indices_of_t<decltype(n.y)>{});  // only the reverse walk reads what the node adds to y
  } else if constexpr (reads_shared_results<N>::value) {
    // output K of a shared node with several results: the K-th of its prelude entry's views
    using source = std::remove_cvref_t<decltype(n.source)>;
    constexpr std::size_t last = prelude_entry<L, prelude_index<L, source>()>::view;
    return graph::argument<ArgCount + last + 1 - view_count<typename source::held_type>::value + N::projected_output,
                           typename N::value_type, typename N::shape_type>{};
  } else if constexpr (requires { N::projected_output; }) {
    // output K of a node with several results: the K-th of the views that node's slot fills
    using source = std::remove_cvref_t<decltype(n.source)>;
    static_assert(materializes<source>::value);
    return graph::argument<ArgCount + Base + materialized_count<source>::value - view_count<source>::value + N::projected_output,
                           typename N::value_type, typename N::shape_type>{};
  } else if constexpr (materializes<N>::value) {
    static_assert(view_count<N>::value == 1, "staticflow: internal: a node with several results is read through its outputs");
    // this node is slot Base + (the slots below it): read it as an argument
    return graph::argument<ArgCount + Base + materialized_count<N>::value - 1, typename N::value_type,
                           typename N::shape_type>{};
  } else {
    using kids = graph::detail::child_list_t<N>;
    [[maybe_unused]] const auto c = graph::children(n);
    return graph::with_children(
        n, lower<ArgCount, Base + count_before<kids, K>::value, L>(graph::child<K>(c), indices_of_t<std::tuple_element_t<K, kids>>{})...);
  }
}

// ---- what a branch reads of its plan's prelude ----
// A cond's branches are planned apart, over the values visible where the cond runs. A shared node
// of this plan's prelude that a branch holds is computed once per call, before the cond runs, when
// its entry's view comes before the cond's subtree (Base): the branch reads that view (argument
// ArgCount + view) instead of holding the shared node, which its own plan would compute again.
// Without this, an unrolled sf::fori_loop whose body is a cond over the loop state planned every
// earlier step again inside each branch: plans 3x and calls 2x larger per step. A while_loop's
// condition and body read them the same way (control/while_loop.hpp).

// Whether S is an entry of prelude L whose value is computed before view Base.
template <class L, class S, std::size_t Base>
constexpr bool computed_before() {
  if constexpr (!prelude_contains<L, S>::value) return false;
  else return prelude_entry<L, prelude_index<L, S>()>::view < Base;
}
template <class L, class N, std::size_t Base>
constexpr bool reads_computed_results() {
  if constexpr (requires { N::projected_output; }) {
    return computed_before<L, std::remove_cvref_t<decltype(std::declval<const N&>().source)>, Base>();
  } else {
    return false;
  }
}

template <std::size_t ArgCount, std::size_t Base, class L, class N, std::size_t... K>
constexpr auto read_prelude_children(const N& n, std::index_sequence<K...>);
// Graph n with each entry of L computed before view Base read as its view; the rest as it is.
template <std::size_t ArgCount, std::size_t Base, class L, class N>
constexpr auto read_prelude(const N& n) {
  if constexpr (graph::detail::is_argument<N>::value || graph::detail::is_literal<N>::value) {
    return n;
  } else if constexpr (computed_before<L, N, Base>()) {
    constexpr std::size_t view = prelude_entry<L, prelude_index<L, N>()>::view;
    return graph::argument<ArgCount + view, typename N::value_type, typename N::shape_type>{};
  } else if constexpr (reads_computed_results<L, N, Base>()) {
    using source = std::remove_cvref_t<decltype(n.source)>;
    constexpr std::size_t last = prelude_entry<L, prelude_index<L, source>()>::view;
    return graph::argument<ArgCount + last + 1 - view_count<typename source::held_type>::value + N::projected_output,
                           typename N::value_type, typename N::shape_type>{};
  } else if constexpr (graph::detail::is_custom_gradient<N>::value) {
    return read_prelude<ArgCount, Base, L>(n.y);  // as lower: a plan reads only y
  } else {
    return read_prelude_children<ArgCount, Base, L>(n, graph::detail::child_indices<N>{});
  }
}
template <std::size_t ArgCount, std::size_t Base, class L, class N, std::size_t... K>
constexpr auto read_prelude_children(const N& n, std::index_sequence<K...>) {
  using kids = graph::detail::child_list_t<N>;
  [[maybe_unused]] const auto c = graph::children(n);
  using read = std::tuple<decltype(read_prelude<ArgCount, Base, L>(graph::child<K>(c)))...>;
  // a subtree without such an entry stays this very node (a shared node keeps its box)
  if constexpr (std::is_same<read, std::tuple<std::remove_cvref_t<std::tuple_element_t<K, kids>>...>>::value) return n;
  else return graph::with_children(n, read_prelude<ArgCount, Base, L>(graph::child<K>(c))...);
}

// The number of views a branch that reads the entries of L computed before view Base must see.
template <class L, std::size_t Base>
constexpr std::size_t views_computed_before() {
  std::size_t count = 0;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    ((prelude_entry<L, I>::view < Base ? count = prelude_entry<L, I>::view + 1 : count), ...);
  }(std::make_index_sequence<L::size>{});
  return count;
}

// How a cond's branches and a loop's condition and body read the prelude (read_prelude), as their
// with_plans takes it.
template <std::size_t ArgCount, std::size_t Base, class L>
struct prelude_reader {
  static constexpr std::size_t visible = ArgCount + views_computed_before<L, Base>();
  /// A branch's results (a std::tuple of nodes), each read so.
  template <class... G>
  static constexpr auto read(const std::tuple<G...>& outs) {
    return staticflow::detail::apply([](const auto&... o) { return std::tuple{read_prelude<ArgCount, Base, L>(o)...}; }, outs);
  }
};

// A materialized node as its slot holds it: children lowered and, for nodes that hold graphs of
// their own (cond branches, loop bodies), those graphs planned over the ArgCount values visible
// here (`with_plans<ArgCount>()`), a cond's branches over the prelude computed before it too.
template <std::size_t ArgCount, std::size_t Base, class L, class N>
constexpr auto lower_slot(const N& n) {
  auto lowered = lower_children<ArgCount, Base, L>(n, graph::detail::child_indices<N>{});
  if constexpr (L::size > 0 && requires { lowered.template with_plans<ArgCount>(prelude_reader<ArgCount, Base, L>{}); }) {
    return lowered.template with_plans<ArgCount>(prelude_reader<ArgCount, Base, L>{});
  } else if constexpr (requires { lowered.template with_plans<ArgCount>(); }) {
    return lowered.template with_plans<ArgCount>();
  } else {
    return lowered;
  }
}

// The lowered materialized nodes of subtree n, in post-order, as a value_pack (a shared node's are
// in the prelude). K...: n's child indices (indices_of_t<N>).
template <std::size_t ArgCount, std::size_t Base, class L, class N, std::size_t... K>
constexpr auto collect(const N& n, std::index_sequence<K...>) {
  if constexpr (prelude_node<N>::value) {
    return value_pack<>{};
  } else if constexpr (graph::detail::is_shared<N>::value) {
    return collect<ArgCount, Base, L>(n.value(), indices_of_t<typename N::held_type>{});
  } else {
    using kids = graph::detail::child_list_t<N>;
    [[maybe_unused]] const auto c = graph::children(n);
    auto below = pack_concat(collect<ArgCount, Base + count_before<kids, K>::value, L>(
        graph::child<K>(c), indices_of_t<std::tuple_element_t<K, kids>>{})...);
    if constexpr (materializes<N>::value) return pack_concat(below, pack_of(lower_slot<ArgCount, Base, L>(n)));
    else return below;
  }
}

// The materialized nodes of subtree n as traced (not lowered), in the same post-order as collect:
// equal traced subgraphs compute equal values, whichever slots their lowered forms read.
template <class N, std::size_t... K>
constexpr auto collect_traced(const N& n, std::index_sequence<K...>) {
  if constexpr (prelude_node<N>::value) {
    return value_pack<>{};
  } else if constexpr (graph::detail::is_shared<N>::value) {
    return collect_traced(n.value(), indices_of_t<typename N::held_type>{});
  } else {
    using kids = graph::detail::child_list_t<N>;
    [[maybe_unused]] const auto c = graph::children(n);
    auto below = pack_concat(collect_traced(graph::child<K>(c), indices_of_t<std::tuple_element_t<K, kids>>{})...);
    if constexpr (materializes<N>::value) return pack_concat(below, pack_of<const N*>(&n));
    else return below;
  }
}

template <class N>
constexpr bool structurally_equal(const N& a, const N& b);
/// (out of line: a graph reaches one shared node along many paths, and inlining each path's
/// comparison would make code that grows with the number of paths, not of nodes)
template <class N>
[[gnu::noinline]] constexpr bool shared_values_equal(const N& a, const N& b) {
  return structurally_equal(a.value(), b.value());
}

template <class N, std::size_t... K>
constexpr bool children_equal(const N& a, const N& b, std::index_sequence<K...>) {
  [[maybe_unused]] const auto ka = graph::children(a);
  [[maybe_unused]] const auto kb = graph::children(b);
  return (structurally_equal(graph::child<K>(ka), graph::child<K>(kb)) && ...);
}
/// Structural equality of two nodes of the same type: equal literal values and parameters.
template <class N>
constexpr bool structurally_equal(const N& a, const N& b) {
  if constexpr (graph::detail::is_literal<N>::value) {
    return a.value == b.value || (a.value != a.value && b.value != b.value);
  } else if constexpr (graph::detail::is_shared<N>::value) {
    return a.held.same_box(b.held) || shared_values_equal(a, b);
  } else {
    bool same = true;
    if constexpr (requires { a.same_parameters(b); }) same = a.same_parameters(b);
    return same && children_equal(a, b, graph::detail::child_indices<N>{});
  }
}

// Whether two traced slot nodes compute the same values: the same type with equal parameters.
template <class A, class B>
constexpr bool same_traced_values(const A*, const B*) {
  return false;
}
template <class A>
constexpr bool same_traced_values(const A* a, const A* b) {
  return structurally_equal(*a, *b);
}

// The first occurrence of each prelude entry in subtree n, into ptrs (a tuple of pointers, one per
// entry); every later occurrence must hold the same values (see graph/shared.hpp).
// (K...: n's child indices, indices_of_t<N>)
template <class L, class N, class Ptrs, std::size_t... K>
constexpr void find_shared(const N& n, Ptrs& ptrs, std::index_sequence<K...>);
// The first occurrence's subtree, out of line (as shared_values_equal; defined before its caller,
// since nvcc ignores an attribute that only the definition after a declaration carries).
template <class L, class N, class Ptrs, std::size_t... K>
[[gnu::noinline]] constexpr void find_shared_first(const N& n, Ptrs& ptrs, std::index_sequence<K...>) {
  [[maybe_unused]] const auto c = graph::children(n);
  (find_shared<L>(graph::child<K>(c), ptrs, indices_of_t<std::tuple_element_t<K, graph::detail::child_list_t<N>>>{}), ...);
}
template <class L, class N, class Ptrs, std::size_t... K>
constexpr void find_shared(const N& n, Ptrs& ptrs, std::index_sequence<K...>) {
  if constexpr (prelude_node<N>::value && !prelude_contains<L, N>::value) {
    // (only in a cond's branch: one the enclosing plan does not compute)
    find_shared<L>(n.value(), ptrs, indices_of_t<typename N::held_type>{});
  } else if constexpr (prelude_node<N>::value) {
    auto& first = staticflow::detail::get<prelude_index<L, N>()>(ptrs);
    if (first == nullptr) {
      first = &n;
      find_shared_first<L>(n.value(), ptrs, indices_of_t<typename N::held_type>{});
    } else if (!first->held.same_box(n.held) && !structurally_equal(first->value(), n.value())) {
      throw trace_error(
          "a graph holds two different values under one shared tag: two sf::gradients calls in one function "
          "differentiate graphs of the same type whose values differ (literals or variable reads), or one "
          "unrolled sf::fori_loop (the same body lambda) runs twice over values of the same type that differ; "
          "compute the gradients with one sf::gradients call, give the loop run-time bounds, or use separate "
          "functions");
    }
  } else {
    [[maybe_unused]] const auto c = graph::children(n);
    (find_shared<L>(graph::child<K>(c), ptrs, indices_of_t<std::tuple_element_t<K, graph::detail::child_list_t<N>>>{}), ...);
    // a cond's branches read this prelude's values (read_prelude above): what they hold under an
    // entry's tag must be that entry's value, as anywhere else
    if constexpr (requires { n.branches; n.pred; typename N::kind; }) {
      staticflow::detail::apply([&](const auto&... branch) {
        (staticflow::detail::apply([&](const auto&... out) { (find_shared<L>(out, ptrs, indices_of_t<decltype(out)>{}), ...); }, branch), ...);
      }, n.branches);
    } else if constexpr (requires { n.cond; n.body; n.inits; }) {  // a loop's condition and body as well
      find_shared<L>(n.cond, ptrs, indices_of_t<decltype(n.cond)>{});
      staticflow::detail::apply([&](const auto&... out) { (find_shared<L>(out, ptrs, indices_of_t<decltype(out)>{}), ...); }, n.body);
    }
  }
}
/// The outputs as planned before the repeats are marked: transposed operands folded
/// (plan/transposed_operands.hpp), then convolutions' epilogues (plan/epilogues.hpp), that pass
/// only where an output holds a conv2d (one copy of the graph otherwise, as before it).
template <class... O>
constexpr auto fold_outputs(const std::tuple<O...>& outs) {
  if constexpr ((holds_producer<std::remove_cv_t<O>>::value || ...)) return fold_output_epilogues(fold_output_transposes(outs));
  else return fold_output_transposes(outs);
}

template <class L>
struct prelude_pointers;
template <class... S>
struct prelude_pointers<prelude_list<S...>> {
  using type = std::tuple<const S*...>;
};
}  // namespace detail

/// The plan of a graph with outputs `Outputs` (a tuple of nodes) over ArgCount arguments:
/// the lowered outputs, the lowered slot nodes in evaluation order, and which slot repeats which.
template <std::size_t ArgCount, class Outputs>
struct evaluation_plan {
  static constexpr std::size_t output_count = std::tuple_size<Outputs>::value;

 private:
  // The outputs as planned: a transposed matrix that feeds a product read in place by it
  // (plan/transposed_operands.hpp); the elementwise work that only reads a convolution done by
  // its kernel (plan/epilogues.hpp); then each materialized node they read twice or more, whose
  // type determines its values, marked shared (plan/repeats.hpp), so that it is one prelude slot by
  // construction.
  using Planned = detail::marked_outputs_t<decltype(detail::fold_outputs(std::declval<const Outputs&>()))>;
  // The shared nodes (graph/shared.hpp), computed first: slots [0, prelude views).
  using prelude = detail::prelude_of_t<Planned>;
  using prelude_pointers = typename detail::prelude_pointers<prelude>::type;

  template <std::size_t K>
  static constexpr std::size_t output_base() {
    return detail::prelude_views<prelude>() + detail::count_before<Planned, K>::value;
  }
  static constexpr auto lower_outputs(const Planned& outs) {
    return [&]<std::size_t... K>(std::index_sequence<K...>) {
      return std::tuple{detail::lower<ArgCount, output_base<K>(), prelude>(staticflow::detail::get<K>(outs),
                                                                          detail::indices_of_t<std::tuple_element_t<K, Planned>>{})...};
    }(std::make_index_sequence<output_count>{});
  }
  static constexpr auto collect_slots(const Planned& outs, const prelude_pointers& shared) {
    auto first = [&]<std::size_t... I>(std::index_sequence<I...>) {
      return detail::pack_concat(
          detail::collect<ArgCount, detail::prelude_entry<prelude, I>::base, prelude>(
              staticflow::detail::get<I>(shared)->value(), detail::indices_of_t<typename detail::prelude_entry<prelude, I>::node_type>{})...);
    }(std::make_index_sequence<prelude::size>{});
    return detail::pack_concat(first, [&]<std::size_t... K>(std::index_sequence<K...>) {
      return detail::pack_concat(detail::collect<ArgCount, output_base<K>(), prelude>(
          staticflow::detail::get<K>(outs), detail::indices_of_t<std::tuple_element_t<K, Planned>>{})...);
    }(std::make_index_sequence<output_count>{}));
  }
  static constexpr prelude_pointers find_prelude(const Planned& outs) {
    prelude_pointers p{};
    if constexpr (prelude::size > 0) staticflow::detail::apply([&](const auto&... o) { (detail::find_shared<prelude>(o, p, detail::indices_of_t<decltype(o)>{}), ...); }, outs);
    return p;
  }

 public:
  using outputs_type = decltype(lower_outputs(std::declval<const Planned&>()));
  using slots_type = decltype(collect_slots(std::declval<const Planned&>(), std::declval<const prelude_pointers&>()));
  static constexpr std::size_t slot_count = std::tuple_size<slots_type>::value;

  /// The specs of the values the slots fill, in order: slot K fills views
  /// [view_base<K>, view_base<K> + plan::view_count<slot K>::value), read as arguments ArgCount + view.
  using view_specs = typename decltype([]<std::size_t... K>(std::index_sequence<K...>) {
    return std::type_identity<typename detail::concat_tuple_types<typename output_specs_of<std::tuple_element_t<K, slots_type>>::type...>::type>{};
  }(std::make_index_sequence<slot_count>{}))::type;
  static constexpr std::size_t view_count = std::tuple_size<view_specs>::value;
  /// view_bases[K] == view_base<K>; view_bases[slot_count] == view_count. (One array for the
  /// plan: a sum per slot over the slots before it grew as the square of the slots.)
  static constexpr std::array<std::size_t, slot_count + 1> view_bases = [] {
    std::array<std::size_t, slot_count + 1> bases{};
    std::size_t at = 0;
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      ((bases[K] = at, at += plan::view_count<std::tuple_element_t<K, slots_type>>::value), ...);
    }(std::make_index_sequence<slot_count>{});
    bases[slot_count] = at;
    return bases;
  }();
  template <std::size_t K>
  static constexpr std::size_t view_base = view_bases[K];

  outputs_type outputs;
  slots_type slots;
  /// same_as[k] == j < k when slot k is structurally equal to slot j (it is not computed again).
  std::array<std::size_t, slot_count> same_as{};

  constexpr explicit evaluation_plan(const Outputs& outs)
      : evaluation_plan(planned_tag{}, detail::mark_output_repeats(detail::fold_outputs(outs))) {}

 private:
  struct planned_tag {};
  constexpr evaluation_plan(planned_tag, const Planned& outs) : evaluation_plan(planned_tag{}, outs, find_prelude(outs)) {}
  constexpr evaluation_plan(planned_tag, const Planned& outs, const prelude_pointers& shared)
      : outputs(lower_outputs(outs)), slots(collect_slots(outs, shared)) {
    // Repeats are found on the traced nodes: two copies of one node (say both results of a
    // while_loop, each holding the loop) lower to different types when their own inputs sit in
    // different slots, but as traced they are the same type with equal values. A prelude entry is
    // traced as the node it shares, so a plain copy of that node elsewhere is found equal to it.
    const auto traced = detail::pack_concat(
        staticflow::detail::apply([](const auto*... p) {
          return detail::pack_concat(detail::collect_traced(p->value(), detail::indices_of_t<decltype(p->value())>{})...);
        }, shared),
        staticflow::detail::apply([](const auto&... o) { return detail::pack_concat(detail::collect_traced(o, detail::indices_of_t<decltype(o)>{})...); }, outs));
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      ((same_as[K] = first_equal<K>(traced, std::make_index_sequence<K>{})), ...);
    }(std::make_index_sequence<slot_count>{});
  }

 private:
  template <std::size_t K, class Traced, std::size_t... J>
  constexpr std::size_t first_equal(const Traced& traced, std::index_sequence<J...>) const {
    // (no function per pair of slots, only per pair of traced types: the pairs grow as the square
    // of the slots)
    std::size_t found = K;
    ((found == K && same_as[J] == J && detail::same_traced_values(detail::pack_get<J>(traced), detail::pack_get<K>(traced)) ? (void)(found = J)
                                                                                                           : (void)0),
     ...);
    return found;
  }
};

/// Points views [First, First + Count) of `all` (a tuple of views) at the `Count` views that start
/// at run-time position `from`: a slot that repeats an earlier one (evaluation_plan::same_as) takes
/// that slot's values. The two slots hold the same traced node, so their views have the same types.
/// (The position is looked up at run time: a compile-time choice among the earlier slots made one
/// copy per pair of slots, which grew as the square of the slots.)
template <std::size_t First, std::size_t Count, class All>
void share_views(All& all, std::size_t from) {
  // The earlier slot's views end before this one's (so a slot with fewer views before it than its
  // own repeats none). Said as a bound, it also tells the compiler that the reads below stay in the
  // array: g++ 12 warned of -Warray-bounds without it, inlined with `from` unknown.
  if constexpr (First >= Count) {
    from = from < First - Count ? from : First - Count;
    // (an index sequence, not std::apply: its noexcept and invoke machinery cost clang 2 s in a
    // gradient test's views tuple, one instantiation per repeated slot)
    const auto address = [&]<std::size_t... A>(std::index_sequence<A...>) {
      return std::array<const void*, sizeof...(A)>{static_cast<const void*>(&staticflow::detail::get<A>(all))...};
    }(std::make_index_sequence<std::tuple_size<All>::value>{});
    [&]<std::size_t... V>(std::index_sequence<V...>) {
      ((staticflow::detail::get<First + V>(all) = *static_cast<const std::tuple_element_t<First + V, All>*>(address[from + V])), ...);
    }(std::make_index_sequence<Count>{});
  } else {
    (void)all, (void)from;
  }
}
}  // namespace staticflow::plan

namespace staticflow::plan {
/// How many materialized nodes this thread has computed: tests count evaluations with it to prove
/// that a node is computed once per call however often the graph uses it.
inline std::size_t& materialization_counter() {
  thread_local std::size_t count = 0;
  return count;
}
}  // namespace staticflow::plan
