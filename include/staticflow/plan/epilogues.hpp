// staticflow/plan/epilogues.hpp -- the elementwise work that only reads a convolution's or a
// product's result (a bias, an activation) is done by its kernel on each block of the result as
// soon as it is computed, not by a second pass over the whole result.
//
// As traced, `relu(conv2d(x, f) + b)` is a materialized node (the convolution, a slot of its
// own) and an elementwise graph over it that the next kernel's loop (or a slot of its own, when
// that kernel is a pooling or another convolution) evaluates: the result is written once and read
// again, at 1x200x200x100 floats 16 MB each way. TensorFlow's grappler rewrites this into one
// `_FusedConv2D` with a bias and an activation; oneDNN calls it post-ops, cuDNN and CUTLASS an
// epilogue. Here, before planning, a maximal elementwise subgraph E (unary, binary, select, cast
// nodes) whose leaves are
//  * one producer P of E's dtype and shape: a conv2d, a conv3d, a depthwise_conv2d (MobileNet's
//    `relu6(depthwise_conv2d(x, f) * scale + shift)`, a batch normalization folded into a scale
//    and a shift), a max_pool / avg_pool (1-D or 2-D), or a matmul whose last axis is its second
//    operand's columns (a dense layer's `relu(x . w + b)`),
//  * operands that vary along the last axis only ([O], [1, ..., O] or one element, static or
//    run-time extents: a bias, a scale, a mask per channel), of E's dtype,
//  * literals,
// becomes `graph::epilogue<P, Fn, operands...>` (graph/epilogue.hpp), Fn being E over arguments
// of its own. Conditions that keep the rewrite exact and never slower:
//  * every occurrence of P in the graph is inside such an E, all of one type (a P read by
//    anything else -- another output, a gradient's mask `conv + b > 0` beside `relu(conv + b)` --
//    stays a slot, and E stays a fused loop over it: folding would compute P twice; regions of
//    one type are one slot, computed once);
//  * P and every operand occur once in E, or their type determines their value
//    (graph::value_free_v): E's occurrences of one type are one argument of Fn, and two different
//    variables of one type must not become one. So `elu(conv2d(x, f) + b)`, which reads the sum
//    four times, is folded whole when f and b are arguments of the function; with f a variable,
//    each of the four sums `conv2d(x, f) + b` is the region (one slot: the planner finds the four
//    equal), and elu is the next loop's work;
//  * shared nodes (graph/shared.hpp) are not looked into.
// The graph as traced is unchanged (listings, gradients, ONNX); a function without a producer
// pays one constant per node type.
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/graph/child_refs.hpp"
#include "staticflow/graph/conv.hpp"
#include "staticflow/graph/conv3d.hpp"
#include "staticflow/graph/depthwise_conv.hpp"
#include "staticflow/graph/elementwise.hpp"
#include "staticflow/graph/epilogue.hpp"
#include "staticflow/graph/leaf.hpp"
#include "staticflow/graph/matmul.hpp"
#include "staticflow/graph/pool.hpp"
#include "staticflow/graph/shared.hpp"
#include "staticflow/graph/traversal.hpp"

