// staticflow/autodiff/forward_values.hpp -- which forward values, and which adjoints, a gradient
// stores rather than recomputes.
//
// The planner fuses an elementwise adjoint into the loops below it and recomputes there every
// forward value the rules read (a product's other operand, a quotient's divisor): no buffer, and
// for small trees the fastest code. But a deep elementwise tree is then recomputed from the
// arguments in every gradient loop that reads it, once per read, and an adjoint that grows by one
// factor per node is copied into the loop of every leaf below it: in a chain of n operations the
// code handed to the compiler's back end grows as n^2 (bench/compile_time.sh's 50 / 100-node
// gradients at -O2: 250 KB / 1.25 MB of GIMPLE, 22.8 s / 83 s, 1.2 / 3.4 GB; the 200-node one
// 400 s and 9.8 GB).
//
// So the gradient builder (autodiff/backprop.hpp) cuts both trees into pieces of bounded size:
//  * before the reverse walk, each forward node that a rule reads and whose fused tree has more
//    than `stored_forward_leaves` leaves is stored once per call (a shared slot, computed from the
//    slots below it), and every rule, loop and the forward output read that slot;
//  * an adjoint whose fused tree has more than `stored_adjoint_leaves` leaves is stored where the
//    walk made it (one slot for every source, as for an adjoint holding a reduction).
// A fused tree counts a shared node as one leaf: a read of its slot. Small trees stay fused, as
// before: sum(tanh(x * w + b)) and the training step's bias, activation and loss stay in their
// loops.
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticflow/graph/elementwise.hpp"
#include "staticflow/graph/leaf.hpp"
#include "staticflow/graph/math_ops.hpp"
#include "staticflow/graph/scalar_ops.hpp"
#include "staticflow/graph/shape_ops.hpp"
#include "staticflow/graph/shared.hpp"
#include "staticflow/graph/traversal.hpp"

namespace staticflow::autodiff::detail {

/// A forward node a rule reads is stored when its fused tree has more leaves than this.
inline constexpr std::size_t stored_forward_leaves = 4;
/// An adjoint is stored when its fused tree has more leaves than this.
inline constexpr std::size_t stored_adjoint_leaves = 8;

/// How many leaves the tree of node type N has (arguments, literals, values read from outside),
/// shared nodes included.
template <class N>
inline constexpr std::size_t tree_leaf_count_v = [] {
  using kids = decltype(graph::children(std::declval<const N&>()));
  if constexpr (std::tuple_size_v<kids> == 0) {
    return std::size_t{1};
  } else {
    return []<std::size_t... K>(std::index_sequence<K...>) {
      return (std::size_t{0} + ... + tree_leaf_count_v<std::remove_cvref_t<std::tuple_element_t<K, kids>>>);
    }(std::make_index_sequence<std::tuple_size_v<kids>>{});
  }
}();

template <class N>
struct is_broadcast_as : std::false_type {};
template <class A, class Ref>
struct is_broadcast_as<graph::broadcast_as<A, Ref>> : std::true_type {};

/// How many leaves the fused loop of node type N reads: a shared node counts as one (its slot),
/// and the node a broadcast_like takes its extents from counts for nothing (the loop never reads it).
template <class N>
inline constexpr std::size_t fused_leaf_count_v = [] {
  using kids = decltype(graph::children(std::declval<const N&>()));
  if constexpr (graph::detail::is_shared<N>::value || std::tuple_size_v<kids> == 0) {
    return std::size_t{1};
  } else if constexpr (is_broadcast_as<N>::value) {
    return fused_leaf_count_v<std::remove_cvref_t<std::tuple_element_t<0, kids>>>;
  } else {
    return []<std::size_t... K>(std::index_sequence<K...>) {
      return (std::size_t{0} + ... + fused_leaf_count_v<std::remove_cvref_t<std::tuple_element_t<K, kids>>>);
    }(std::make_index_sequence<std::tuple_size_v<kids>>{});
  }
}();

/// Whether every leaf of N is a literal: such an operand never reaches a gradient's source.
template <class N>
inline constexpr bool constant_only_v = [] {
  using kids = decltype(graph::children(std::declval<const N&>()));
  if constexpr (graph::detail::is_shared<N>::value) {
    return false;
  } else if constexpr (std::tuple_size_v<kids> == 0) {
    return std::is_base_of_v<graph::literal<typename N::value_type>, N>;
  } else {
    return []<std::size_t... K>(std::index_sequence<K...>) {
      return (constant_only_v<std::remove_cvref_t<std::tuple_element_t<K, kids>>> && ...);
    }(std::make_index_sequence<std::tuple_size_v<kids>>{});
  }
}();

/// Whether the rules of node N (autodiff/rules.hpp) read the forward value of its child K. Only
/// elementwise nodes are listed: the others materialize what they read, or read a bool.
template <class N, std::size_t K>
inline constexpr bool rule_reads_child_v = false;
template <class Op, class A, std::size_t K>
inline constexpr bool rule_reads_child_v<graph::unary<Op, A>, K> = !(
    // linear or flat ops, and those whose rule reads the node's own value through
    // transcendental_value, which stores it past 4 leaves (sqrt's rule reads its value plainly:
    // its operand counts as read)
    std::is_same_v<Op, op::negate> || std::is_same_v<Op, op::identity> || std::is_same_v<Op, op::stop_gradient> ||
    std::is_same_v<Op, op::floor> || std::is_same_v<Op, op::ceil> || std::is_same_v<Op, op::round> ||
    std::is_same_v<Op, op::sign> || std::is_same_v<Op, op::exp> || std::is_same_v<Op, op::tanh> ||
    std::is_same_v<Op, op::sigmoid> || std::is_same_v<Op, op::reciprocal> || std::is_same_v<Op, op::exp2>);
template <class Op, class A, class B, std::size_t K>
inline constexpr bool rule_reads_child_v<graph::binary<Op, A, B>, K> = [] {
  using other = std::conditional_t<K == 0, B, A>;
  if constexpr (std::is_same_v<Op, op::add> || std::is_same_v<Op, op::subtract> || std::is_same_v<Op, op::floordiv>) {
    return false;
  } else if constexpr (std::is_same_v<Op, op::multiply> || (std::is_same_v<Op, op::divide> && K == 0)) {
    // read by the other operand's rule, which runs only where that operand can carry a gradient
    return !constant_only_v<other>;
  } else {
    return true;
  }
}();

}  // namespace staticflow::autodiff::detail
