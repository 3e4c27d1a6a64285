// staticflow/graph/matmul.hpp -- sf::matmul with NumPy's rules: matrix x matrix, matrix x vector,
// vector x matrix, vector x vector, and batched products whose leading dims broadcast.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <tuple>
#include <utility>

#include "staticflow/core/broadcast.hpp"
#include "staticflow/graph/child_refs.hpp"
#include "staticflow/graph/elementwise.hpp"
#include "staticflow/graph/operators.hpp"
#include "staticflow/graph/shape_ops.hpp"

namespace staticflow {
namespace graph {
namespace detail {
template <class S, std::size_t From, std::size_t Count>
auto sub_shape() {
  return []<std::size_t... I>(std::index_sequence<I...>) { return shape<S::dims[From + I]...>{}; }(
      std::make_index_sequence<Count>{});
}
template <class... S>
struct concat_shapes;
template <std::size_t... A>
struct concat_shapes<shape<A...>> {
  using type = shape<A...>;
};
template <std::size_t... A, std::size_t... B, class... Rest>
struct concat_shapes<shape<A...>, shape<B...>, Rest...> {
  using type = typename concat_shapes<shape<A..., B...>, Rest...>::type;
};

constexpr bool dims_match(std::size_t a, std::size_t b) { return a == b || a == dyn || b == dyn; }

/// The result shape of matmul(A, B) and the static check of the contracted dimension.
template <class SA, class SB>
struct matmul_shape {
  static constexpr std::size_t ra = SA::rank, rb = SB::rank;
  static_assert(ra >= 1 && rb >= 1, "staticflow: matmul needs operands of rank 1 or more");
  static constexpr std::size_t k_a = SA::dims[ra - 1];
  static constexpr std::size_t k_b = rb == 1 ? SB::dims[0] : SB::dims[rb - 2];
  static_assert(dims_match(k_a, k_b),
                "staticflow: matmul inner dimensions differ (the two shapes are the arguments of "
                "matmul_shape<lhs, rhs> in this diagnostic)");
  using batch_a = decltype(sub_shape<SA, 0, (ra > 2 ? ra - 2 : 0)>());
  using batch_b = decltype(sub_shape<SB, 0, (rb > 2 ? rb - 2 : 0)>());
  using batch = broadcast_shape_t<batch_a, batch_b>;
  using rows = std::conditional_t<(ra >= 2), shape<SA::dims[ra >= 2 ? ra - 2 : 0]>, shape<>>;
  using cols = std::conditional_t<(rb >= 2), shape<SB::dims[rb - 1]>, shape<>>;
  using type = typename concat_shapes<batch, rows, cols>::type;
};
}  // namespace detail

/// matmul(A, B): materialized (computed once per call into its own buffer).
template <class A, class B>
struct matmul : node<matmul<A, B>> {
  static constexpr bool materialized = true;
  using compute_type = typename detail::checked_operands<op::multiply, promote_t<typename A::value_type, typename B::value_type>>::type;
  using value_type = compute_type;
  using shape_type = typename detail::matmul_shape<typename A::shape_type, typename B::shape_type>::type;
  A a;
  B b;
  constexpr matmul(A a_, B b_) : a(a_), b(b_) {}
  constexpr child_refs<const A&, const B&> children() const { return {{{a}, {b}}}; }
  template <class X, class Y>
  constexpr auto with_children(const X& x, const Y& y) const { return matmul<X, Y>(x, y); }
  std::string name() const { return "dot_general"; }

  static constexpr std::size_t ra = A::shape_type::rank, rb = B::shape_type::rank;
  static constexpr std::size_t batch_rank = shape_type::rank - (ra >= 2) - (rb >= 2);

