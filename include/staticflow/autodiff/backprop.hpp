// staticflow/autodiff/backprop.hpp -- reverse mode over a graph's type.
//
// `backprop(n, g, source)` is the adjoint that node n, whose value has adjoint g, sends to
// `source` (a leaf): the sum, over n's children that depend on the source, of each child's
// backprop with the child's adjoint (autodiff/rules.hpp). The walk is over types: a child that
// cannot reach the source, or whose value is not float (integer and bool values stop gradients,
// as in TensorFlow), contributes nothing and builds nothing. The result is a graph like any
// other: the planner fuses its elementwise parts (recomputing the forward values they read inside
// the loop) and computes each materialized forward node once, shared with the forward outputs
// (plan/plan.hpp's common-subexpression rule).
//
// Which leaves are the source: an argument by its index (a type), a value read from outside the
// arguments (an eager value, one read of an sf::variable) by its type and, at run time, its source
// pointer; every read of an sf::variable (variable_source) by its type and its source's origin.
#pragma once

#include <algorithm>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticflow/autodiff/adjoint_shape.hpp"
#include "staticflow/autodiff/forward_values.hpp"
#include "staticflow/autodiff/rules.hpp"
#include "staticflow/control/cond.hpp"
#include "staticflow/control/while_loop.hpp"
#include "staticflow/core/value_pack.hpp"
#include "staticflow/graph/child_refs.hpp"
#include "staticflow/graph/custom_gradient.hpp"
#include "staticflow/graph/external.hpp"
#include "staticflow/graph/shape_ops.hpp"
#include "staticflow/graph/shared.hpp"
#include "staticflow/graph/traversal.hpp"
#include "staticflow/plan/plan.hpp"