namespace staticflow::plan::detail {

/// The kernels that take an epilogue.
template <class N>
inline constexpr bool is_epilogue_producer_v = false;
template <class X, class F, class Opt>
inline constexpr bool is_epilogue_producer_v<graph::conv2d<X, F, Opt>> = true;
template <class X, class F, class Opt>
inline constexpr bool is_epilogue_producer_v<graph::conv3d<X, F, Opt>> = true;
template <class X, class F, class Opt>
inline constexpr bool is_epilogue_producer_v<graph::depthwise_conv2d<X, F, Opt>> = true;
template <class Kind, class X, class P>
inline constexpr bool is_epilogue_producer_v<graph::pool<Kind, X, P>> = true;
// (a product whose last axis is B's columns: not matrix x vector, whose last axis is A's rows)
template <class A, class B>
inline constexpr bool is_epilogue_producer_v<graph::matmul<A, B>> = B::shape_type::rank >= 2;

/// The nodes an epilogue is made of.
template <class N>
inline constexpr bool is_pointwise_v = false;
template <class Op, class A>
inline constexpr bool is_pointwise_v<graph::unary<Op, A>> = true;
template <class Op, class A, class B>
inline constexpr bool is_pointwise_v<graph::binary<Op, A, B>> = true;
template <class C, class A, class B>
inline constexpr bool is_pointwise_v<graph::select<C, A, B>> = true;
template <class U, class A>
inline constexpr bool is_pointwise_v<graph::cast<U, A>> = true;

using graph::detail::child_list_t;
template <class N, std::size_t K>
using kid_t = std::remove_cvref_t<std::tuple_element_t<K, child_list_t<N>>>;

/// Whether subtree N holds a producer outside shared nodes.
template <class N, int Case = is_epilogue_producer_v<N> ? 1 : graph::detail::is_shared<N>::value ? 2 : 0, class Kids = child_list_t<N>>
struct holds_producer;
template <class N, template <class...> class List, class... K>
struct holds_producer<N, 0, List<K...>> : std::bool_constant<(holds_producer<std::remove_cvref_t<K>>::value || ...)> {};
template <class N, class Kids>
struct holds_producer<N, 1, Kids> : std::true_type {};
template <class N, class Kids>
struct holds_producer<N, 2, Kids> : std::false_type {};
template <class N>
inline constexpr bool holds_producer_v = holds_producer<N>::value;

/// How many times node type T occurs in subtree N, along every path (through shared nodes).
template <class T, class N>
inline constexpr std::size_t occurrences_v = [] {
  if constexpr (std::is_same<T, N>::value) {
    return std::size_t{1};
  } else {
    return []<std::size_t... K>(std::index_sequence<K...>) {
      return (std::size_t{0} + ... + occurrences_v<T, kid_t<N, K>>);
    }(std::make_index_sequence<std::tuple_size<child_list_t<N>>::value>{});
  }
}();

// ---- the leaves of an elementwise region ----
template <class... T>
struct type_list {};
template <class L, class T>
struct list_add;
template <class... U, class T>
struct list_add<type_list<U...>, T> {
  using type = std::conditional_t<(std::is_same<U, T>::value || ...), type_list<U...>, type_list<U..., T>>;
};
/// The distinct non-literal leaf types of the elementwise region rooted at N, first seen first.
template <class L, class N, bool Pointwise = is_pointwise_v<N>>
struct region_leaves {
  using type = std::conditional_t<graph::detail::is_literal<N>::value, L, typename list_add<L, N>::type>;
};
template <class L, class N, class Kids>
struct region_leaves_of;
template <class L, class N>
struct region_leaves<L, N, true> : region_leaves_of<L, N, std::make_index_sequence<std::tuple_size<child_list_t<N>>::value>> {};
template <class L, class N>
struct region_leaves_of<L, N, std::index_sequence<>> {
  using type = L;
};
template <class L, class N, std::size_t K0, std::size_t... K>
struct region_leaves_of<L, N, std::index_sequence<K0, K...>>
    : region_leaves_of<typename region_leaves<L, kid_t<N, K0>>::type, N, std::index_sequence<K...>> {};

/// How many times leaf type T occurs in the region rooted at N.
template <class T, class N>
inline constexpr std::size_t region_count_v = [] {
  if constexpr (std::is_same<T, N>::value) {
    return std::size_t{1};
  } else if constexpr (!is_pointwise_v<N>) {
    return std::size_t{0};
  } else {
    return []<std::size_t... K>(std::index_sequence<K...>) {
      return (std::size_t{0} + ... + region_count_v<T, kid_t<N, K>>);
    }(std::make_index_sequence<std::tuple_size<child_list_t<N>>::value>{});
  }
}();

/// Whether operand Q of an epilogue over a result of shape S varies along the last axis only:
/// every axis but its last is 1, and its last is 1, the result's, or a run-time extent.
template <class Q, class S>
inline constexpr bool per_channel_v = [] {
  using QS = typename Q::shape_type;
  if constexpr (QS::rank > S::rank) {
    return false;
  } else if constexpr (QS::rank == 0) {
    return true;
  } else {
    for (std::size_t d = 0; d + 1 < QS::rank; ++d)
      if (QS::dims[d] != 1) return false;
    const std::size_t q = QS::dims[QS::rank - 1], s = S::dims[S::rank - 1];
    return q == 1 || q == dyn || s == dyn || q == s;
  }
}();

/// What the region rooted at N would fold into, by its type: `valid` when its leaves are one
/// producer and per-channel operands (see the file's comment).
template <class N, class Leaves = typename region_leaves<type_list<>, N>::type>
struct region_shape {
  static constexpr bool valid = false;
};
template <class T, class N>
inline constexpr bool once_or_value_free_v = region_count_v<T, N> == 1 || graph::value_free_v<T>;
template <class N, class... L>
  requires is_pointwise_v<N>
struct region_shape<N, type_list<L...>> {
  static constexpr std::size_t producers = (std::size_t{0} + ... + std::size_t{is_epilogue_producer_v<L>});
  static constexpr std::size_t producer_index = [] {
    std::size_t i = 0, found = 0;
    ((is_epilogue_producer_v<L> ? (found = i, ++i) : ++i), ...);
    return found;
  }();
  template <std::size_t I>
  using leaf = std::tuple_element_t<I, std::tuple<L...>>;
  using producer = std::conditional_t<producers == 1, leaf<producers == 1 ? producer_index : 0>, void>;
  static constexpr bool valid = [] {
    if constexpr (producers != 1) {
      return false;
    } else {
      using T = typename N::value_type;
      using S = typename producer::shape_type;
      return std::is_same<typename producer::value_type, T>::value && std::is_same<typename N::shape_type, S>::value &&
             ((is_epilogue_producer_v<L> ||
               (std::is_same<typename L::value_type, T>::value && per_channel_v<L, S>)) && ...) &&
             (once_or_value_free_v<L, N> && ...);
    }
  }();
};

/// How many occurrences of producer type P in subtree N lie inside a region of type R (outside
/// shared nodes), the regions taken from the top down as the fold takes them, and regions nested
/// in a region's leaves counted too (a convolution of an epilogue's result).
template <class R, class P, class N>
inline constexpr std::size_t covered_v = 0;
/// The same below node N of a region Root whose producer is Prod.
template <class R, class P, class N, class Root, class Prod>
inline constexpr std::size_t region_covered_v = [] {
  if constexpr (is_pointwise_v<N>) {
    return []<std::size_t... K>(std::index_sequence<K...>) {
      return (std::size_t{0} + ... + region_covered_v<R, P, kid_t<N, K>, Root, Prod>);
    }(std::make_index_sequence<std::tuple_size<child_list_t<N>>::value>{});
  } else if constexpr (std::is_same<N, Prod>::value) {
    return std::size_t{std::is_same<P, Prod>::value && std::is_same<R, Root>::value} + []<std::size_t... K>(std::index_sequence<K...>) {
      return (std::size_t{0} + ... + covered_v<R, P, kid_t<N, K>>);
    }(std::make_index_sequence<std::tuple_size<child_list_t<N>>::value>{});
  } else {
    return covered_v<R, P, N>;
  }
}();
template <class R, class P, class N>
  requires holds_producer<N>::value
inline constexpr std::size_t covered_v<R, P, N> = [] {
  if constexpr (region_shape<N>::valid) {
    return region_covered_v<R, P, N, N, typename region_shape<N>::producer>;
  } else {
    return []<std::size_t... K>(std::index_sequence<K...>) {
      return (std::size_t{0} + ... + covered_v<R, P, kid_t<N, K>>);
    }(std::make_index_sequence<std::tuple_size<child_list_t<N>>::value>{});
  }
}();

/// Whether the region rooted at N folds in a graph with outputs Outs (a std::tuple of nodes):
/// every occurrence of its producer in the graph lies in a region of N's type (regions of two
/// types over one convolution would each compute it).
template <class Outs, class N>
inline constexpr bool folds_v = false;
template <class... O, class N>
  requires region_shape<N>::valid
inline constexpr bool folds_v<std::tuple<O...>, N> =
    (std::size_t{0} + ... + occurrences_v<typename region_shape<N>::producer, O>) ==
    (std::size_t{0} + ... + covered_v<N, typename region_shape<N>::producer, O>);

// ---- the region's function over arguments of its own ----
template <class Leaves, class N>
struct region_function;
template <class Leaves, class N>
using region_function_t = typename region_function<Leaves, N>::type;

template <class T, class... L>
inline constexpr std::size_t leaf_index_v = [] {
  std::size_t i = 0, found = 0;
  ((std::is_same<T, L>::value ? (found = i, ++i) : ++i), ...);
  return found;
}();

/// Leaf N of the region as an argument: the producer is argument 0, the others follow in order.
template <class Leaves, class N>
struct leaf_argument;
template <class... L, class N>
struct leaf_argument<type_list<L...>, N> {
  static constexpr std::size_t at = leaf_index_v<N, L...>;
  static constexpr std::size_t producer_at = [] {
    std::size_t i = 0, found = 0;
    ((is_epilogue_producer_v<L> ? (found = i, ++i) : ++i), ...);
    return found;
  }();
  static constexpr std::size_t index = is_epilogue_producer_v<N> ? 0 : (at < producer_at ? at + 1 : at);
  using type = graph::argument<index, typename N::value_type, typename N::shape_type>;
};

template <class Leaves, class N>
struct region_function {
  using type = std::conditional_t<graph::detail::is_literal<N>::value, N, typename leaf_argument<Leaves, N>::type>;
};
template <class Leaves, class N, class Kids>
struct region_function_of;
template <class Leaves, class N, std::size_t... K>
struct region_function_of<Leaves, N, std::index_sequence<K...>> {
  using type = decltype(graph::with_children(std::declval<const N&>(), std::declval<const region_function_t<Leaves, kid_t<N, K>>&>()...));
};
template <class Leaves, class N>
  requires is_pointwise_v<N>
struct region_function<Leaves, N> : region_function_of<Leaves, N, std::make_index_sequence<std::tuple_size<child_list_t<N>>::value>> {};

template <class Leaves, class N>
constexpr region_function_t<Leaves, N> to_function(const N& n) {
  if constexpr (is_pointwise_v<N>) {
    const auto kids = graph::children(n);
    return [&]<std::size_t... K>(std::index_sequence<K...>) {
      return graph::with_children(n, to_function<Leaves>(graph::child<K>(kids))...);
    }(std::make_index_sequence<std::tuple_size<child_list_t<N>>::value>{});
  } else if constexpr (graph::detail::is_literal<N>::value) {
    return n;
  } else {
    return {};
  }
}

/// The first occurrence of leaf type T in the region rooted at n (null if none).
template <class T, class N>
constexpr const T* first_leaf(const N& n) {
  if constexpr (std::is_same<T, N>::value) {
    return &n;
  } else if constexpr (is_pointwise_v<N> && (region_count_v<T, N> > 0)) {
    const auto kids = graph::children(n);
    const T* found = nullptr;
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      ((found = found ? found : first_leaf<T>(graph::child<K>(kids))), ...);
    }(std::make_index_sequence<std::tuple_size<child_list_t<N>>::value>{});
    return found;
  } else {
    return nullptr;
  }
}