  extents<shape_type::rank> result_extents(const extents<ra>& ea, const extents<rb>& eb) const {
    const std::size_t ka = ea[ra - 1], kb = rb == 1 ? eb[0] : eb[rb - 2];
    if (ka != kb)
      throw shape_error("matmul: shapes " + staticflow::detail::extents_string(ea) + " and " +
                        staticflow::detail::extents_string(eb) + " have inner dimensions " + std::to_string(ka) +
                        " and " + std::to_string(kb));
    extents<batch_rank> ba{}, bb{};
    if constexpr (batch_rank > 0) {
      for (std::size_t i = 0; i < batch_rank; ++i) ba[i] = bb[i] = 1;
      for (std::size_t i = 0; i + 2 < ra; ++i) ba[batch_rank - (ra - 2) + i] = ea[i];
      for (std::size_t i = 0; i + 2 < rb; ++i) bb[batch_rank - (rb - 2) + i] = eb[i];
    }
    const auto batch = staticflow::detail::broadcast_extents<batch_rank>(ba, bb);
    extents<shape_type::rank> out{};
    std::size_t j = 0;
    for (std::size_t i = 0; i < batch_rank; ++i) out[j++] = batch[i];
    if constexpr (ra >= 2) out[j++] = ea[ra - 2];
    if constexpr (rb >= 2) out[j++] = eb[rb - 1];
    return out;
  }
};

namespace detail {
template <class S, class I = std::make_index_sequence<S::rank - 2>>
struct matrix_transposed_shape;
template <class S, std::size_t... I>
struct matrix_transposed_shape<S, std::index_sequence<I...>> {
  using type = shape<S::dims[I]..., S::dims[S::rank - 1], S::dims[S::rank - 2]>;
};
}  // namespace detail

/// Operand X of a matmul read with its last two axes swapped where X lies, instead of a copied
/// transpose: what the planner puts in the place of `matrix_transpose(X)` as an operand of a
/// product (plan/transposed_operands.hpp). Never traced; only the matmul kernels read it.
template <class X>
struct transposed_operand : node<transposed_operand<X>> {
  static_assert(X::shape_type::rank >= 2);
  static constexpr bool custom_extents = true;
  using value_type = typename X::value_type;
  using shape_type = typename detail::matrix_transposed_shape<typename X::shape_type>::type;
  X x;
  constexpr explicit transposed_operand(X x_) : x(x_) {}
  constexpr child_refs<const X&> children() const { return {x}; }
  template <class C>
  constexpr auto with_children(const C& c) const { return transposed_operand<C>(c); }
  std::string name() const { return "transposed_operand"; }
  extents<shape_type::rank> result_extents(const extents<shape_type::rank>& in) const {
    extents<shape_type::rank> out = in;
    std::swap(out[shape_type::rank - 1], out[shape_type::rank - 2]);
    return out;
  }
};
}  // namespace graph

/// tf.linalg.matmul's options: the operand's last two axes swapped before the product
/// (`adjoint_a` / `adjoint_b` are the same for the real dtypes staticflow has).
struct transpose_a_t {};
struct transpose_b_t {};
inline constexpr transpose_a_t transpose_a{}, adjoint_a{};
inline constexpr transpose_b_t transpose_b{}, adjoint_b{};

namespace detail {
/// (a template of the rank, not of the node: a lambda traced and run eagerly reports once)
template <std::size_t R>
constexpr bool check_transpose_rank() {
  static_assert(R >= 2, "staticflow: matrix_transpose / matmul's transpose_a / transpose_b need a tensor of rank 2 or more");
  return R >= 2;
}
}  // namespace detail

/// tf.linalg.matrix_transpose(x): x with its last two axes swapped (a copy, as tf.transpose).
template <detail::tensor_operand A>
constexpr auto matrix_transpose(const A& a) {
  const auto an = detail::as_node<void>(a);
  using AN = std::remove_cvref_t<decltype(an)>;
  constexpr std::size_t R = AN::shape_type::rank;
  if constexpr (!detail::check_transpose_rank<R>()) {
    return an;
  } else {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return transpose(an, axes<static_cast<int>(I)..., static_cast<int>(R - 1), static_cast<int>(R - 2)>{});
    }(std::make_index_sequence<R - 2>{});
  }
}

/// tf.linalg.matmul / numpy.matmul on symbolic tensors.
template <symbolic A, symbolic B>
constexpr auto matmul(const A& a, const B& b) {
  return graph::matmul<A, B>(a, b);
}
/// ... where either may be an sf::variable, read at this point of the traced function.
template <detail::tensor_operand A, detail::tensor_operand B>
  requires(!symbolic<A> || !symbolic<B>)
constexpr auto matmul(const A& a, const B& b) {
  return matmul(detail::as_node<void>(a), detail::as_node<void>(b));
}
/// tf.linalg.matmul(a, b, transpose_a=..., transpose_b=...): `sf::matmul(a, b, sf::transpose_b)`,
/// `sf::matmul(a, b, sf::transpose_a, sf::transpose_b)`. Traced as a matmul of transposes; the
/// planner lets the kernel read a transposed operand where it lies (no copy).
template <detail::tensor_operand A, detail::tensor_operand B, class... Options>
  requires(sizeof...(Options) >= 1 && ((std::is_same<Options, transpose_a_t>::value || std::is_same<Options, transpose_b_t>::value) && ...))
constexpr auto matmul(const A& a, const B& b, Options...) {
  constexpr bool ta = (std::is_same<Options, transpose_a_t>::value || ...), tb = (std::is_same<Options, transpose_b_t>::value || ...);
  static_assert(sizeof...(Options) == std::size_t{ta} + std::size_t{tb}, "staticflow: matmul: an option is given twice");
  const auto an = detail::as_node<void>(a);
  const auto bn = detail::as_node<void>(b);
  if constexpr (ta && tb) return matmul(matrix_transpose(an), matrix_transpose(bn));
  else if constexpr (ta) return matmul(matrix_transpose(an), bn);
  else return matmul(an, matrix_transpose(bn));
}

}  // namespace staticflow
