// staticflow/autodiff/loop_backprop.hpp -- reverse mode through sf::while_loop, and so through
// sf::fori_loop with run-time bounds, sf::scan and sf::map_fn (while loops over a counter), with a
// trip count known only at run time.
//
// TensorFlow's approach, written as two more loops of the graph (no new node, no new kernel):
//
//  1. The forward loop again, with a counter and, per loop variable the reverse walk reads, a
//     stack (a dynamic-size tensor array written in place) holding the value the variable had at
//     the start of every iteration: the loop's memory grows by the kept variables' size times the
//     trip count, bounded by sf::maximum_iterations. A counter only the condition reads is not
//     kept, nor a scan's results array (the adjoint of a write does not read the array).
//  2. A reverse loop from j = n down to 1 that carries the cotangent of every float variable and,
//     when the body reads the source itself (a captured weight), the source's accumulated
//     adjoint. Its body is the reverse walk of the forward body, seeded with the cotangents,
//     over the values read back from the stacks at j - 1: the body's forward values are
//     recomputed there (one iteration at a time, as a checkpointed body would be), nothing else
//     is stored. The stacks ride along as loop variables rewritten element by element in place
//     (a loop body sees the function's arguments and its own variables, not the slots around it).
//  3. The cotangents the reverse loop ends with go on into the loop's initial values, and the
//     accumulated adjoint is added.
//
// A loop whose outputs the target reads several times gets one reverse loop per output read (the
// stacked forward loop is the same node, computed once). A variable of run-time shape must keep
// its extents from one iteration to the next (its stack holds one element shape: a variable that
// changes them throws the stack's sf::shape_error). The body may hold conds, switch_cases, other
// loops and custom gradients that read the loop's variables: replace_leaf rewrites them wherever
// the walk's graphs hold them (a cond's adjoint branches, a nested loop's stacked and reverse
// loops, a custom gradient's inputs).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/autodiff/adjoint_shape.hpp"
#include "staticflow/autodiff/backprop.hpp"
#include "staticflow/control/binding.hpp"
#include "staticflow/control/structure.hpp"
#include "staticflow/control/tensor_array.hpp"
#include "staticflow/control/while_loop.hpp"
#include "staticflow/graph/leaf.hpp"
#include "staticflow/graph/operators.hpp"