// ---- the folded graph ----
template <class L>
struct without_producer;
template <>
struct without_producer<type_list<>> {
  using type = type_list<>;
};
template <class L0, class... L>
struct without_producer<type_list<L0, L...>> {
  template <class Rest>
  struct prepend;
  template <class... R>
  struct prepend<type_list<R...>> {
    using type = type_list<L0, R...>;
  };
  using rest = typename without_producer<type_list<L...>>::type;
  using type = typename std::conditional_t<is_epilogue_producer_v<L0>, std::type_identity<rest>, prepend<rest>>::type;
};

template <class Outs, class N>
struct epilogue_folded;
template <class Outs, class N>
using epilogue_folded_t = typename epilogue_folded<Outs, N>::type;

template <class Outs, class N, class Leaves = typename region_leaves<type_list<>, N>::type,
          class Operands = typename without_producer<Leaves>::type>
struct folded_region;
template <class Outs, class N, class Leaves, class... Q>
struct folded_region<Outs, N, Leaves, type_list<Q...>> {
  using producer = typename region_shape<N>::producer;
  using type = graph::epilogue<epilogue_folded_t<Outs, producer>, region_function_t<Leaves, N>, epilogue_folded_t<Outs, Q>...>;
};

template <class Outs, class N, class Kids = std::make_index_sequence<std::tuple_size<child_list_t<N>>::value>>
struct folded_kids;
template <class Outs, class N, std::size_t... K>
struct folded_kids<Outs, N, std::index_sequence<K...>> {
  using type = decltype(graph::with_children(std::declval<const N&>(), std::declval<const epilogue_folded_t<Outs, kid_t<N, K>>&>()...));
};

