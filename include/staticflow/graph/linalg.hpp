// staticflow/graph/linalg.hpp -- the main diagonal of a matrix or a batch of them, as tf.linalg
// spells it: sf::linalg::diag_part (MatrixDiagPartV3), sf::linalg::set_diag (MatrixSetDiagV3),
// and sf::linalg::diag and sf::linalg::trace built from them.
//
// A tensor of shape [..., M, N] is a batch of M x N matrices; its diagonal has shape
// [..., min(M, N)]. Both nodes are materialized (they move elements that an elementwise loop would
// have to find with a division per element). They are each other's transposes, which gives the
// gradients (TF's rules): diag_part's adjoint is set_diag(zeros, g), set_diag's is g with its
// diagonal zeroed for the input and diag_part(g) for the diagonal; the second derivatives follow.
// Only the main diagonal (TF's k = 0) is offered.
#pragma once

#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>

#include "staticflow/core/axes.hpp"
#include "staticflow/core/errors.hpp"
#include "staticflow/core/shape.hpp"
#include "staticflow/graph/child_refs.hpp"
#include "staticflow/graph/creation.hpp"
#include "staticflow/graph/operators.hpp"
#include "staticflow/graph/reduce.hpp"
#include "staticflow/graph/shape_ops.hpp"
#include "staticflow/graph/traversal.hpp"

