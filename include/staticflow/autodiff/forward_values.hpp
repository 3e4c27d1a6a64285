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
/// (These walks are classes read as `::value`, one template level per graph level, not variables
/// with lambdas: g++ gives every function and variable it instantiates a mangled name, which here
/// holds the node's type; docs/architecture.md, "What a call site costs the compiler".)
template <class N, class Kids = graph::detail::child_list_t<N>>
struct tree_leaf_count;
template <class N, template <class...> class List, class... K>
struct tree_leaf_count<N, List<K...>>
    : std::integral_constant<std::size_t, sizeof...(K) == 0 ? 1 : (std::size_t{0} + ... + tree_leaf_count<std::remove_cvref_t<K>>::value)> {};

template <class N>
struct is_broadcast_as : std::false_type {};
template <class A, class Ref>
struct is_broadcast_as<graph::broadcast_as<A, Ref>> : std::true_type {};

/// How many leaves the fused loop of node type N reads: a shared node counts as one (its slot),
/// and the node a broadcast_like takes its extents from counts for nothing (the loop never reads it).
/// (Case 0: its children's leaves; 1: one leaf -- a shared node or a leaf; 2: a broadcast_as, its
/// first child's.)
template <class N, class Kids = graph::detail::child_list_t<N>,
          int Case = (graph::detail::is_shared<N>::value || std::tuple_size<Kids>::value == 0) ? 1 : is_broadcast_as<N>::value ? 2 : 0>
struct fused_leaf_count;
template <class N, template <class...> class List, class... K>
struct fused_leaf_count<N, List<K...>, 0>
    : std::integral_constant<std::size_t, (std::size_t{0} + ... + fused_leaf_count<std::remove_cvref_t<K>>::value)> {};
template <class N, class Kids>
struct fused_leaf_count<N, Kids, 1> : std::integral_constant<std::size_t, 1> {};
template <class N, template <class...> class List, class First, class... K>
struct fused_leaf_count<N, List<First, K...>, 2> : fused_leaf_count<std::remove_cvref_t<First>> {};

/// Whether every leaf of N is a literal: such an operand never reaches a gradient's source.
/// (Case 0: all its children; 1: a shared node; 2: a leaf.)
template <class N, class Kids = graph::detail::child_list_t<N>,
          int Case = graph::detail::is_shared<N>::value ? 1 : std::tuple_size<Kids>::value == 0 ? 2 : 0>
struct constant_only;
template <class N, template <class...> class List, class... K>
struct constant_only<N, List<K...>, 0> : std::bool_constant<(constant_only<std::remove_cvref_t<K>>::value && ...)> {};
template <class N, class Kids>
struct constant_only<N, Kids, 1> : std::false_type {};
template <class N, class Kids>
struct constant_only<N, Kids, 2> : std::is_base_of<graph::literal<typename N::value_type>, N> {};

/// Whether the rules of node N (autodiff/rules.hpp) read the forward value of its child K. Only
/// elementwise nodes are listed: the others materialize what they read, or read a bool.
template <class N, std::size_t K>
inline constexpr bool rule_reads_child_v = false;
template <class Op, class A, std::size_t K>
inline constexpr bool rule_reads_child_v<graph::unary<Op, A>, K> = !(
    // linear or flat ops, and those whose rule reads the node's own value through
    // transcendental_value, which stores it past 4 leaves (sqrt's rule reads its value plainly:
    // its operand counts as read)
    std::is_same<Op, op::negate>::value || std::is_same<Op, op::identity>::value || std::is_same<Op, op::stop_gradient>::value ||
    std::is_same<Op, op::floor>::value || std::is_same<Op, op::ceil>::value || std::is_same<Op, op::round>::value ||
    std::is_same<Op, op::sign>::value || std::is_same<Op, op::exp>::value || std::is_same<Op, op::tanh>::value ||
    std::is_same<Op, op::sigmoid>::value || std::is_same<Op, op::reciprocal>::value || std::is_same<Op, op::exp2>::value);
template <class Op, std::size_t K, class Other,
          int Case = (std::is_same<Op, op::add>::value || std::is_same<Op, op::subtract>::value || std::is_same<Op, op::floordiv>::value) ? 1
                     : (std::is_same<Op, op::multiply>::value || (std::is_same<Op, op::divide>::value && K == 0))               ? 2
                                                                                                                                : 0>
struct binary_rule_reads_child : std::true_type {};
template <class Op, std::size_t K, class Other>
struct binary_rule_reads_child<Op, K, Other, 1> : std::false_type {};
// (read by the other operand's rule, which runs only where that operand can carry a gradient)
template <class Op, std::size_t K, class Other>
struct binary_rule_reads_child<Op, K, Other, 2> : std::bool_constant<!constant_only<Other>::value> {};
template <class Op, class A, class B, std::size_t K>
inline constexpr bool rule_reads_child_v<graph::binary<Op, A, B>, K> = binary_rule_reads_child<Op, K, std::conditional_t<K == 0, B, A>>::value;

}  // namespace staticflow::autodiff::detail
