// staticflow/plan/transposed_operands.hpp -- a transposed matrix that only feeds a product is read
// by the product's kernel where it lies, not copied first.
//
// The gradient of y = a·b is da = dy·bᵀ and db = aᵀ·dy, and `sf::matmul(a, b, sf::transpose_b)`
// traces as a product of a transpose: every dense layer's backward pass has them. As traced, the
// transpose is a materialized node (a rearrange), so each one was a full copy of its operand
// before the product: in a training step of a 784-256-256-10 MLP, 9 % of the time. Before
// planning, each operand of a `graph::matmul` that is `matrix_transpose(X)` (a transpose that
// swaps the last two axes and keeps the others) becomes `graph::transposed_operand<X>`, which the
// matmul kernels read with swapped strides (the CPU backend's packing, the Thrust kernel's
// indexing): the same products, bit for bit, and no copy. X itself is evaluated as any operand is
// (read in place when it is an argument or a slot). A transpose read elsewhere too keeps its slot
// there. A shared node is folded once, at its first occurrence (its other occurrences are copies:
// the same box); a subtree without such a product is not rebuilt.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/graph/child_refs.hpp"
#include "staticflow/graph/matmul.hpp"
#include "staticflow/graph/shape_ops.hpp"
#include "staticflow/graph/shared.hpp"
#include "staticflow/graph/traversal.hpp"

