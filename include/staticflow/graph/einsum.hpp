// staticflow/graph/einsum.hpp -- sf::einsum<"ij,jk->ik">(a, b) and sf::tensordot: tf.einsum /
// numpy.einsum with the equation resolved at compile time, as a composite of the ops that exist.
//
// The equation is parsed in a constant expression (`parse_einsum`) and completed with the
// operands' ranks (`complete_einsum`: each '...' becomes labels of its own, aligned at the right as
// broadcasting aligns axes; numpy's implicit output). Every misuse (a character that is not a
// label, a rank that does not match its labels, an output label no operand has, a label whose
// static extents differ) is one `staticflow:` compile error. Then:
//   * diagonals: a label written twice in one operand ("ii->i", "bii->b") takes the diagonal of
//     the pair first (the two axes transposed last, graph::diag_part, which checks that run-time
//     extents agree), so the rest never sees a repeated label.
//   * more than two operands: contracted in pairs from the left, each pair into the labels the
//     rest of the equation still needs.
//   * the matmul path: two operands with exactly one contracted label (in both operands, not in
//     the output), every other label in the output, and a free label in one of them (an output
//     label the other operand lacks: per operand, the one latest in the output) become one
//     sf::matmul: each operand is transposed to [batch..., free, contracted] / [batch...,
//     contracted, free], the batch labels being every other output label (an operand that lacks
//     one has an axis of extent 1 there, which matmul broadcasts: "bsi,io->bso" is b batches of
//     [s, i] x [i, o]); an absent free label is an axis of extent 1, squeezed after; the product
//     goes to the output's order. The contracted extents must be equal (a run-time extent 1
//     against n throws matmul's sf::shape_error where NumPy would broadcast it).
//   * otherwise the fused path: each operand is transposed to the order [output labels...,
//     summed labels...] with axes of extent 1 for the labels it lacks, the two are multiplied
//     (NumPy broadcasting: an extent of 1 broadcasts, as numpy.einsum and tf.einsum do) and the
//     summed labels reduced: one fused loop into the reduction, no buffer for the product.
// Gradients, eager mode, Thrust and ONNX come from the parts (ONNX has no diagonal).
#pragma once

#include <array>
#include <cstddef>
#include <type_traits>
#include <utility>

#include "staticflow/core/axes.hpp"
#include "staticflow/core/shape.hpp"
#include "staticflow/graph/linalg.hpp"
#include "staticflow/graph/matmul.hpp"
#include "staticflow/graph/operators.hpp"
#include "staticflow/graph/reduce.hpp"
#include "staticflow/graph/shape_ops.hpp"

namespace staticflow {

/// An einsum equation as a template argument: `sf::einsum<"ij,jk->ik">(a, b)`.
template <std::size_t N>
struct einsum_string {
  char text[N]{};
  constexpr einsum_string(const char (&s)[N]) {
    for (std::size_t i = 0; i < N; ++i) text[i] = s[i];
  }
};

namespace detail {

/// What can be wrong with an equation, checked one static_assert each.
enum class einsum_problem { none, bad_character, arrow, too_many_operands, repeated_output_label, output_label_missing,
                            repeated_ellipsis, ellipsis_not_in_output, rank_mismatch, too_many_labels };

inline constexpr std::size_t einsum_max_labels = 16;
inline constexpr std::size_t einsum_max_operands = 8;

/// The parsed equation: each operand's labels and the output's, as letters. An ellipsis ('...')
/// is recorded where it stands (position + 1; 0: none) until the operands' ranks replace it with
/// labels of its own (complete_einsum).
struct einsum_equation {
  std::size_t operands = 0;
  std::array<std::array<char, einsum_max_labels>, einsum_max_operands> in{};
  std::array<std::size_t, einsum_max_operands> in_rank{};
  std::array<std::size_t, einsum_max_operands> in_dots{};
  std::array<char, einsum_max_labels> out{};
  std::size_t out_rank = 0, out_dots = 0;
  bool explicit_output = false;
  einsum_problem problem = einsum_problem::none;