namespace staticflow {
namespace graph {
namespace detail {
template <class S, class Batch = std::make_index_sequence<S::rank - 2>>
struct diagonal_shape;
template <class S, std::size_t... B>
struct diagonal_shape<S, std::index_sequence<B...>> {
  static constexpr std::size_t m = S::dims[S::rank - 2], n = S::dims[S::rank - 1];
  using type = shape<S::dims[B]..., (m == dyn || n == dyn) ? dyn : (m < n ? m : n)>;
};

/// A batch of matrices as the kernels walk it: `batch` matrices of m x n, row-major, whose
/// diagonals hold k = min(m, n) elements each.
struct diagonal_layout {
  std::size_t batch = 1, m = 1, n = 1;
  constexpr std::size_t k() const { return m < n ? m : n; }
};
template <std::size_t R>
constexpr diagonal_layout diagonal_layout_of(const extents<R>& e) {
  diagonal_layout l{1, e[R - 2], e[R - 1]};
  for (std::size_t d = 0; d + 2 < R; ++d) l.batch *= e[d];
  return l;
}
template <std::size_t R>
extents<R - 1> diagonal_extents(const extents<R>& e) {
  extents<R - 1> out{};
  for (std::size_t d = 0; d + 2 < R; ++d) out[d] = e[d];
  out[R - 2] = diagonal_layout_of(e).k();
  return out;
}
}  // namespace detail

/// tf.linalg.diag_part(x): x [..., M, N] -> [..., min(M, N)], element i of each matrix's row i.
/// Square: the matrices must be square, checked when the extents are known (einsum's "ii->i",
/// whose label names one extent: NumPy's and TF's error where they differ).
template <class X, bool Square = false>
struct diag_part : node<diag_part<X, Square>> {
  static constexpr bool materialized = true;
  using value_type = typename X::value_type;
  using shape_type = typename detail::diagonal_shape<typename X::shape_type>::type;
  static constexpr std::size_t x_rank = X::shape_type::rank;
  X x;
  constexpr explicit diag_part(X x_) : x(x_) {}
  constexpr child_refs<const X&> children() const { return {x}; }
  template <class Y>
  constexpr auto with_children(const Y& y) const { return diag_part<Y, Square>(y); }
  static constexpr bool parameters_in_type = true;
  constexpr bool same_parameters(const diag_part&) const { return true; }
  std::string name() const { return "MatrixDiagPartV3"; }
  extents<shape_type::rank> result_extents(const extents<x_rank>& xe) const {
    if (Square && xe[x_rank - 2] != xe[x_rank - 1])
      throw shape_error("einsum: a label repeated within one operand names axes of extents " + std::to_string(xe[x_rank - 2]) +
                        " and " + std::to_string(xe[x_rank - 1]) + " (they must be equal)");
    return detail::diagonal_extents(xe);
  }
};

/// tf.linalg.set_diag(x, d): x with the main diagonal of each matrix replaced by d
/// ([..., min(M, N)]).
template <class X, class D>
struct set_diag : node<set_diag<X, D>> {
  static constexpr bool materialized = true;
  using value_type = typename X::value_type;
  using shape_type = typename X::shape_type;
  static constexpr std::size_t x_rank = X::shape_type::rank;
  X x;
  D diagonal;
  constexpr set_diag(X x_, D d) : x(x_), diagonal(d) {}
  constexpr child_refs<const X&, const D&> children() const { return {{{x}, {diagonal}}}; }
  template <class Y, class E>
  constexpr auto with_children(const Y& y, const E& e) const { return set_diag<Y, E>(y, e); }
  static constexpr bool parameters_in_type = true;
  constexpr bool same_parameters(const set_diag&) const { return true; }
  std::string name() const { return "MatrixSetDiagV3"; }
  extents<x_rank> result_extents(const extents<x_rank>& xe, const extents<x_rank - 1>& de) const {
    const auto expected = detail::diagonal_extents(xe);
    if (!staticflow::detail::same_extents(expected, de))
      throw shape_error("set_diag: a diagonal of shape " + staticflow::detail::extents_string(de) + " for matrices of shape " +
                        staticflow::detail::extents_string(xe) + " (expected " + staticflow::detail::extents_string(expected) + ")");
    return xe;
  }
};
}  // namespace graph

namespace detail {
/// [..., K] -> [..., K, K].
template <class S, class I = std::make_index_sequence<S::rank>>
struct square_shape;
template <class S, std::size_t... I>
struct square_shape<S, std::index_sequence<I...>> {
  using type = shape<S::dims[I]..., S::dims[S::rank - 1]>;
};

template <class X>
struct diagonal_check {
  static constexpr bool matrices = X::shape_type::rank >= 2;
  static_assert(matrices, "staticflow: diag_part / set_diag / trace: the input must have rank 2 or more (a matrix or a batch of them)");
  static constexpr bool ok = matrices;
};
template <class X, class D>
struct set_diag_check {
  static constexpr bool matrices = diagonal_check<X>::ok;
  using expected = typename graph::detail::diagonal_shape<typename X::shape_type>::type;
  using given = typename D::shape_type;
  static constexpr bool fits = [] {
    if constexpr (!matrices || given::rank != expected::rank) {
      return !matrices || given::rank == expected::rank;
    } else {
      for (std::size_t d = 0; d < given::rank; ++d)
        if (given::dims[d] != dyn && expected::dims[d] != dyn && given::dims[d] != expected::dims[d]) return false;
      return true;
    }
  }();
  static_assert(fits, "staticflow: set_diag: the diagonal's shape must be the input's batch shape followed by min(rows, columns)");
  static constexpr bool same_dtype = std::is_same<typename X::value_type, typename D::value_type>::value;
  static_assert(!fits || same_dtype, "staticflow: set_diag: the diagonal must have the input's dtype");
  static constexpr bool ok = matrices && fits && same_dtype;
};
}  // namespace detail

namespace linalg {
/// tf.linalg.diag_part(x): the main diagonal of each matrix of x [..., M, N], shape
/// [..., min(M, N)]; any dtype.
template <detail::tensor_operand X>
constexpr auto diag_part(const X& x) {
  const auto xn = detail::as_node<void>(x);
  using XN = std::remove_cvref_t<decltype(xn)>;
  if constexpr (!detail::diagonal_check<spec_of_node_t<XN>>::ok) return xn;
  else return graph::diag_part<XN>(xn);
}

/// tf.linalg.set_diag(x, diagonal): x with the main diagonal of each matrix replaced
/// (diagonal: [..., min(M, N)], x's dtype).
template <detail::tensor_operand X, detail::tensor_operand D>
constexpr auto set_diag(const X& x, const D& diagonal) {
  const auto xn = detail::as_node<void>(x);
  const auto dn = detail::as_node<void>(diagonal);
  using XN = std::remove_cvref_t<decltype(xn)>;
  using DN = std::remove_cvref_t<decltype(dn)>;
  if constexpr (!detail::set_diag_check<spec_of_node_t<XN>, spec_of_node_t<DN>>::ok) return xn;
  else return graph::set_diag<XN, DN>(xn, dn);
}

/// tf.linalg.diag(diagonal): square matrices [..., K, K] with `diagonal` [..., K] on their main
/// diagonal and zeros elsewhere.
template <detail::tensor_operand D>
constexpr auto diag(const D& diagonal) {
  const auto dn = detail::as_node<void>(diagonal);
  using DN = std::remove_cvref_t<decltype(dn)>;
  static_assert(DN::shape_type::rank >= 1, "staticflow: linalg::diag: the diagonal must have rank 1 or more");
  if constexpr (DN::shape_type::rank == 0) {
    return dn;
  } else {
    // zeros of [..., K, K]: a column of zeros plus a row of zeros, broadcast (no buffer of its own)
    using S = typename DN::shape_type;
    using T = typename DN::value_type;
    if constexpr (S::is_static) {
      return set_diag(zeros<T>(typename detail::square_shape<S>::type{}), dn);
    } else {
      // zeros of [..., K, K]: a column of zeros plus a row of zeros, broadcast
      const auto zero = zeros_like(dn);
      return set_diag(expand_dims(zero, axes<-1>{}) + expand_dims(zero, axes<-2>{}), dn);
    }
  }
}

/// tf.linalg.trace(x): the sum of the main diagonal of each matrix of x [..., M, N], shape [...].
template <detail::tensor_operand X>
constexpr auto trace(const X& x) {
  const auto xn = detail::as_node<void>(x);
  using XN = std::remove_cvref_t<decltype(xn)>;
  if constexpr (!detail::diagonal_check<spec_of_node_t<XN>>::ok) return xn;
  else return reduce_sum(graph::diag_part<XN>(xn), axes<-1>{});
}
}  // namespace linalg

}  // namespace staticflow