template <class Outs, class N>
struct epilogue_folded {
  using type = typename std::conditional_t<
      !holds_producer<N>::value, std::type_identity<N>,
      std::conditional_t<folds_v<Outs, N>, folded_region<Outs, N>, folded_kids<Outs, N>>>::type;
};

template <class Outs, class N>
constexpr epilogue_folded_t<Outs, N> fold_epilogues(const N& n);

template <class Outs, class N, class Leaves, class... Q>
constexpr epilogue_folded_t<Outs, N> make_epilogue(const N& n, type_list<Q...>) {
  using producer = typename region_shape<N>::producer;
  return epilogue_folded_t<Outs, N>(fold_epilogues<Outs>(*first_leaf<producer>(n)), to_function<Leaves>(n),
                                    staticflow::detail::pack_values(fold_epilogues<Outs>(*first_leaf<Q>(n))...));
}

/// n with every region that folds made an epilogue node. One instantiation per node type.
template <class Outs, class N>
constexpr epilogue_folded_t<Outs, N> fold_epilogues(const N& n) {
  if constexpr (!holds_producer<N>::value) {
    return n;
  } else if constexpr (folds_v<Outs, N>) {
    using leaves = typename region_leaves<type_list<>, N>::type;
    return make_epilogue<Outs, N, leaves>(n, typename without_producer<leaves>::type{});
  } else {
    const auto kids = graph::children(n);
    return [&]<std::size_t... K>(std::index_sequence<K...>) {
      return graph::with_children(n, fold_epilogues<Outs>(graph::child<K>(kids))...);
    }(std::make_index_sequence<std::tuple_size<child_list_t<N>>::value>{});
  }
}

/// The outputs with their epilogues folded (unchanged when no output holds a conv2d).
template <class... O>
constexpr auto fold_output_epilogues(const std::tuple<O...>& outs) {
  if constexpr (!(holds_producer<std::remove_cv_t<O>>::value || ...)) {
    return outs;
  } else {
    using outs_type = std::tuple<std::remove_cv_t<O>...>;
    return staticflow::detail::apply(
        [&](const auto&... o) {
          return std::tuple<epilogue_folded_t<outs_type, std::remove_cv_t<O>>...>{fold_epilogues<outs_type>(o)...};
        },
        outs);
  }
}

}  // namespace staticflow::plan::detail
