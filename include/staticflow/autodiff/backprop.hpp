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

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticflow/autodiff/adjoint_shape.hpp"
#include "staticflow/autodiff/rules.hpp"
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

/// Whether node type N can depend on the leaf type Source.
template <class Source, class N>
constexpr bool reaches() {
  if constexpr (std::is_same_v<N, source_leaf_t<Source>>) {
    return true;
  } else {
    using kids = decltype(graph::children(std::declval<const N&>()));
    return []<std::size_t... K>(std::index_sequence<K...>) {
      return (reaches<Source, std::remove_cvref_t<std::tuple_element_t<K, kids>>>() || ...);
    }(std::make_index_sequence<std::tuple_size_v<kids>>{});
  }
}

template <class N>
inline constexpr bool carries_adjoint = floating_dtype<typename N::value_type>;

/// The adjoint a leaf of the source's type sends: g itself for an argument (its type is its
/// identity); for a value read from outside, g where its source is the one asked for (for a
/// variable_source, where it is a read of that variable), else 0.
template <class Leaf, class G, class Source>
constexpr auto leaf_adjoint(const Leaf& leaf, const G& g, const Source& source) {
  using T = typename G::value_type;
  if constexpr (graph::detail::is_argument<Leaf>::value) {
    return g;
  } else if constexpr (!std::is_same_v<Leaf, Source>) {  // a variable_source: any read of that variable
    return where(graph::literal<bool>(leaf.source->origin == source.origin), g, T(0));
  } else {
    return where(graph::literal<bool>(leaf.source == source.source), g, T(0));
  }
}

/// g, broadcast to n's shape where it does not cover it already.
template <class G, class N>
constexpr auto covering(const G& g, const N& n) {
  using GS = typename G::shape_type;
  if constexpr (std::is_same_v<broadcast_shape_t<GS, typename N::shape_type>, GS>) return g;
  else return broadcast_like(g, n);
}

template <class Path, std::size_t K>
struct append_index;
template <std::size_t... I, std::size_t K>
struct append_index<std::index_sequence<I...>, K> {
  using type = std::index_sequence<I..., K>;
};

/// The tag of the adjoint at the node with this path (graph/shared.hpp).
template <class Path>
struct adjoint_at {};

/// g, marked shared when it holds a materialized node of its own (a reduction or matmul that a
/// rule made): the adjoint at one node is the same for every source, and each source's walk would
/// otherwise copy it, and compile it, into its gradient. An adjoint of elementwise ops only stays
/// as it is, fused into the loops below it.
template <class Root, class Path, class G>
constexpr auto share_adjoint(const G& g) {
  if constexpr (plan::materialized_count<G>() == 0) return g;
  else return graph::shared<graph::path_tag<Root, adjoint_at<Path>>, graph::stored<G>>(graph::stored<G>(g));
}

template <class Root, class Path, class N, class G, class Source>
constexpr auto backprop(const N& n, const G& g, const Source& source);

template <class Root, class Path, std::size_t K, class N, class G, class Child, class Source>
constexpr auto child_backprop(const N& n, const G& g, const Child& child, const Source& source) {
  if constexpr (!reaches<Source, Child>() || !carries_adjoint<Child>) {
    return zero_adjoint{};
  } else {
    const auto adjoint = child_adjoint<K>(n, g);
    if constexpr (is_zero<decltype(adjoint)>) return zero_adjoint{};
    else return backprop<Root, typename append_index<Path, K>::type>(child, adjoint, source);
  }
}

/// Root and Path name node n (the differentiated graph's type, n's child indices from it): the
/// tags of shared adjoints.
template <class Root, class Path, class N, class G, class Source>
constexpr auto backprop(const N& n, const G& g, const Source& source) {
  if constexpr (!reaches<Source, N>() || !carries_adjoint<N>) {
    return zero_adjoint{};
  } else {
    const auto gd = as_dtype<typename N::value_type>(g);
    if constexpr (std::is_same_v<N, source_leaf_t<Source>>) {
      return leaf_adjoint(n, gd, source);
    } else {
      // The adjoint must cover n's shape before it is handed to n's children: a child that n
      // broadcast is summed over the broadcast axes later, and a smaller adjoint (a seed, a
      // reduction's) would lose how many times the child was used.
      const auto gn = share_adjoint<Root, Path>(covering(gd, n));
      const auto kids = graph::children(n);
      return [&]<std::size_t... K>(std::index_sequence<K...>) {
        return sum_adjoints(child_backprop<Root, Path, K>(n, gn, std::get<K>(kids), source)...);
      }(std::make_index_sequence<std::tuple_size_v<std::remove_cvref_t<decltype(kids)>>>{});
    }
  }
}

}  // namespace staticflow::autodiff::detail