namespace staticflow::plan::detail {

/// Whether N is `matrix_transpose(X)`: a transpose of rank >= 2 that swaps the last two axes.
template <class N>
inline constexpr bool is_matrix_transpose_v = false;
template <int... P, class X>
inline constexpr bool is_matrix_transpose_v<graph::rearrange<graph::transpose_kind<P...>, X>> = [] {
  constexpr std::size_t R = sizeof...(P);
  if constexpr (R < 2) {
    return false;
  } else {
    constexpr std::array<std::size_t, R> perm{static_cast<std::size_t>(P)...};
    for (std::size_t i = 0; i + 2 < R; ++i)
      if (perm[i] != i) return false;
    return perm[R - 2] == R - 1 && perm[R - 1] == R - 2;
  }
}();

template <class N>
inline constexpr bool is_matmul_v = false;
template <class A, class B>
inline constexpr bool is_matmul_v<graph::matmul<A, B>> = true;

/// Whether subtree N holds a product with a transposed operand (shared nodes included).
template <class N, bool Matmul = is_matmul_v<N>>
struct transposes_here : std::false_type {};
template <class N>
struct transposes_here<N, true> : std::bool_constant<is_matrix_transpose_v<decltype(N::a)> || is_matrix_transpose_v<decltype(N::b)>> {};
template <class N, class Kids = decltype(graph::children(std::declval<const N&>()))>
struct holds_transposed_operands;
template <class N, template <class...> class List, class... K>
struct holds_transposed_operands<N, List<K...>>
    : std::bool_constant<transposes_here<N>::value || (holds_transposed_operands<std::remove_cvref_t<K>>::value || ...)> {};
template <class N>
inline constexpr bool holds_transposed_operands_v = holds_transposed_operands<N>::value;

// ---- the folded type of a node, by its type alone ----
template <class N>
struct folded;
template <class N>
using folded_t = typename folded<N>::type;

/// The key of a shared node whose held node is folded: named after the key it folds, so that the
/// type of an unrolled loop's step does not come to name the previous step's (graph/shared.hpp).
template <class Key>
struct folded_key {
  using tag_type = typename Key::tag_type;
  using held_type = folded_t<typename Key::held_type>;
};

template <class N>
struct folded_operand {
  using type = folded_t<N>;
};
template <class N>
  requires is_matrix_transpose_v<N>
struct folded_operand<N> {
  using type = graph::transposed_operand<folded_t<std::remove_cvref_t<decltype(std::declval<const N&>().a)>>>;
};

template <class N, class Kids = decltype(graph::children(std::declval<const N&>()))>
struct folded_children;
template <class N, class... K>
struct folded_children<N, graph::child_refs<K...>> {
  using type = decltype(graph::with_children(std::declval<const N&>(), std::declval<const folded_t<std::remove_cvref_t<K>>&>()...));
};
template <class N, class... K>
struct folded_children<N, std::tuple<K...>> {
  using type = decltype(graph::with_children(std::declval<const N&>(), std::declval<const folded_t<std::remove_cvref_t<K>>&>()...));
};

template <class N>
struct folded {
  using type = typename std::conditional_t<holds_transposed_operands<N>::value, folded_children<N>, std::type_identity<N>>::type;
};
template <class Key>
  requires holds_transposed_operands<graph::shared_node<Key>>::value
struct folded<graph::shared_node<Key>> {
  using type = graph::shared_node<folded_key<Key>>;
};
template <class A, class B>
  requires holds_transposed_operands<graph::matmul<A, B>>::value
struct folded<graph::matmul<A, B>> {
  using type = graph::matmul<typename folded_operand<A>::type, typename folded_operand<B>::type>;
};

// ---- the shared nodes to fold, each once ----
template <class... S>
struct shared_list {};
template <class L, class S>
inline constexpr bool shared_listed_v = false;
template <class... T, class S>
inline constexpr bool shared_listed_v<shared_list<T...>, S> = (std::is_same<T, S>::value || ...);
template <class L, class N>
struct shared_add;
template <class L, class Kids>
struct shared_fold;
template <class L>
struct shared_fold<L, std::tuple<>> {
  using type = L;
};
template <class L, class K0, class... K>
struct shared_fold<L, std::tuple<K0, K...>> {
  using type = typename shared_fold<typename shared_add<L, std::remove_cvref_t<K0>>::type, std::tuple<K...>>::type;
};
template <class L, class... K>
struct shared_fold<L, graph::child_refs<K...>> : shared_fold<L, std::tuple<K...>> {};
template <class L, class N>
struct shared_add {
  using type = typename std::conditional_t<holds_transposed_operands<N>::value,
                                           shared_fold<L, decltype(graph::children(std::declval<const N&>()))>,
                                           std::type_identity<L>>::type;
};
// (a class per case: a shared node met again is not walked again)
template <class L, class S, bool Listed = shared_listed_v<L, S>>
struct shared_add_new {
  using type = L;
};
template <class... T, class S>
struct shared_add_new<shared_list<T...>, S, false> {
  using type = typename shared_add<shared_list<T..., S>, typename S::held_type>::type;
};
template <class L, class Key>
  requires holds_transposed_operands<graph::shared_node<Key>>::value
struct shared_add<L, graph::shared_node<Key>> : shared_add_new<L, graph::shared_node<Key>> {};

/// Each shared node's folded form, made at its first occurrence and copied at every other (the
/// same box: planned once): one std::optional per shared node type.
template <class L>
struct fold_memo;
template <class... S>
struct fold_memo<shared_list<S...>> {
  std::tuple<std::optional<folded_t<S>>...> folded;
  template <class N>
  constexpr std::optional<folded_t<N>>& of() {
    constexpr std::size_t index = [] {
      std::size_t i = 0, found = 0;
      ((std::is_same<S, N>::value ? (found = i, ++i) : ++i), ...);
      return found;
    }();
    return staticflow::detail::get<index>(folded);
  }
};

template <class N, class Memo>
constexpr folded_t<N> fold_transposes(const N& n, Memo& memo);

/// An operand of a product: a matrix transpose read in place, anything else folded below.
template <class N, class Memo>
constexpr typename folded_operand<N>::type product_operand(const N& n, Memo& memo) {
  if constexpr (is_matrix_transpose_v<N>) return typename folded_operand<N>::type(fold_transposes(n.a, memo));
  else return fold_transposes(n, memo);
}

/// n with the transposed operands of its products read in place. One instantiation per node type.
template <class N, class Memo>
constexpr folded_t<N> fold_transposes(const N& n, Memo& memo) {
  if constexpr (!holds_transposed_operands<N>::value) {
    return n;
  } else if constexpr (graph::detail::is_shared<N>::value) {
    auto& done = memo.template of<N>();
    if (!done) done.emplace(fold_transposes(n.value(), memo));
    return *done;
  } else if constexpr (is_matmul_v<N>) {
    return folded_t<N>(product_operand(n.a, memo), product_operand(n.b, memo));
  } else {
    using kids = decltype(graph::children(n));
    return [&]<std::size_t... K>(std::index_sequence<K...>) {
      [[maybe_unused]] const auto c = graph::children(n);
      return graph::with_children(n, fold_transposes(graph::child<K>(c), memo)...);
    }(std::make_index_sequence<std::tuple_size<kids>::value>{});
  }
}

/// The outputs with the transposed operands of their products read in place.
template <class... O>
constexpr auto fold_output_transposes(const std::tuple<O...>& outs) {
  if constexpr (!(holds_transposed_operands<O>::value || ...)) {
    return outs;
  } else {
    fold_memo<typename shared_fold<shared_list<>, std::tuple<O...>>::type> memo;
    return staticflow::detail::apply([&](const auto&... o) { return std::tuple<folded_t<O>...>{fold_transposes(o, memo)...}; }, outs);
  }
}
template <class Outputs>
using folded_outputs_t = decltype(fold_output_transposes(std::declval<const Outputs&>()));

}  // namespace staticflow::plan::detail