namespace staticflow::autodiff::detail {

/// Every read of one sf::variable as a gradient source: the leaves of type external<T, S> whose
/// source belongs to the variable (`origin`). Reads are separate leaves (each sees the assignments
/// recorded before it), and the gradient with respect to the variable is the sum over all of them,
/// as TensorFlow's tape sums over every ReadVariableOp of a watched variable.
template <class T, class S>
struct variable_source {
  const void* origin;
};

/// The leaf type a source stands for: the source itself (an argument, one external value), or the
/// reads of a variable.
template <class Source>
struct source_leaf {
  using type = Source;
};
template <class T, class S>
struct source_leaf<variable_source<T, S>> {
  using type = graph::external<T, S>;
};
template <class Source>
using source_leaf_t = typename source_leaf<Source>::type;

// The nodes that hold graphs of their own besides their children (control/cond.hpp,
// control/while_loop.hpp), and their results.
template <class N> struct is_branch_node : std::false_type {};
template <class Kind, class P, class... B> struct is_branch_node<graph::branch_node<Kind, P, B...>> : std::true_type {};
template <class N> struct is_branch_output : std::false_type {};
template <std::size_t K, class Kind, class P, class... B>
struct is_branch_output<graph::output_of<K, graph::branch_node<Kind, P, B...>>> : std::true_type {};
template <class N> struct is_bound_variable : std::false_type {};
template <class Scope, std::size_t K, class T, class S>
struct is_bound_variable<graph::bound_variable<Scope, K, T, S>> : std::true_type {};
/// Whether Leaf is a variable of the loop scope Scope (inside that loop's own condition and body,
/// its name is the loop's variable, not an outer value: replace_leaf does not go there).
template <class Leaf, class Scope> struct is_variable_of : std::false_type {};
template <class Scope, std::size_t K, class T, class S>
struct is_variable_of<graph::bound_variable<Scope, K, T, S>, Scope> : std::true_type {};
template <class N> struct is_while_node : std::false_type {};
template <class Scope, class I, class C, class B>
struct is_while_node<graph::while_node<Scope, I, C, B>> : std::true_type {};
template <class N> struct is_loop_output : std::false_type {};
template <std::size_t K, class Scope, class I, class C, class B>
struct is_loop_output<graph::output_of<K, graph::while_node<Scope, I, C, B>>> : std::true_type {};
/// Instantiated (once per added loop, whichever of its results the walk meets) for a second walk
/// through a differentiated loop.
template <class Loop>
struct second_derivative_through_loop {
  static_assert(staticflow::detail::always_false<Loop>,
                "staticflow: a second derivative through sf::while_loop / sf::fori_loop with run-time bounds "
                "(sf::jvp, sf::hessian_vector_product, a gradient of a gradient) is not supported yet; a loop "
                "with sf::static_value bounds is unrolled while tracing and has them");
};
/// A result of the loops a differentiated loop adds (autodiff/loop_backprop.hpp): shared nodes.
template <class N> struct is_derived_loop_output : std::false_type {};
template <std::size_t K, class Key>
  requires is_while_node<typename Key::held_type>::value
struct is_derived_loop_output<graph::output_of<K, graph::shared_node<Key>>> : std::true_type {};

/// Whether node type N can depend on the leaf type Source (through a custom gradient's inputs,
/// where the reverse walk goes, rather than its forward graph). A class, so that it is worked out
/// once per pair of types (clang does not cache constexpr calls, and a graph with shared nodes has
/// many more paths than types), read as `::value`: not a variable with lambdas, since g++ gives
/// each function and variable it instantiates a mangled name, here one holding the node's type
/// (docs/architecture.md, "What a call site costs the compiler"). Case 0: its children; 1: the
/// source; 2: a custom gradient (its inputs); 3: a cond / switch_case (its branches are graphs of
/// their own, not children); 4: a loop (its condition and body read captured values besides the
/// loop variables).
template <class Source, class N,
          int Case = std::is_same<N, source_leaf_t<Source>>::value      ? 1
                     : graph::detail::is_custom_gradient<N>::value      ? 2
                     : is_branch_node<N>::value                          ? 3
                     : is_while_node<N>::value                           ? 4
                                                                         : 0>
struct reaches_node;
/// Whether any graph of a tuple (of nodes, or of tuples of nodes: a cond's branches) reaches Source.
template <class Source, class Tuple>
constexpr bool reaches_any() {
  return []<class... E>(std::type_identity<std::tuple<E...>>) {
    return ([] {
      if constexpr (symbolic<E>) return reaches_node<Source, std::remove_cvref_t<E>>::value;
      else return reaches_any<Source, E>();
    }() || ...);
  }(std::type_identity<Tuple>{});
}

template <class Source, class Kids>
struct reaches_some;
template <class Source, template <class...> class List, class... K>
struct reaches_some<Source, List<K...>> : std::bool_constant<(reaches_node<Source, std::remove_cvref_t<K>>::value || ...)> {};
template <class Source, class N>
struct reaches_node<Source, N, 0> : reaches_some<Source, graph::detail::child_list_t<N>> {};
template <class Source, class N>
struct reaches_node<Source, N, 1> : std::true_type {};
template <class Source, class N>
struct reaches_node<Source, N, 2> : reaches_some<Source, decltype(N::inputs)> {};
template <class Source, class N>
struct reaches_node<Source, N, 3>
    : std::bool_constant<reaches_node<Source, decltype(N::pred)>::value || reaches_any<Source, decltype(N::branches)>()> {};
template <class Source, class N>
struct reaches_node<Source, N, 4>
    : std::bool_constant<reaches_any<Source, decltype(N::inits)>() || reaches_node<Source, decltype(N::cond)>::value ||
                         reaches_any<Source, decltype(N::body)>()> {};

template <class Leaf, class N, class R>
constexpr auto replace_leaf(const N& n, const R& r);
/// replace_leaf over each graph of a tuple (a cond branch's results, a loop's variables).
template <class Leaf, class... N, class R>
constexpr auto replace_leaf_in_each(const std::tuple<N...>& graphs, const R& r) {
  return staticflow::detail::apply([&](const auto&... x) { return std::tuple{replace_leaf<Leaf>(x, r)...}; }, graphs);
}

/// n with every leaf of type Leaf replaced by r (r has the leaf's spec). Subgraphs that do not
/// reach the leaf are kept as they are. It goes wherever reaches_node looks: besides the children,
/// a cond's branches, a loop's condition and body (graphs over the same leaves as the graph around
/// them, plus the loop's own variables, which are other leaves) and a custom gradient's inputs. So
/// the reverse loop of a loop (autodiff/loop_backprop.hpp) can read the loop's variables from its
/// stacks wherever the body's adjoint holds them: inside the branches of a cond's adjoint, in a
/// nested loop's reverse loops.
template <class Leaf, class N, class R>
constexpr auto replace_leaf(const N& n, const R& r) {
  if constexpr (std::is_same<N, Leaf>::value) {
    return r;
  } else if constexpr (!reaches_node<Leaf, N>::value) {
    return n;
  } else if constexpr (is_branch_node<N>::value) {
    const auto pred = replace_leaf<Leaf>(n.pred, r);
    return staticflow::detail::apply([&](const auto&... b) {
      return graph::branch_node<typename N::kind, std::remove_cvref_t<decltype(pred)>,
                                std::remove_cvref_t<decltype(replace_leaf_in_each<Leaf>(b, r))>...>{
          {}, pred, {replace_leaf_in_each<Leaf>(b, r)...}};
    }, n.branches);
  } else if constexpr (is_while_node<N>::value) {
    return [&]<class Scope, class I, class C, class B>(std::type_identity<graph::while_node<Scope, I, C, B>>) {
      const auto inits = replace_leaf_in_each<Leaf>(n.inits, r);
      constexpr bool own = is_variable_of<Leaf, Scope>::value;  // (shadowed inside)
      const auto cond = [&] {
        if constexpr (own) return n.cond;
        else return replace_leaf<Leaf>(n.cond, r);
      }();
      const auto body = [&] {
        if constexpr (own) return n.body;
        else return replace_leaf_in_each<Leaf>(n.body, r);
      }();
      // (a copy computes its values: the effects of a body, run by the original loop, are not
      // run again, as loop_backprop's stacked loop does not run them)
      return graph::while_node<Scope, std::remove_cvref_t<decltype(inits)>, std::remove_cvref_t<decltype(cond)>,
                               std::remove_cvref_t<decltype(body)>>{{}, inits, cond, body, n.max_iterations};
    }(std::type_identity<N>{});
  } else if constexpr (graph::detail::is_custom_gradient<N>::value) {
    const auto y = replace_leaf<Leaf>(n.y, r);
    const auto inputs = replace_leaf_in_each<Leaf>(n.inputs, r);
    return staticflow::detail::apply([&](const auto&... x) {
      return graph::custom_gradient<std::remove_cvref_t<decltype(y)>, decltype(n.vjp), std::remove_cvref_t<decltype(x)>...>(
          y, n.vjp, inputs);
    }, inputs);
  } else {
    const auto kids = graph::children(n);
    return [&]<std::size_t... K>(std::index_sequence<K...>) {
      return graph::with_children(n, replace_leaf<Leaf>(graph::child<K>(kids), r)...);
    }(std::make_index_sequence<std::tuple_size<std::remove_cvref_t<decltype(kids)>>::value>{});
  }
}

template <class N>
concept carries_adjoint = floating_dtype<typename N::value_type>;  // (a concept: no mangled variable per node)

/// The adjoint a leaf of the source's type sends: g itself for an argument (its type is its
/// identity); for a value read from outside, g where its source is the one asked for (for a
/// variable_source, where it is a read of that variable), else 0.
template <class Leaf, class G, class Source>
constexpr auto leaf_adjoint(const Leaf& leaf, const G& g, const Source& source) {
  using T = typename G::value_type;
  if constexpr (graph::detail::is_argument<Leaf>::value || is_bound_variable<Leaf>::value) {
    return g;  // (a loop variable is a source inside a differentiated loop body: autodiff/loop_backprop.hpp)
  } else if constexpr (graph::detail::is_shared<Leaf>::value) {
    return g;  // an accumulation point (below): what the walk sends it
  } else if constexpr (!std::is_same<Leaf, Source>::value) {  // a variable_source: any read of that variable
    return where(graph::literal<bool>(leaf.source->origin == source.origin), g, T(0));
  } else {
    return where(graph::literal<bool>(leaf.source == source.source), g, T(0));
  }
}

/// g, broadcast to n's shape where it does not cover it already.
template <class G, class N>
constexpr auto covering(const G& g, const N& n) {
  using GS = typename G::shape_type;
  if constexpr (std::is_same<broadcast_shape_t<GS, typename N::shape_type>, GS>::value) return g;
  else return broadcast_like(g, n);
}

/// A node's path from the differentiated root: child K of the node at path Parent (the root's path
/// is std::index_sequence<>). Nested rather than one std::index_sequence<I...>: the tags of the
/// shared nodes below a node hold the prefixes of its path, and a mangled name spells a sequence's
/// every index again for each prefix (a depth-d adjoint's name held d^2 / 2 indices), while a
/// nested prefix that occurs again is one back-reference.
template <class Parent, std::size_t K>
struct path_step {};
template <class Path, std::size_t K>
struct append_index {
  using type = path_step<Path, K>;
};

/// Whether the gradient builder marks node N as shared (graph/shared.hpp): a materialized node
/// with one value that computes something (not a value read from outside).
template <class N>
constexpr bool shareable() {
  return !graph::detail::is_shared<N>::value && plan::shareable_as_is<N>::value;
}

/// m marked shared: keyed by its type where the type determines its values, else by its path.
template <class Root, class Path, class M>
constexpr auto shared_at(const M& m) {
  if constexpr (graph::value_free_v<M>) return graph::shared_node<decltype(graph::typed_value_key<M>())>(m);
  else return graph::shared<graph::path_tag<Root, Path>, M>(m);
}

/// n with every materialized node below it marked shared: the adjoint rules copy forward nodes into
/// every gradient, and the copies of one node then have one type, which the planner computes and
/// compiles once. A node whose type determines its values is keyed by its type, so that copies a
/// program made by hand (`auto m = sf::matmul(a, b); m * m + m`) are one node too, which the
/// reverse walk meets as one accumulation point; any other by its path from the root
/// (path_tag<Root, path>: copies of it at different paths are different nodes). A deep elementwise
/// node that its parent's rule reads (Read) is stored and shared the same way
/// (autodiff/forward_values.hpp).
template <class Root, class Path, class N, bool Read = false>
constexpr auto share_materialized(const N& n) {
  using kids = decltype(graph::children(n));
  if constexpr (std::tuple_size<kids>::value == 0 || graph::detail::is_shared<N>::value) {
    // (a node shared already, an unrolled loop's step, keeps its type: rebuilt on every path to
    // it, its copies would get different tags, and the walk would grow as the paths do)
    return n;
  } else {
    const auto rebuilt = [&]<std::size_t... K>(std::index_sequence<K...>) {
      const auto c = graph::children(n);
      return graph::with_children(
          n, share_materialized<Root, typename append_index<Path, K>::type, std::remove_cvref_t<decltype(graph::child<K>(c))>,
                                rule_reads_child_v<N, K>>(graph::child<K>(c))...);
    }(std::make_index_sequence<std::tuple_size<kids>::value>{});
    using R = std::remove_cvref_t<decltype(rebuilt)>;
    if constexpr (shareable<R>()) return shared_at<Root, Path>(rebuilt);
    else if constexpr (Read && carries_adjoint<R> && !plan::materializes<R>::value && fused_leaf_count<R>::value > stored_forward_leaves)
      return shared_at<Root, Path>(graph::stored<R>(rebuilt));
    else return rebuilt;
  }
}

/// The tag of the adjoint at the node with this path (graph/shared.hpp).
template <class Path>
struct adjoint_at {};

/// g, marked shared when it holds a materialized node of its own (a reduction or matmul that a
/// rule made): the adjoint at one node is the same for every source, and each source's walk would
/// otherwise copy it, and compile it, into its gradient. An adjoint of elementwise ops only stays
/// as it is, fused into the loops below it.
template <class G>
struct scalar_broadcast : std::false_type {};
template <class A, class Ref>
struct scalar_broadcast<graph::broadcast_as<A, Ref>> : std::bool_constant<A::shape_type::rank == 0> {};

template <class Root, class Path, class G>
constexpr auto share_adjoint(const G& g) {
  if constexpr (plan::materialized_count<G>::value == 0 && fused_leaf_count<G>::value <= stored_adjoint_leaves) {
    return g;
  } else if constexpr (scalar_broadcast<G>::value) {
    // a scalar spread over the node's shape (a mean's 1 / count): the scalar is stored, the
    // spreading stays elementwise and fuses (storing it wrote a whole array of one value)
    using A = std::remove_cvref_t<decltype(g.a)>;
    using Ref = std::remove_cvref_t<decltype(g.ref)>;
    using S = graph::shared<graph::path_tag<Root, adjoint_at<Path>>, graph::stored<A>>;
    return graph::broadcast_as<S, Ref>(S(graph::stored<A>(g.a)), g.ref);
  } else {
    return graph::shared<graph::path_tag<Root, adjoint_at<Path>>, graph::stored<G>>(graph::stored<G>(g));
  }
}

template <class Root, class Path, class N, class G, class Source>
constexpr auto backprop(const N& n, const G& g, const Source& source);

/// How one walk of a reverse accumulation (below) treats what it meets. Stops: the accumulation
/// points (a std::tuple of node types), whose adjoints are summed apart: the walk sends them
/// nothing, unless one is its source. ToPoint: the source is one of them; then the walk does not
/// enter custom gradients, conds and loops either (a path through one of those reaches the source
/// of the gradient through that node's own walk, which is not stopped by the points).
template <class Stops, bool ToPoint>
struct walk_mode {
  using stops = Stops;
  static constexpr bool to_point = ToPoint;
};
using plain_walk = walk_mode<std::tuple<>, false>;

template <class N, class Tuple>
inline constexpr bool in_tuple_v = false;
template <class N, class... T>
inline constexpr bool in_tuple_v<N, std::tuple<T...>> = (std::is_same<N, T>::value || ...);

template <class Root, class Path, class Mode, class N, class G, class Source, std::size_t... K>
constexpr auto local_backprop(const N& n, const G& g, const Source& source, std::index_sequence<K...>);

template <class Root, class Path, class Mode, std::size_t K, class N, class G, class Child, class Source>
constexpr auto child_backprop(const N& n, const G& g, const Child& child, const Source& source) {
  if constexpr (!reaches_node<Source, Child>::value || !carries_adjoint<Child>) {
    return zero_adjoint{};
  } else {
    const auto adjoint = child_adjoint<K>(n, g);
    if constexpr (is_zero<decltype(adjoint)>) return zero_adjoint{};
    else return local_backprop<Root, typename append_index<Path, K>::type, Mode>(child, adjoint, source, graph::detail::child_indices<Child>{});
  }
}

template <class G>
constexpr auto gradients_as_tuple(const G& g) {
  if constexpr (requires { std::tuple_size<G>::value; }) return staticflow::detail::apply([](const auto&... e) { return std::tuple{e...}; }, g);
  else return std::tuple<G>{g};
}

/// The adjoint a custom gradient's input X sends to the source, given the adjoint `given` that the
/// user's vjp returned for it (a graph or a number; brought to X's spec first, summed over the axes
/// X was broadcast along).
template <class Root, class Path, class X, class Given, class Source>
constexpr auto custom_input_backprop(const X& x, const Given& given, const Source& source) {
  if constexpr (!reaches_node<Source, X>::value || !carries_adjoint<X>) {
    return zero_adjoint{};
  } else {
    const auto g = staticflow::detail::as_node<X>(given);
    using GS = typename std::remove_cvref_t<decltype(g)>::shape_type;
    static_assert(staticflow::detail::shapes_broadcast<GS, typename X::shape_type>(),
                  "staticflow: sf::custom_gradient: a gradient the vjp returned does not broadcast to its input's "
                  "shape (the input's position and both shapes are in the instantiation context)");
    if constexpr (!staticflow::detail::shapes_broadcast<GS, typename X::shape_type>()) return zero_adjoint{};
    else return backprop<Root, Path>(x, to_value_spec(g, x), source);
  }
}

/// A custom gradient's node: the walk does not enter its forward graph; each input gets what the
/// user's vjp returns for it (child paths 1, 2, ...: 0 is the forward graph, the node's child).
template <class Root, class Path, class N, class G, class Source>
constexpr auto custom_backprop(const N& n, const G& g, const Source& source) {
  constexpr std::size_t inputs = std::tuple_size<decltype(n.inputs)>::value;
  const auto given = gradients_as_tuple(n.vjp(g));
  constexpr std::size_t returned = std::tuple_size<std::remove_cvref_t<decltype(given)>>::value;
  static_assert(returned == inputs,
                "staticflow: sf::custom_gradient: the vjp must return one gradient per input of the function "
                "(a std::tuple when there are several)");
  if constexpr (returned != inputs) {
    return zero_adjoint{};
  } else {
    return [&]<std::size_t... K>(std::index_sequence<K...>) {
      return sum_adjoints<typename source_leaf_t<Source>::shape_type>(custom_input_backprop<Root, typename append_index<Path, K + 1>::type>(
          staticflow::detail::get<K>(n.inputs), staticflow::detail::get<K>(given), source)...);
    }(std::make_index_sequence<inputs>{});
  }
}

/// The adjoint g (a source's contribution, possibly unreduced, or zero) brought to the source's
/// spec: what each branch of a differentiated cond returns, so that the branches agree.
template <class G, class Source>
constexpr auto at_source_spec(const G& g, const Source& source) {
  using L = source_leaf_t<Source>;
  using T = typename L::value_type;
  using S = typename L::shape_type;
  // A source that is a leaf holds its run-time extents; a variable's reads (many leaves) do not.
  constexpr bool has_extents = S::is_static || std::is_same<L, Source>::value;
  static_assert(has_extents,
                "staticflow: sf::gradients through sf::cond / sf::switch_case with respect to an sf::variable "
                "of run-time shape are not supported yet");
  const auto full = [&] {
    if constexpr (is_zero<G>) return graph::literal<T>(T(0));
    else return as_dtype<T>(sum_to_shape<S>(g));
  }();
  using F = std::remove_cvref_t<decltype(full)>;
  if constexpr (std::is_same<typename F::shape_type, S>::value || !has_extents) return full;
  else if constexpr (S::is_static) return graph::broadcast<S, F>(full);
  else return broadcast_like(full, source);
}

/// Path followed by child indices K... (path_step per index).
template <class Path, std::size_t... K>
struct append_indices {
  using type = Path;
};
template <class Path, std::size_t K0, std::size_t... K>
struct append_indices<Path, K0, K...> : append_indices<path_step<Path, K0>, K...> {};

/// Result K of a cond / switch_case: a cond on the same predicate whose branch J returns what the
/// source receives through branch J's K-th result, at the source's spec. Only the branch taken
/// runs, forward values it needs included (TensorFlow's rule for tf.cond). Paths: (0: the node,
/// J + 1: branch J, K: its result).
template <class Root, class Path, std::size_t K, class Kind, class P, class... B, class G, class Source>
constexpr auto branch_backprop(const graph::output_of<K, graph::branch_node<Kind, P, B...>>& n, const G& g,
                               const Source& source) {
  const auto& forward = n.source;
  const auto adjoints = [&]<std::size_t... J>(std::index_sequence<J...>) {
    return std::tuple{std::tuple{at_source_spec(
        backprop<Root, typename append_indices<Path, 0, J + 1, K>::type>(staticflow::detail::get<K>(staticflow::detail::get<J>(forward.branches)), g, source),
        source)}...};
  }(std::index_sequence_for<B...>{});
  return staticflow::detail::apply([&](const auto&... a) {
    const graph::branch_node<Kind, P, std::remove_cvref_t<decltype(a)>...> backward{{}, forward.pred, {a...}};
    return graph::output_of<0, std::remove_cvref_t<decltype(backward)>>(backward);
  }, adjoints);
}

template <class Root, class Path, std::size_t K, class Scope, class I, class C, class B, class G, class Source>
constexpr auto loop_backprop(const graph::output_of<K, graph::while_node<Scope, I, C, B>>& n, const G& g,
                             const Source& source);

/// Whether the reverse walk enters node N through its children (graph::children): not a custom
/// gradient's, a cond's or a loop's result, whose rules walk graphs of their own.
template <class N>
inline constexpr bool walked_by_children_v = !graph::detail::is_custom_gradient<N>::value && !is_branch_output<N>::value &&
                                             !is_loop_output<N>::value && !is_derived_loop_output<N>::value;

/// The number of paths from node N down to node S that carry an adjoint (through float nodes the
/// walk enters by their children), counted up to 2. One class per pair of types: a graph with
/// shared nodes has few types and many paths.
/// (A class read as `::value`, as reaches_node above.) Case 0: its children; 1: S itself; 2: a
/// node the walk does not enter by its children, or one that carries no adjoint.
template <class S, class N, int Case = std::is_same<S, N>::value ? 1 : (!walked_by_children_v<N> || !carries_adjoint<N>) ? 2 : 0>
struct paths_to;
template <class S, class Kids>
struct paths_to_children;
template <class S, template <class...> class List, class... K>
struct paths_to_children<S, List<K...>>
    : std::integral_constant<std::size_t, std::min((std::size_t{0} + ... + paths_to<S, std::remove_cvref_t<K>>::value), std::size_t{2})> {};
template <class S, class N>
struct paths_to<S, N, 0> : paths_to_children<S, graph::detail::child_list_t<N>> {};
template <class S, class N>
struct paths_to<S, N, 1> : std::integral_constant<std::size_t, 1> {};
template <class S, class N>
struct paths_to<S, N, 2> : std::integral_constant<std::size_t, 0> {};

// The shared nodes below a node (along the edges the walk takes), each before the shared nodes
// inside it: reverse post-order, a topological order from the root down.
template <class L, class N, bool Enter = walked_by_children_v<N>>
struct shared_below;
template <class L, class Kids>
struct shared_below_fold;
template <class L>
struct shared_below_fold<L, std::tuple<>> {
  using type = L;
};
template <class L, class K0, class... K>
struct shared_below_fold<L, std::tuple<K0, K...>> {
  using type = typename shared_below_fold<typename shared_below<L, std::remove_cvref_t<K0>>::type, std::tuple<K...>>::type;
};
template <class L, class N>
struct shared_below<L, N, false> {
  using type = L;
};
template <class L, class N>
struct shared_below<L, N, true> {
  // (the children as a std::tuple first: two levels of template instantiation per graph level,
  // as plan.hpp's prelude_add)
  using kids = typename plan::detail::kids_as_tuple<decltype(graph::children(std::declval<const N&>()))>::type;
  using type = typename shared_below_fold<L, kids>::type;
};
// A shared node met again is not walked again (one class per case: see plan.hpp's prelude_add).
template <class L, class S, bool Seen = in_tuple_v<S, L>>
struct shared_below_once {
  using type = L;
};
template <class... T, class S>
struct shared_below_once<std::tuple<T...>, S, false> {
  using inside = typename shared_below<std::tuple<T...>, typename S::held_type>::type;
  using type = decltype(std::tuple_cat(std::declval<std::tuple<S>>(), std::declval<inside>()));
};
template <class L, class Key>
struct shared_below<L, graph::shared_node<Key>, true> : shared_below_once<L, graph::shared_node<Key>> {};

/// The accumulation points of a walk from N: its float shared nodes reached along two paths or
/// more, root side first. A point's adjoint is summed once from everything above it and then sent
/// down its subtree once; a walk over paths would differentiate the subtree once per path, which
/// grows as uses^depth (an unrolled loop whose body reads its variable three times: 3^steps).
template <class N, class Shared = typename shared_below<std::tuple<>, N>::type>
struct accumulation_points;
template <class N, class... S>
struct accumulation_points<N, std::tuple<S...>> {
  using type = decltype(std::tuple_cat(
      std::declval<std::conditional_t<carries_adjoint<S> && (paths_to<S, N>::value >= 2), std::tuple<S>, std::tuple<>>>()...));
};

/// A copy of the (first) node of type S below n.
template <class S, class N>
constexpr S find_node(const N& n) {
  if constexpr (std::is_same<N, S>::value) {
    return n;
  } else {
    const auto kids = graph::children(n);
    using Kids = std::remove_cvref_t<decltype(kids)>;
    constexpr std::size_t k = []<std::size_t... K>(std::index_sequence<K...>) {
      std::size_t first = sizeof...(K);
      ((first == sizeof...(K) && paths_to<S, std::remove_cvref_t<std::tuple_element_t<K, Kids>>>::value > 0 ? first = K : first), ...);
      return first;
    }(std::make_index_sequence<std::tuple_size<Kids>::value>{});
    return find_node<S>(graph::child<k>(kids));
  }
}

/// The tags of the walk from accumulation point S of the walk from (Root, Path), and of its summed
/// adjoint (graph/shared.hpp).
template <class Root, class Path, class S>
struct accumulated_at {};
struct adjoint_sum {};
/// The key of a point's summed adjoint: a local class, so that the node's type does not nest the
/// types of the adjoints above it (as template arguments, nested adjoints made g++'s overload
/// resolution take time that grows as uses^depth: the key of control/fori_loop.hpp's steps).
template <class Tag, class M>
constexpr auto adjoint_sum_key() {
  struct key : graph::shared_key<Tag, M> {};
  return key{};
}

/// What the walk from point J (seeded with its adjoint, or zero) sends to the source.
template <class Root, class Path, class Points, std::size_t J, class Mode, class N, class A, class Source>
constexpr auto from_point(const N& root, const A& adjoint, const Source& source) {
  using P = std::tuple_element_t<J, Points>;
  if constexpr (is_zero<A> || !reaches_node<Source, typename P::held_type>::value) {
    return zero_adjoint{};
  } else {
    const P point = find_node<P>(root);
    return local_backprop<accumulated_at<Root, Path, P>, std::index_sequence<>, Mode>(point.value(), adjoint, source,
                                                                                     graph::detail::child_indices<typename P::held_type>{});
  }
}

/// The adjoint of accumulation point I (given those of the points before it): what the root's walk
/// and the points above it send it, summed, brought to its spec and stored (one value, computed
/// once, however many nodes below read it). Zero for a point that does not reach the source.
template <class Root, class Path, class Points, std::size_t I, class N, class G, class Source, class Before>
constexpr auto point_adjoint(const N& root, const G& g, const Source&, const Before& before) {
  using S = std::tuple_element_t<I, Points>;
  if constexpr (!reaches_node<Source, S>::value) {
    return zero_adjoint{};
  } else {
    using Mode = walk_mode<Points, true>;
    const S point = find_node<S>(root);
    const auto sum = [&]<std::size_t... J>(std::index_sequence<J...>) {
      return sum_adjoints<typename S::shape_type>(local_backprop<Root, Path, Mode>(root, g, point, graph::detail::child_indices<N>{}),
                                                  from_point<Root, Path, Points, J, Mode>(root, staticflow::detail::pack_get<J>(before), point)...);
    }(std::make_index_sequence<I>{});
    if constexpr (is_zero<decltype(sum)>) {
      return zero_adjoint{};
    } else {
      const auto a = to_value_spec(sum, point);
      using A = std::remove_cvref_t<decltype(a)>;
      using Key = decltype(adjoint_sum_key<graph::path_tag<accumulated_at<Root, Path, S>, adjoint_sum>, graph::stored<A>>());
      return graph::shared_node<Key>(graph::stored<A>(a));
    }
  }
}

template <class Root, class Path, class Points, std::size_t I, class N, class G, class Source, class Before>
constexpr auto point_adjoints(const N& root, const G& g, const Source& source, const Before& before) {
  if constexpr (I == std::tuple_size<Points>::value) {
    return before;
  } else {
    // (a value_pack, not a std::tuple: as in the planner's collect, this avoids one std::tuple
    // type, with its constructors' constraints, per point; not measured on its own)
    auto next = staticflow::detail::pack_concat(
        before, staticflow::detail::pack_of(point_adjoint<Root, Path, Points, I>(root, g, source, before)));
    return point_adjoints<Root, Path, Points, I + 1>(root, g, source, next);
  }
}

/// Root and Path name node n (the differentiated graph's type, n's child indices from it): the
/// tags of shared adjoints. Reverse accumulation in topological order: the adjoints of n's
/// accumulation points first (root side first), then what the root's walk and each point's walk
/// send the source, each walk stopping at the points. With no point it is one walk over n.
template <class Root, class Path, class N, class G, class Source>
constexpr auto backprop(const N& n, const G& g, const Source& source) {
  using Points = typename accumulation_points<N>::type;
  if constexpr (std::tuple_size<Points>::value == 0 || !reaches_node<Source, N>::value) {
    return local_backprop<Root, Path, plain_walk>(n, g, source, graph::detail::child_indices<N>{});
  } else {
    using Mode = walk_mode<Points, false>;
    const auto adjoints = point_adjoints<Root, Path, Points, 0>(n, g, source, staticflow::detail::value_pack<>{});
    return [&]<std::size_t... J>(std::index_sequence<J...>) {
      return sum_adjoints<typename source_leaf_t<Source>::shape_type>(
          local_backprop<Root, Path, Mode>(n, g, source, graph::detail::child_indices<N>{}), from_point<Root, Path, Points, J, Mode>(n, staticflow::detail::pack_get<J>(adjoints), source)...);
    }(std::make_index_sequence<std::tuple_size<Points>::value>{});
  }
}

/// One walk over n (see walk_mode): the sum, over n's children that depend on the source, of each
/// child's walk with the adjoint the child's rule gives it. K...: n's child indices
/// (graph::detail::child_indices<N>), passed by the caller: expanded here, rather than in an
/// index_sequence lambda or a helper function, they cost no closure type and no function of their
/// own per node, each named after this one.
template <class Root, class Path, class Mode, class N, class G, class Source, std::size_t... K>
constexpr auto local_backprop(const N& n, const G& g, const Source& source, std::index_sequence<K...>) {
  if constexpr (!reaches_node<Source, N>::value || !carries_adjoint<N>) {
    return zero_adjoint{};
  } else if constexpr (!std::is_same<N, source_leaf_t<Source>>::value &&
                       (in_tuple_v<N, typename Mode::stops> || (Mode::to_point && !walked_by_children_v<N>))) {
    return zero_adjoint{};
  } else {
    const auto gd = as_dtype<typename N::value_type>(g);
    if constexpr (std::is_same<N, source_leaf_t<Source>>::value) {
      return leaf_adjoint(n, gd, source);
    } else if constexpr (graph::detail::is_custom_gradient<N>::value) {
      return custom_backprop<Root, Path>(n, share_adjoint<Root, Path>(covering(gd, n)), source);
    } else if constexpr (is_branch_output<N>::value) {
      return branch_backprop<Root, Path>(n, covering(gd, n), source);
    } else if constexpr (is_loop_output<N>::value) {
      return loop_backprop<Root, Path>(n, covering(gd, n), source);  // autodiff/loop_backprop.hpp
    } else if constexpr (is_derived_loop_output<N>::value) {
      (void)sizeof(second_derivative_through_loop<std::remove_cvref_t<decltype(n.source)>>);
      return zero_adjoint{};
    } else {
      // The adjoint must cover n's shape before it is handed to n's children: a child that n
      // broadcast is summed over the broadcast axes later, and a smaller adjoint (a seed, a
      // reduction's) would lose how many times the child was used.
      const auto gn = share_adjoint<Root, Path>(covering(gd, n));
      [[maybe_unused]] const auto kids = graph::children(n);
      return sum_adjoints<typename source_leaf_t<Source>::shape_type>(
          child_backprop<Root, Path, Mode, K>(n, gn, graph::child<K>(kids), source)...);
    }
  }
}

}  // namespace staticflow::autodiff::detail

#include "staticflow/autodiff/loop_backprop.hpp"  // (needs backprop, which calls it)