namespace staticflow::autodiff::detail {

/// The scopes of the loops a differentiated loop adds: the forward loop with its stacks, and the
/// reverse loop of one walk (the path of the loop's result and the source the walk is for; shared
/// tags add the root's type).
template <class Scope>
struct stacked_scope {};
template <class Scope, class Path, class Source>
struct reverse_scope {};

template <class Scope, std::size_t K, class Specs>
using loop_leaf = graph::bound_variable<Scope, K, typename std::tuple_element_t<K, Specs>::value_type,
                                        typename std::tuple_element_t<K, Specs>::shape_type>;

template <class Scope, std::size_t K, class Spec>
using loop_leaf_as = graph::bound_variable<Scope, K, typename Spec::value_type, typename Spec::shape_type>;

/// The stack of a variable of spec Spec: T[n, dims...], n growing with the trip count.
template <class Spec>
using stack_shape_t = typename staticflow::detail::prepend_dim<dyn, typename Spec::shape_type>::type;
template <class Scope, std::size_t K, class Spec>
using stack_leaf = graph::bound_variable<Scope, K, typename Spec::value_type, stack_shape_t<Spec>>;

/// n with loop variables I, I + 1, ... of scope From (specs Specs) replaced by replacement(k).
template <class From, class Specs, std::size_t I = 0, class N, class F>
constexpr auto replace_loop_variables(const N& n, const F& replacement) {
  if constexpr (I == std::tuple_size<Specs>::value) {
    return n;
  } else {
    const auto replaced = replace_leaf<loop_leaf<From, I, Specs>>(n, replacement(std::integral_constant<std::size_t, I>{}));
    return replace_loop_variables<From, Specs, I + 1>(replaced, replacement);
  }
}

/// n with leaves First + p of scope R (specs CotSpecs) replaced by replacement(p).
template <class R, std::size_t First, class CotSpecs, std::size_t P = 0, class N, class F>
constexpr auto replace_cotangents(const N& n, const F& replacement) {
  if constexpr (P == std::tuple_size<CotSpecs>::value) {
    return n;
  } else {
    using leaf = loop_leaf_as<R, First + P, std::tuple_element_t<P, CotSpecs>>;
    const auto replaced = replace_leaf<leaf>(n, replacement(std::integral_constant<std::size_t, P>{}));
    return replace_cotangents<R, First, CotSpecs, P + 1>(replaced, replacement);
  }
}

/// Whether graph N names a variable of scope Scope anywhere (a loop's own body and condition, a
/// cond's branches included).
template <class Scope, class Specs, class N>
constexpr bool names_loop_variables() {
  return []<std::size_t... K>(std::index_sequence<K...>) {
    if constexpr (symbolic<N>) return (reaches_node<loop_leaf<Scope, K, Specs>, N>::value || ...);
    else return (reaches_any<loop_leaf<Scope, K, Specs>, N>() || ...);  // a tuple of graphs
  }(std::make_index_sequence<std::tuple_size<Specs>::value>{});
}

/// Loop variable k of scope Scope as the stacked forward loop names it.
template <class Scope, class Specs>
struct rename_to_stacked {
  template <class Kc>
  constexpr auto operator()(Kc) const {
    return loop_leaf<stacked_scope<Scope>, Kc::value, Specs>{};
  }
};

/// The forward loop with a counter (variable V) and a stack per kept variable (V + 1 + s, for the
/// s-th kept variable) holding the value it had at the start of each iteration.
template <class Kept, class Scope, class I, class C, class B>
constexpr auto stacked_loop(const graph::while_node<Scope, I, C, B>& loop) {
  using Specs = staticflow::detail::specs_of_nodes_t<I>;
  constexpr std::size_t V = std::tuple_size<I>::value;
  using S2 = stacked_scope<Scope>;
  using count = graph::bound_variable<S2, V, std::int64_t, shape<>>;
  const auto rename = rename_to_stacked<Scope, Specs>{};
  const auto cond = replace_loop_variables<Scope, Specs>(loop.cond, rename);
  const auto body = [&]<std::size_t... K, std::size_t... S>(std::index_sequence<K...>, std::index_sequence<S...>) {
    return std::tuple{replace_loop_variables<Scope, Specs>(staticflow::detail::get<K>(loop.body), rename)..., count{} + std::int64_t{1},
                      graph::ta_write<stack_leaf<S2, V + 1 + S, std::tuple_element_t<Kept::list.first[S], Specs>>, count,
                                      loop_leaf<S2, Kept::list.first[S], Specs>>({}, count{}, {}, true)...};
  }(std::make_index_sequence<V>{}, std::make_index_sequence<Kept::count>{});
  using zero = graph::literal<std::int64_t>;
  const auto inits = [&]<std::size_t... S>(std::index_sequence<S...>) {
    return staticflow::detail::pack_to_tuple(staticflow::detail::values_concat(
        loop.inits, staticflow::detail::pack_values(zero(0), graph::ta_zeros<typename std::tuple_element_t<Kept::list.first[S], Specs>::value_type,
                                                                        stack_shape_t<std::tuple_element_t<Kept::list.first[S], Specs>>, zero>(zero(0))...)));
  }(std::make_index_sequence<Kept::count>{});
  return graph::while_node<S2, std::remove_cvref_t<decltype(inits)>, std::remove_cvref_t<decltype(cond)>,
                           std::remove_cvref_t<decltype(body)>>{{}, inits, cond, body, loop.max_iterations};
}

/// The float variables of a loop (the ones that carry a cotangent), in order.
template <class Specs>
constexpr auto float_variables() {
  constexpr std::size_t V = std::tuple_size<Specs>::value;
  std::array<std::size_t, V + 1> which{};  // (V + 1: no zero-size array for a loop of int variables)
  std::size_t count = 0;
  [&]<std::size_t... K>(std::index_sequence<K...>) {
    ((floating_dtype<typename std::tuple_element_t<K, Specs>::value_type> ? void(which[count++] = K) : void()), ...);
  }(std::make_index_sequence<V>{});
  return std::pair{which, count};
}

template <class Specs>
inline constexpr auto float_variables_v = float_variables<Specs>();

/// The specs of the float variables.
template <class Specs, class P>
struct float_variable_specs;
template <class Specs, std::size_t... P>
struct float_variable_specs<Specs, std::index_sequence<P...>> {
  using type = std::tuple<std::tuple_element_t<float_variables_v<Specs>.first[P], Specs>...>;
};

/// The reverse loop's cotangent variables Base, Base + 1, ...: one per float variable, with its spec.
template <class R, std::size_t Base, class Specs, class P>
struct cotangent_leaves;
template <class R, std::size_t Base, class Specs, std::size_t... P>
struct cotangent_leaves<R, Base, Specs, std::index_sequence<P...>> {
  using type = std::tuple<loop_leaf_as<R, Base + P, std::tuple_element_t<float_variables_v<Specs>.first[P], Specs>>...>;
};

/// Which variables the reverse loop needs each iteration's value of: those the reverse walk's graphs
/// (Graphs, a tuple) read. A loop counter that only the condition reads is not kept, nor a tensor
/// array the body writes (its adjoint does not depend on its elements).
template <class Scope, class Specs, class Graphs>
struct kept_variables {
  static constexpr std::size_t V = std::tuple_size<Specs>::value;
  template <std::size_t... K>
  static constexpr auto find(std::index_sequence<K...>) {
    std::array<std::size_t, V + 1> which{};
    std::size_t n = 0;
    constexpr std::array<bool, V + 1> read{reaches_any<loop_leaf<Scope, K, Specs>, Graphs>()...};
    for (std::size_t k = 0; k < V; ++k)
      if (read[k]) which[n++] = k;
    return std::pair{which, n};
  }
  static constexpr auto list = find(std::make_index_sequence<V>{});
  static constexpr std::size_t count = list.second;
  /// The position of variable k's stack among the kept ones (count when it is not kept).
  static constexpr std::size_t position(std::size_t k) {
    for (std::size_t s = 0; s < count; ++s)
      if (list.first[s] == k) return s;
    return count;
  }
};

/// The adjoint that result K of a while loop, with adjoint g, sends to the source (see the top of
/// this file). Paths: (0: the loop node, k: its initial value k).
template <class Root, class Path, std::size_t K, class Scope, class I, class C, class B, class G, class Source>
constexpr auto loop_backprop(const graph::output_of<K, graph::while_node<Scope, I, C, B>>& n, const G& g,
                             const Source& source) {
  using Specs = staticflow::detail::specs_of_nodes_t<I>;
  constexpr std::size_t V = std::tuple_size<I>::value;
  const auto& loop = n.source;
  constexpr std::size_t FC = float_variables_v<Specs>.second;
  constexpr bool body_reads_source = reaches_any<Source, B>();
  // (not the root's type: every leaf of the reverse body names its scope, and a scope holding the
  // whole differentiated graph's type made a two-variable loop take 6.8 GB of g++)
  // The source is part of the scope only when the body reads it (it then has an accumulator):
  // the reverse loops of sources reached through the initial values alone are one node.
  using R = reverse_scope<Scope, Path, std::conditional_t<body_reads_source, Source, void>>;
  using L = source_leaf_t<Source>;
  using j_leaf = graph::bound_variable<R, 0, std::int64_t, shape<>>;
  // the body's results as the reverse walk sees them: materialized nodes shared, so that the
  // walk's copies of them compile once
  const auto body = [&]<std::size_t... P>(std::index_sequence<P...>) {
    return std::tuple{share_materialized<R, std::index_sequence<float_variables_v<Specs>.first[P]>>(staticflow::detail::get<float_variables_v<Specs>.first[P]>(loop.body))...};
  }(std::make_index_sequence<FC>{});
  // reverse loop variables: j, the KC stacks, the FC cotangents (1 + KC + p), the source's adjoint;
  // which variables are kept (KC) depends on what the walk reads, so the cotangents are leaves
  // numbered from 1 + V and renumbered once KC is known
  using cot_leaves = typename cotangent_leaves<R, 1 + V, Specs, std::make_index_sequence<FC>>::type;
  // what one iteration sends to a leaf x: the sum over the body's float results
  const auto walk = [&]<class X>(const X& x) {
    return [&]<std::size_t... P>(std::index_sequence<P...>) {
      return sum_adjoints<typename source_leaf_t<X>::shape_type>(
          backprop<R, std::index_sequence<float_variables_v<Specs>.first[P]>>(staticflow::detail::get<P>(body), std::tuple_element_t<P, cot_leaves>{}, x)...);
    }(std::make_index_sequence<FC>{});
  };
  const auto next_cotangent = [&](auto p) {
    constexpr std::size_t k = float_variables_v<Specs>.first[decltype(p)::value];
    using X = loop_leaf<Scope, k, Specs>;
    const auto a = walk(X{});
    if constexpr (is_zero<decltype(a)>) return zero_adjoint_like(X{});
    else return to_value_spec(a, X{});
  };
  // one iteration of the walk, over the loop variables as they were at its start
  const auto cotangents = [&]<std::size_t... P>(std::index_sequence<P...>) {
    return std::tuple{next_cotangent(std::integral_constant<std::size_t, P>{})...};
  }(std::make_index_sequence<FC>{});
  const auto increment = [&] {
    if constexpr (body_reads_source) return std::tuple{at_source_spec(walk(source), source)};
    else return std::tuple{};
  }();
  using Kept = kept_variables<Scope, Specs, std::remove_cvref_t<decltype(std::tuple_cat(cotangents, increment))>>;
  constexpr std::size_t KC = Kept::count;
  // Both loops are shared nodes (graph/shared.hpp): the reverse loop reads the stacked loop's
  // results and the walk reads the reverse loop's several times, each a copy in the tree of
  // types that is planned, computed and compiled once.
  const auto stacked = stacked_loop<Kept>(loop);
  const graph::shared<graph::path_tag<Root, stacked_scope<Path>>, std::remove_cvref_t<decltype(stacked)>> forward(stacked);
  using F = std::remove_cvref_t<decltype(forward)>;
  constexpr std::size_t acc_at = 1 + KC + FC;
  using acc_leaf = graph::bound_variable<R, acc_at, typename L::value_type, typename L::shape_type>;
  const auto previous = j_leaf{} - std::int64_t{1};
  // variable k's value at the start of iteration j - 1 (a variable that is not kept is not read);
  // cotangent p, numbered 1 + V + p in the walk, is reverse loop variable 1 + KC + p
  const auto read = [&](auto k) {
    constexpr std::size_t k_ = decltype(k)::value;
    if constexpr (Kept::position(k_) == KC) return loop_leaf<Scope, k_, Specs>{};
    else return stack_leaf<R, 1 + Kept::position(k_), std::tuple_element_t<k_, Specs>>{}[previous];
  };
  const auto at_previous = [&](const auto& reverse_graph) {
    const auto renumber = [&](auto p) {
      constexpr std::size_t p_ = decltype(p)::value;
      return loop_leaf_as<R, 1 + Kept::count + p_, std::tuple_element_t<float_variables_v<Specs>.first[p_], Specs>>{};
    };
    if constexpr (Kept::count == V) {
      return replace_loop_variables<Scope, Specs>(reverse_graph, read);
    } else {
      using cot_specs = typename float_variable_specs<Specs, std::make_index_sequence<float_variables_v<Specs>.second>>::type;
      return replace_cotangents<R, 1 + V, cot_specs>(replace_loop_variables<Scope, Specs>(reverse_graph, read), renumber);
    }
  };
  const auto cond = j_leaf{} > std::int64_t{0};
  const auto reverse_body = [&]<std::size_t... S, std::size_t... P>(std::index_sequence<S...>, std::index_sequence<P...>) {
    // each stack rewrites the element it reads, in place: a loop variable carried unchanged would
    // be copied whole every iteration
    const auto common = std::tuple{
        previous,
        graph::ta_write<stack_leaf<R, 1 + S, std::tuple_element_t<Kept::list.first[S], Specs>>, decltype(previous),
                        decltype(read(std::integral_constant<std::size_t, Kept::list.first[S]>{}))>(
            {}, previous, read(std::integral_constant<std::size_t, Kept::list.first[S]>{}), false)...,
        at_previous(staticflow::detail::get<P>(cotangents))...};
    if constexpr (body_reads_source)
      return staticflow::detail::pack_to_tuple(staticflow::detail::values_concat(
          common, staticflow::detail::pack_of(acc_leaf{} + at_previous(staticflow::detail::get<0>(increment)))));
    else return common;
  }(std::make_index_sequence<KC>{}, std::make_index_sequence<FC>{});
  const auto seed = to_value_spec(g, n);
  const auto reverse_inits = [&]<std::size_t... S, std::size_t... P>(std::index_sequence<S...>, std::index_sequence<P...>) {
    const auto common = std::tuple{
        graph::output_of<V, F>(forward), graph::output_of<V + 1 + S, F>(forward)..., [&] {
          constexpr std::size_t var = float_variables_v<Specs>.first[P];
          if constexpr (var == K) return seed;
          else return zero_adjoint_like(graph::output_of<var, F>(forward));
        }()...};
    if constexpr (body_reads_source)
      return staticflow::detail::pack_to_tuple(staticflow::detail::values_concat(common, staticflow::detail::pack_of(at_source_spec(zero_adjoint{}, source))));
    else return common;
  }(std::make_index_sequence<KC>{}, std::make_index_sequence<FC>{});
  // (replace_leaf goes wherever a loop variable can be: a failure here is a bug of staticflow's)
  static_assert(!names_loop_variables<Scope, Specs, std::remove_cvref_t<decltype(reverse_body)>>(),
                "staticflow: internal error: the reverse loop still names the forward loop's variables (please "
                "report it with the function that gave it)");
  using reverse_loop = graph::while_node<R, std::remove_cvref_t<decltype(reverse_inits)>, std::remove_cvref_t<decltype(cond)>,
                                         std::remove_cvref_t<decltype(reverse_body)>>;
  const graph::shared<graph::path_tag<Root, R>, reverse_loop> reverse(reverse_loop{{}, reverse_inits, cond, reverse_body, -1});
  using RN = std::remove_cvref_t<decltype(reverse)>;
  using S = typename L::shape_type;
  // the cotangents of the initial values go on into the graph that made them
  const auto through_inits = [&]<std::size_t... P>(std::index_sequence<P...>) {
    return sum_adjoints<S>(backprop<Root, typename append_indices<Path, 0, float_variables_v<Specs>.first[P]>::type>(
        staticflow::detail::get<float_variables_v<Specs>.first[P]>(loop.inits), graph::output_of<1 + KC + P, RN>(reverse), source)...);
  }(std::make_index_sequence<FC>{});
  if constexpr (body_reads_source) return add_adjoints<S>(through_inits, graph::output_of<acc_at, RN>(reverse));
  else return through_inits;
}

}  // namespace staticflow::autodiff::detail