  static constexpr bool is_label(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
  static constexpr std::size_t find(const std::array<char, einsum_max_labels>& labels, std::size_t n, char c) {
    for (std::size_t i = 0; i < n; ++i)
      if (labels[i] == c) return i;
    return n;
  }
  constexpr bool in_operand(std::size_t k, char c) const { return k < operands && find(in[k], in_rank[k], c) < in_rank[k]; }
  constexpr bool in_output(char c) const { return find(out, out_rank, c) < out_rank; }

  /// The labels summed over: in an operand, not in the output, in order of first appearance.
  constexpr std::size_t summed(std::array<char, einsum_max_labels>& s) const {
    std::size_t n = 0;
    for (std::size_t k = 0; k < operands; ++k)
      for (std::size_t i = 0; i < in_rank[k]; ++i)
        if (!in_output(in[k][i]) && find(s, n, in[k][i]) == n) s[n++] = in[k][i];
    return n;
  }
};

template <std::size_t N>
constexpr einsum_equation parse_einsum(const einsum_string<N>& s) {
  einsum_equation e;
  std::size_t k = 0;
  bool arrow = false;
  for (std::size_t i = 0; i + 1 < N; ++i) {
    const char c = s.text[i];
    if (c == ' ') continue;
    if (c == '-' && s.text[i + 1] == '>' && !arrow) {
      arrow = true;
      ++i;
      continue;
    }
    if (c == ',' && !arrow) {
      if (++k == einsum_max_operands) {
        e.problem = einsum_problem::too_many_operands;
        return e;
      }
      continue;
    }
    if (c == '.' && i + 3 < N && s.text[i + 1] == '.' && s.text[i + 2] == '.') {
      std::size_t& dots = arrow ? e.out_dots : e.in_dots[k];
      if (dots) {
        e.problem = einsum_problem::repeated_ellipsis;
        return e;
      }
      dots = (arrow ? e.out_rank : e.in_rank[k]) + 1;
      i += 2;
      continue;
    }
    if (!einsum_equation::is_label(c) || (arrow ? e.out_rank : e.in_rank[k]) == einsum_max_labels) {
      e.problem = (c == '-' || c == '>') ? einsum_problem::arrow
                  : einsum_equation::is_label(c) ? einsum_problem::too_many_labels
                                                 : einsum_problem::bad_character;
      return e;
    }
    if (arrow) {
      if (e.in_output(c)) e.problem = einsum_problem::repeated_output_label;
      e.out[e.out_rank++] = c;
    } else {
      e.in[k][e.in_rank[k]++] = c;  // (a label twice in one operand: a diagonal)
    }
  }
  e.operands = k + 1;
  e.explicit_output = arrow;
  return e;
}

/// The label of the j-th axis an ellipsis stands for, counted in the widest ellipsis (ellipses
/// align at the right, as broadcasting does): not a letter, so no written label meets it.
constexpr char ellipsis_label(std::size_t j) { return static_cast<char>(1 + j); }

/// `count` labels inserted into a list of n at position at (false: the list would overflow).
constexpr bool insert_labels(std::array<char, einsum_max_labels>& list, std::size_t& n, std::size_t at, std::size_t first,
                             std::size_t count) {
  if (n + count > einsum_max_labels) return false;
  for (std::size_t i = n; i-- > at;) list[i + count] = list[i];
  for (std::size_t j = 0; j < count; ++j) list[at + j] = ellipsis_label(first + j);
  n += count;
  return true;
}

/// The equation with the operands' ranks known: each ellipsis replaced by the axes it stands for,
/// numpy's implicit output (the ellipsis axes, then the labels written once, alphabetically), and
/// the checks that need both.
template <std::size_t Operands>
constexpr einsum_equation complete_einsum(einsum_equation e, const std::array<std::size_t, Operands>& ranks) {
  if (e.problem != einsum_problem::none || e.operands != Operands) return e;
  std::size_t widest = 0;
  std::array<std::size_t, einsum_max_operands> covered{};
  for (std::size_t k = 0; k < Operands; ++k) {
    if (!e.in_dots[k]) continue;
    if (ranks[k] < e.in_rank[k]) {
      e.problem = einsum_problem::rank_mismatch;
      return e;
    }
    covered[k] = ranks[k] - e.in_rank[k];
    widest = covered[k] > widest ? covered[k] : widest;
  }
  for (std::size_t k = 0; k < Operands; ++k)
    if (e.in_dots[k] && !insert_labels(e.in[k], e.in_rank[k], e.in_dots[k] - 1, widest - covered[k], covered[k])) {
      e.problem = einsum_problem::too_many_labels;
      return e;
    }
  if (e.explicit_output) {
    if (e.out_dots) {
      if (!insert_labels(e.out, e.out_rank, e.out_dots - 1, 0, widest)) e.problem = einsum_problem::too_many_labels;
    } else if (widest > 0) {
      e.problem = einsum_problem::ellipsis_not_in_output;
    }
  } else {
    insert_labels(e.out, e.out_rank, 0, 0, widest);
    for (char c = 'A'; c <= 'z'; ++c) {
      if (!einsum_equation::is_label(c)) continue;
      std::size_t seen = 0;  // occurrences: "ii" is a trace, as in numpy
      for (std::size_t k = 0; k < e.operands; ++k)
        for (std::size_t i = 0; i < e.in_rank[k]; ++i) seen += e.in[k][i] == c;
      if (seen == 1 && e.out_rank < einsum_max_labels) e.out[e.out_rank++] = c;
    }
  }
  for (std::size_t i = 0; i < e.out_rank; ++i) {
    bool found = false;
    for (std::size_t k = 0; k < e.operands; ++k) found = found || e.in_operand(k, e.out[i]);
    if (!found) e.problem = einsum_problem::output_label_missing;
  }
  return e;
}

// ---- diagonals: a label twice in one operand takes the diagonal of those two axes ----

/// Operand k's first label written twice (positions i < j), if any.
struct repeated_pair {
  bool found = false;
  std::size_t i = 0, j = 0;
};
constexpr repeated_pair first_repeat(const einsum_equation& e, std::size_t k) {
  for (std::size_t j = 1; j < e.in_rank[k]; ++j)
    for (std::size_t i = 0; i < j; ++i)
      if (e.in[k][i] == e.in[k][j]) return {true, i, j};
  return {};
}
/// The transposition that brings operand k's first repeated pair last (the others in order).
constexpr std::array<int, einsum_max_labels> diagonal_permutation(const einsum_equation& e, std::size_t k) {
  const repeated_pair r = first_repeat(e, k);
  std::array<int, einsum_max_labels> p{};
  std::size_t n = 0;
  for (std::size_t d = 0; d < e.in_rank[k]; ++d)
    if (d != r.i && d != r.j) p[n++] = static_cast<int>(d);
  p[n++] = static_cast<int>(r.i);
  p[n] = static_cast<int>(r.j);
  return p;
}
/// The equation after operand k's first repeated pair became one axis, last.
constexpr einsum_equation after_diagonal(einsum_equation e, std::size_t k) {
  const auto p = diagonal_permutation(e, k);
  std::array<char, einsum_max_labels> labels{};
  for (std::size_t d = 0; d + 1 < e.in_rank[k]; ++d) labels[d] = e.in[k][static_cast<std::size_t>(p[d])];
  e.in[k] = labels;
  --e.in_rank[k];
  return e;
}
constexpr einsum_equation without_diagonals(einsum_equation e) {
  for (std::size_t k = 0; k < e.operands; ++k)
    while (first_repeat(e, k).found) e = after_diagonal(e, k);
  return e;
}
/// Whether the static extents of each label written twice in operand k agree.
template <class S>
constexpr bool repeated_extents_agree(const einsum_equation& e, std::size_t k) {
  for (std::size_t j = 1; j < e.in_rank[k]; ++j)
    for (std::size_t i = 0; i < j; ++i)
      if (e.in[k][i] == e.in[k][j] && S::dims[i] != dyn && S::dims[j] != dyn && S::dims[i] != S::dims[j]) return false;
  return true;
}

/// Operand K's static extent of label c (dyn when run-time), or `absent_label` when it lacks c.
inline constexpr std::size_t absent_label = dyn - 1;
template <class S>
constexpr std::size_t label_extent(const einsum_equation& e, std::size_t k, char c) {
  const std::size_t i = einsum_equation::find(e.in[k], e.in_rank[k], c);
  return i < e.in_rank[k] ? S::dims[i] : absent_label;
}

/// Whether every label's static extents agree between the two operands (1 broadcasts).
template <class SA, class SB>
constexpr bool einsum_extents_agree(const einsum_equation& e) {
  if (e.operands < 2) return true;
  for (std::size_t i = 0; i < e.in_rank[0]; ++i) {
    const std::size_t a = label_extent<SA>(e, 0, e.in[0][i]), b = label_extent<SB>(e, 1, e.in[0][i]);
    if (b != absent_label && a != dyn && b != dyn && a != b && a != 1 && b != 1) return false;
  }
  return true;
}

/// The order in which the fused path lays the labels out: the output's, then the summed ones.
struct einsum_layout {
  std::array<char, 2 * einsum_max_labels> labels{};
  std::size_t rank = 0, out_rank = 0;
};
constexpr einsum_layout fused_layout(const einsum_equation& e) {
  einsum_layout l;
  for (std::size_t i = 0; i < e.out_rank; ++i) l.labels[l.rank++] = e.out[i];
  l.out_rank = l.rank;
  std::array<char, einsum_max_labels> s{};
  const std::size_t n = e.summed(s);
  for (std::size_t i = 0; i < n; ++i) l.labels[l.rank++] = s[i];
  return l;
}

/// Position of label c in a list.
template <std::size_t N>
constexpr int position(const std::array<char, N>& list, std::size_t n, char c) {
  for (std::size_t i = 0; i < n; ++i)
    if (list[i] == c) return static_cast<int>(i);
  return -1;
}

/// The matmul path's roles: batch labels (in output order), the product's left and right free
/// labels (0: none) and the contracted label; `usable` when the equation is a matmul.
struct einsum_matmul {
  bool usable = false;
  bool swapped = false;  // b's free label comes first in the output: the product is b x a
  std::array<char, einsum_max_labels> batch{};
  std::size_t batch_rank = 0;
  char free_a = 0, free_b = 0, contracted = 0;
};
template <class SA, class SB>
constexpr einsum_matmul matmul_roles(const einsum_equation& e) {
  einsum_matmul m;
  if (e.operands != 2) return m;
  std::size_t contracted = 0;
  for (std::size_t k = 0; k < 2; ++k)
    for (std::size_t i = 0; i < e.in_rank[k]; ++i) {
      const char c = e.in[k][i];
      const bool both = e.in_operand(1 - k, c), out = e.in_output(c);
      if (both && !out) {
        if (k == 0) ++contracted, m.contracted = c;
      } else if (!both && !out) {
        return m;  // summed within one operand
      }
    }
  // Each operand's free label: of its output labels the other lacks, the one latest in the
  // output. Its other such labels are batch labels the other operand broadcasts over (an axis of
  // extent 1 there): "bsi,io->bso" is [b] batches of [s, i] x [i, o], one matmul.
  for (std::size_t i = 0; i < e.out_rank; ++i) {
    const char c = e.out[i];
    if (!e.in_operand(1, c)) m.free_a = c;
    else if (!e.in_operand(0, c)) m.free_b = c;
  }
  // (no free label at all is a batch of dot products: the fused path does those in one loop)
  if (contracted != 1 || (!m.free_a && !m.free_b)) return m;
  // matmul needs equal contracted extents: statically equal, or both known only at run time
  const std::size_t ka = label_extent<SA>(e, 0, m.contracted), kb = label_extent<SB>(e, 1, m.contracted);
  if ((ka == dyn) != (kb == dyn) || (ka != dyn && ka != kb)) return m;
  for (std::size_t i = 0; i < e.out_rank; ++i)
    if (e.out[i] != m.free_a && e.out[i] != m.free_b) m.batch[m.batch_rank++] = e.out[i];
  if (m.free_a && m.free_b && position(e.out, e.out_rank, m.free_b) < position(e.out, e.out_rank, m.free_a)) {
    m.swapped = true;  // "bij,bkj->bki" is b x a^T: one transpose fewer than a x b^T, transposed
    const char f = m.free_a;
    m.free_a = m.free_b;
    m.free_b = f;
  }
  m.usable = true;
  return m;
}

/// Operand x (labels `from`, rank R) transposed so that its labels follow `order` (labels it lacks
/// skipped), with no node when the order is already right.
template <auto Perm, class X, std::size_t... I>
constexpr auto permuted(const X& x, std::index_sequence<I...>) {
  if constexpr (((Perm[I] == static_cast<int>(I)) && ...)) return x;
  else return transpose(x, axes<Perm[I]...>{});
}

/// Inserts axes of extent 1 at the positions Insert lists (increasing).
template <auto Insert, std::size_t Count, std::size_t J = 0, class X>
constexpr auto with_unit_axes(const X& x) {
  if constexpr (J == Count) return x;
  else return with_unit_axes<Insert, Count, J + 1>(expand_dims(x, axes<Insert[J]>{}));
}

/// The permutation that brings operand K's labels into the order of `order`, and the positions
/// (in that order) of the labels it lacks.
template <std::size_t N>
struct arrangement {
  std::array<int, einsum_max_labels> perm{};
  std::array<int, N> insert{};
  std::size_t inserts = 0;
};
template <std::size_t N>
constexpr arrangement<N> arrange(const einsum_equation& e, std::size_t k, const std::array<char, N>& order, std::size_t n) {
  arrangement<N> a;
  std::size_t next = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const int at = position(e.in[k], e.in_rank[k], order[i]);
    if (at >= 0) a.perm[next++] = at;
    else a.insert[a.inserts++] = static_cast<int>(i);
  }
  return a;
}

template <std::size_t K, auto Eq, auto Order, std::size_t OrderRank, class X>
constexpr auto arranged(const X& x) {
  constexpr auto a = arrange(Eq, K, Order, OrderRank);
  constexpr std::size_t rank = X::shape_type::rank;
  const auto p = permuted<a.perm>(x, std::make_index_sequence<rank>{});
  return with_unit_axes<a.insert, a.inserts>(p);
}

template <auto Eq, class... X>
constexpr auto einsum_fused(const X&... x) {
  constexpr auto layout = fused_layout(Eq);
  const auto product = [&]<std::size_t... K>(std::index_sequence<K...>) {
    return (arranged<K, Eq, layout.labels, layout.rank>(x) * ...);
  }(std::index_sequence_for<X...>{});
  if constexpr (layout.rank == layout.out_rank) {
    return product;
  } else {
    return [&]<std::size_t... S>(std::index_sequence<S...>) {
      return reduce_sum(product, axes<static_cast<int>(layout.out_rank + S)...>{});
    }(std::make_index_sequence<layout.rank - layout.out_rank>{});
  }
}

/// The matmul path's orders: a as [batch..., free_a or 1, contracted], b as [batch..., contracted,
/// free_b or 1] ('#' stands for an axis of extent 1), and the product's [batch..., free_a, free_b].
using matmul_order = std::array<char, einsum_max_labels + 2>;
constexpr matmul_order matmul_order_of(const einsum_matmul& m, bool second) {
  matmul_order o{};
  for (std::size_t i = 0; i < m.batch_rank; ++i) o[i] = m.batch[i];
  const char free = second ? m.free_b : m.free_a;
  o[m.batch_rank + (second ? 1 : 0)] = free ? free : '#';
  o[m.batch_rank + (second ? 0 : 1)] = m.contracted;
  return o;
}
constexpr matmul_order matmul_produced(const einsum_matmul& m) {
  matmul_order o{};
  std::size_t n = 0;
  for (std::size_t i = 0; i < m.batch_rank; ++i) o[n++] = m.batch[i];
  if (m.free_a) o[n++] = m.free_a;
  if (m.free_b) o[n++] = m.free_b;
  return o;
}
constexpr std::array<int, einsum_max_labels> output_permutation(const einsum_equation& e, const matmul_order& produced) {
  std::array<int, einsum_max_labels> p{};
  for (std::size_t i = 0; i < e.out_rank; ++i) p[i] = position(produced, e.out_rank, e.out[i]);
  return p;
}

template <auto Eq, auto M, class A, class B>
constexpr auto einsum_matmul_path(const A& a, const B& b) {
  constexpr std::size_t rank = M.batch_rank + 2;
  constexpr matmul_order order_a = matmul_order_of(M, false), order_b = matmul_order_of(M, true);
  // (swapped: free_a is b's label, so b goes first)
  const auto product = [&] {
    if constexpr (M.swapped) return matmul(arranged<1, Eq, order_a, rank>(b), arranged<0, Eq, order_b, rank>(a));
    else return matmul(arranged<0, Eq, order_a, rank>(a), arranged<1, Eq, order_b, rank>(b));
  }();
  // [batch..., free_a or 1, free_b or 1]: drop the unit axes, then the output's order
  const auto squeezed = [&] {
    if constexpr (!M.free_a && !M.free_b) return squeeze(product, axes<int(rank) - 2, int(rank) - 1>{});
    else if constexpr (!M.free_a) return squeeze(product, axes<int(rank) - 2>{});
    else if constexpr (!M.free_b) return squeeze(product, axes<int(rank) - 1>{});
    else return product;
  }();
  constexpr auto perm = output_permutation(Eq, matmul_produced(M));
  return permuted<perm>(squeezed, std::make_index_sequence<Eq.out_rank>{});
}

/// Operand K with every label it writes twice taken as a diagonal (the pair's axes brought last,
/// then graph::diag_part; square: the two extents must agree when the function runs).
template <auto Eq, std::size_t K, class X>
constexpr auto diagonals_taken(const X& x) {
  constexpr repeated_pair r = first_repeat(Eq, K);
  if constexpr (!r.found) {
    return x;
  } else {
    constexpr auto perm = diagonal_permutation(Eq, K);
    const auto p = permuted<perm>(x, std::make_index_sequence<X::shape_type::rank>{});
    return diagonals_taken<after_diagonal(Eq, K), K>(graph::diag_part<std::remove_cvref_t<decltype(p)>, true>(p));
  }
}

/// Operands 0 and 1 contracted into what the rest of the equation needs of them: their labels
/// that a later operand or the output holds, in order of appearance.
constexpr einsum_equation first_pair(const einsum_equation& e) {
  einsum_equation p;
  p.operands = 2;
  p.explicit_output = true;
  for (std::size_t k = 0; k < 2; ++k) {
    p.in[k] = e.in[k];
    p.in_rank[k] = e.in_rank[k];
    for (std::size_t i = 0; i < e.in_rank[k]; ++i) {
      const char c = e.in[k][i];
      bool needed = e.in_output(c);
      for (std::size_t later = 2; later < e.operands; ++later) needed = needed || e.in_operand(later, c);
      if (needed && !p.in_output(c)) p.out[p.out_rank++] = c;
    }
  }
  return p;
}
/// The equation once operands 0 and 1 are one (first_pair's output).
constexpr einsum_equation after_first_pair(const einsum_equation& e) {
  einsum_equation r = e;
  const einsum_equation p = first_pair(e);
  r.operands = e.operands - 1;
  r.in[0] = p.out;
  r.in_rank[0] = p.out_rank;
  for (std::size_t k = 1; k < r.operands; ++k) r.in[k] = e.in[k + 1], r.in_rank[k] = e.in_rank[k + 1];
  r.in[r.operands] = {};
  r.in_rank[r.operands] = 0;
  return r;
}

/// An equation without diagonals over operands of matching ranks: one operand is a fused
/// reduction, two the matmul or the fused path, more a chain of pairs from the left (tf.einsum
/// orders the pairs by cost; this order is the one written).
template <auto Eq, class... X>
constexpr auto einsum_contract(const X&... x) {
  if constexpr (sizeof...(X) == 1) {
    return einsum_fused<Eq>(x...);
  } else if constexpr (sizeof...(X) == 2) {
    using SA = typename std::tuple_element_t<0, std::tuple<X...>>::shape_type;
    using SB = typename std::tuple_element_t<1, std::tuple<X...>>::shape_type;
    constexpr bool agree = einsum_extents_agree<SA, SB>(Eq);
    static_assert(agree, "staticflow: einsum: a label has different static extents in two operands (neither is 1)");
    constexpr auto roles = matmul_roles<SA, SB>(Eq);
    if constexpr (!agree) return;  // (one error: nothing is built)
    else if constexpr (roles.usable) return einsum_matmul_path<Eq, roles>(x...);
    else return einsum_fused<Eq>(x...);
  } else {
    return [](const auto& a, const auto& b, const auto&... more) {
      const auto ab = einsum_contract<first_pair(Eq)>(a, b);
      if constexpr (std::is_void<decltype(ab)>::value) return;
      else return einsum_contract<after_first_pair(Eq)>(ab, more...);
    }(x...);
  }
}

template <auto Eq, class... X>
constexpr auto einsum_of(const X&... x) {
  static_assert(Eq.problem != einsum_problem::bad_character,
                "staticflow: einsum: an equation holds letters, '...', ',' between operands and '->' only");
  static_assert(Eq.problem != einsum_problem::arrow, "staticflow: einsum: '->' appears once, after the operands' labels");
  static_assert(Eq.problem != einsum_problem::too_many_operands, "staticflow: einsum takes at most 8 operands");
  static_assert(Eq.problem != einsum_problem::too_many_labels, "staticflow: einsum: an operand or the output has more than 16 axes");
  static_assert(Eq.problem != einsum_problem::repeated_ellipsis, "staticflow: einsum: '...' appears twice in one operand or the output");
  static_assert(Eq.problem != einsum_problem::repeated_output_label, "staticflow: einsum: a label appears twice in the output");
  static_assert(Eq.problem != einsum_problem::output_label_missing, "staticflow: einsum: an output label appears in no operand");
  static_assert(Eq.problem != einsum_problem::ellipsis_not_in_output,
                "staticflow: einsum: the operands' '...' stand for axes but the output has no '...' (numpy's rule)");
  static_assert(Eq.problem != einsum_problem::rank_mismatch || Eq.operands != sizeof...(X),
                "staticflow: einsum: an operand's rank differs from its number of labels");
  if constexpr (Eq.problem == einsum_problem::none || Eq.problem == einsum_problem::rank_mismatch) {
    static_assert(Eq.operands == sizeof...(X), "staticflow: einsum: the equation names another number of operands than are given");
    if constexpr (Eq.operands == sizeof...(X)) {
      constexpr bool ranks_match = Eq.problem == einsum_problem::none && [] {
        std::size_t k = 0;
        return ((Eq.in_rank[k++] == X::shape_type::rank) && ...);
      }();
      static_assert(Eq.problem == einsum_problem::rank_mismatch || ranks_match,
                    "staticflow: einsum: an operand's rank differs from its number of labels");
      if constexpr (ranks_match) {
        constexpr bool square = [] {
          std::size_t k = 0;
          return (repeated_extents_agree<typename X::shape_type>(Eq, k++) && ...);
        }();
        static_assert(square, "staticflow: einsum: a label written twice in one operand names axes of different static extents");
        if constexpr (square) {
          return [&]<std::size_t... K>(std::index_sequence<K...>) {
            return einsum_contract<without_diagonals(Eq)>(diagonals_taken<Eq, K>(x)...);
          }(std::index_sequence_for<X...>{});
        }
      }
    }
  }
}
}  // namespace detail

/// tf.einsum / numpy.einsum with one or two operands: `sf::einsum<"bij,bjk->bik">(a, b)`,
/// `sf::einsum<"ij->ji">(x)`, `sf::einsum<"i,i">(u, v)` (no '->': numpy's implicit output, the
/// labels that appear once, alphabetically). A matmul-shaped equation is one sf::matmul; any other
/// is a fused multiply and reduction.
template <einsum_string Equation, detail::tensor_operand... X>
  requires(sizeof...(X) >= 1)
constexpr auto einsum(const X&... x) {
  constexpr auto eq = detail::complete_einsum(
      detail::parse_einsum(Equation), std::array<std::size_t, sizeof...(X)>{decltype(detail::as_node<void>(x))::shape_type::rank...});
  return detail::einsum_of<eq>(detail::as_node<void>(x)...);
}

/// tf.tensordot(a, b, axes=N): the last N axes of a contracted with the first N of b.
template <std::size_t N, detail::tensor_operand A, detail::tensor_operand B>
constexpr auto tensordot(const A& a, const B& b) {
  const auto an = detail::as_node<void>(a);
  const auto bn = detail::as_node<void>(b);
  constexpr std::size_t ra = decltype(an)::shape_type::rank, rb = decltype(bn)::shape_type::rank;
  static_assert(N <= ra && N <= rb, "staticflow: tensordot: more contracted axes than an operand has");
  static_assert(ra <= detail::einsum_max_labels && rb <= detail::einsum_max_labels && ra + rb - 2 * N <= detail::einsum_max_labels,
                "staticflow: tensordot: too many axes");
  if constexpr (N <= ra && N <= rb && ra <= detail::einsum_max_labels && rb <= detail::einsum_max_labels &&
                ra + rb - 2 * N <= detail::einsum_max_labels) {
    // a's labels a.., b's continue after a's free ones, sharing the N contracted labels
    constexpr auto eq = [] {
      detail::einsum_equation e;
      e.operands = 2;
      e.in_rank = {ra, rb};
      for (std::size_t i = 0; i < ra; ++i) e.in[0][i] = char('a' + i);
      for (std::size_t i = 0; i < rb; ++i) e.in[1][i] = i < N ? char('a' + ra - N + i) : char('a' + ra + i - N);
      for (std::size_t i = 0; i < ra - N; ++i) e.out[e.out_rank++] = char('a' + i);
      for (std::size_t i = N; i < rb; ++i) e.out[e.out_rank++] = char('a' + ra + i - N);
      return e;
    }();
    return detail::einsum_of<eq>(an, bn);
  }
}

namespace detail {
/// The checks of tensordot's axis pairs (AA of a's rank RA with BA of b's rank RB), each a
/// `staticflow:` static_assert; `ok` guards the einsum.
template <class SA, class SB, class AA, class BA>
struct tensordot_pairs_check;
template <class SA, class SB, int... AA, int... BA>
struct tensordot_pairs_check<SA, SB, axes<AA...>, axes<BA...>> {
  static constexpr std::size_t ra = SA::rank, rb = SB::rank, n = sizeof...(AA);
  static constexpr bool counts = sizeof...(AA) == sizeof...(BA);
  static_assert(counts, "staticflow: tensordot: a's and b's axis lists must have one length (the pairs of contracted axes)");
  static constexpr bool in_range = (axis_in_range(AA, ra) && ...) && (axis_in_range(BA, rb) && ...);
  static_assert(in_range, "staticflow: tensordot: an axis is out of range for its operand's rank");
  static constexpr std::array<std::size_t, n> a_axes{static_cast<std::size_t>(in_range ? normalize_axis(AA, ra) : 0)...};
  static constexpr std::array<std::size_t, sizeof...(BA)> b_axes{static_cast<std::size_t>(in_range ? normalize_axis(BA, rb) : 0)...};
  static constexpr bool distinct = [] {
    for (std::size_t i = 0; i < a_axes.size(); ++i)
      for (std::size_t j = 0; j < i; ++j)
        if (a_axes[i] == a_axes[j]) return false;
    for (std::size_t i = 0; i < b_axes.size(); ++i)
      for (std::size_t j = 0; j < i; ++j)
        if (b_axes[i] == b_axes[j]) return false;
    return true;
  }();
  static_assert(!in_range || distinct, "staticflow: tensordot: an operand's axis is contracted twice");
  static constexpr bool extents_agree = [] {
    if constexpr (counts && in_range) {
      for (std::size_t k = 0; k < n; ++k)
        if (SA::dims[a_axes[k]] != dyn && SB::dims[b_axes[k]] != dyn && SA::dims[a_axes[k]] != SB::dims[b_axes[k]]) return false;
    }
    return true;
  }();
  static_assert(extents_agree, "staticflow: tensordot: a pair of contracted axes has different static extents");
  static constexpr bool labels =
      !(counts && in_range) || (ra <= einsum_max_labels && rb <= einsum_max_labels && ra + rb - 2 * n <= einsum_max_labels);
  static_assert(labels, "staticflow: tensordot: too many axes");
  static constexpr bool ok = counts && in_range && distinct && extents_agree && labels;
  /// a's axis i is label i; b's axis contracted with a's axis a_axes[k] takes that label, its
  /// other axes new labels; the output: a's free axes, then b's, each in order.
  static constexpr einsum_equation equation() {
    einsum_equation e;
    e.operands = 2;
    e.in_rank = {ra, rb};
    for (std::size_t i = 0; i < ra; ++i) e.in[0][i] = char('a' + i);
    char next = char('a' + ra);
    for (std::size_t j = 0; j < rb; ++j) {
      e.in[1][j] = 0;
      for (std::size_t k = 0; k < n; ++k)
        if (b_axes[k] == j) e.in[1][j] = e.in[0][a_axes[k]];
      if (e.in[1][j] == 0) e.in[1][j] = next++;
    }
    for (std::size_t i = 0; i < ra; ++i) {
      bool contracted = false;
      for (std::size_t k = 0; k < n; ++k) contracted = contracted || a_axes[k] == i;
      if (!contracted) e.out[e.out_rank++] = e.in[0][i];
    }
    for (std::size_t j = 0; j < rb; ++j) {
      bool contracted = false;
      for (std::size_t k = 0; k < n; ++k) contracted = contracted || b_axes[k] == j;
      if (!contracted) e.out[e.out_rank++] = e.in[1][j];
    }
    return e;
  }
};
}  // namespace detail

/// tf.tensordot(a, b, axes=[a_axes, b_axes]): `sf::tensordot(a, b, sf::axes<1, 0>{}, sf::axes<0, 2>{})`
/// contracts a's axis 1 with b's axis 0 and a's axis 0 with b's axis 2 (pairs in order; negative
/// axes count from the end); the result's axes are a's uncontracted ones in order, then b's.
/// Paired axes must have one extent (static: a compile error; run-time: einsum's shape_error).
template <detail::tensor_operand A, detail::tensor_operand B, int... AA, int... BA>
constexpr auto tensordot(const A& a, const B& b, axes<AA...>, axes<BA...>) {
  const auto an = detail::as_node<void>(a);
  const auto bn = detail::as_node<void>(b);
  using check = detail::tensordot_pairs_check<typename decltype(an)::shape_type, typename decltype(bn)::shape_type, axes<AA...>,
                                              axes<BA...>>;
  if constexpr (!check::ok) {
    return an;
  } else {
    constexpr detail::einsum_equation eq = check::equation();
    return detail::einsum_of<eq>(an, bn);
  }
}

}  // namespace staticflow
