// staticflow/backend/cpu/masking.hpp -- sf::boolean_mask, its gradient and sf::where(condition)
// (graph/masking.hpp) on the CPU. The mask is computed into a buffer, its true positions listed,
// and then the result is allocated (the slot's extent is the count) and filled by gather's row
// loops with those positions as the indices; the gradient writes each row of the result once, the
// adjoint's row or zeros. Shape errors are thrown before anything is allocated or written.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "staticflow/backend/cpu/gather.hpp"
#include "staticflow/backend/cpu/operand.hpp"
#include "staticflow/backend/cpu/parallel.hpp"
#include "staticflow/graph/masking.hpp"
#include "staticflow/graph/traversal.hpp"

namespace staticflow::cpu {

template <class Node>
struct slot_evaluator;  // (declared in backend/cpu/run_plan.hpp, which includes this header)

namespace detail {
/// The positions (row-major, over `size` elements) where the mask is true.
inline std::vector<std::int64_t> true_positions(const bool* mask, std::size_t size) {
  std::vector<std::int64_t> kept;
  for (std::size_t p = 0; p < size; ++p)
    if (mask[p]) kept.push_back(static_cast<std::int64_t>(p));
  return kept;
}

/// A boolean_mask node's or its gradient's mask, evaluated and listed, with gather's layout of the
/// tensor around it (the mask's shape checked against the tensor's first).
template <class Sig, class N, class Views>
auto listed_mask(const N& n, const Views& views) {
  const auto args = staticflow::detail::extents_of_views(views);
  const auto xe = graph::node_extents(n.tensor, args);
  const auto me = graph::node_extents(n.mask, args);
  graph::detail::gather_layout l = graph::detail::masked_layout<N::axis>(xe, me);
  std::vector<std::int64_t> kept;
  if (l.n > 0) kept = true_positions(contiguous_operand<bool, Sig>(n.mask, views, me), l.n);
  l.positions = kept.size();
  struct listed {
    std::remove_const_t<decltype(xe)> tensor_extents;
    graph::detail::gather_layout layout;
    std::vector<std::int64_t> kept;
  };
  return listed{xe, l, std::move(kept)};
}
}  // namespace detail

/// boolean_mask: the kept rows, copied into a result of their count.
template <class X, class M, std::size_t Axis>
struct slot_evaluator<graph::boolean_mask<X, M, Axis>> {
  template <class FullSig, class All, class Out>
  static void run(const graph::boolean_mask<X, M, Axis>& n, All& all, const Out& out) {
    using T = typename X::value_type;
    const auto m = detail::listed_mask<FullSig>(n, all);
    const graph::detail::gather_layout& l = m.layout;
    // the tensor is evaluated before the result is allocated: if it throws, nothing is written
    const bool empty = l.outer * l.positions * l.inner == 0;
    const T* x = empty ? nullptr : detail::contiguous_operand<T, FullSig>(n.tensor, all, m.tensor_extents);
    T* data = out.template allocate<0>(graph::boolean_mask<X, M, Axis>::kept_extents(m.tensor_extents, l.positions));
    if (!empty) detail::copy_rows<false, detail::static_inner_size<typename X::shape_type, Axis + M::shape_type::rank - 1>()>(x, m.kept.data(), l, data);
  }
};

/// sf::where(condition): the coordinates of the trues, row by row.
template <class C>
struct slot_evaluator<graph::true_coordinates<C>> {
  template <class FullSig, class All, class Out>
  static void run(const graph::true_coordinates<C>& n, All& all, const Out& out) {
    constexpr std::size_t R = C::shape_type::rank;
    const auto ce = graph::node_extents(n.condition, staticflow::detail::extents_of_views(all));
    const std::size_t size = staticflow::detail::product(ce);
    std::vector<std::int64_t> kept;
    if (size > 0) kept = detail::true_positions(detail::contiguous_operand<bool, FullSig>(n.condition, all, ce), size);
    std::int64_t* data = out.template allocate<0>(extents<2>{kept.size(), R});
    for (std::size_t j = 0; j < kept.size(); ++j) {
      auto p = static_cast<std::size_t>(kept[j]);
      for (std::size_t d = R; d-- > 0;) {
        data[j * R + d] = static_cast<std::int64_t>(p % ce[d]);
        p /= ce[d];
      }
    }
  }
};

/// boolean_mask's gradient: row j of the adjoint at the j-th true position, zeros elsewhere. One
/// pass over the result's rows (no zero fill first); a block of rows finds the adjoint row it
/// starts at by a binary search of the true positions.
template <class Sig, class G, class X, class M, std::size_t Axis, class Views, std::size_t R, class T>
void materialize(const graph::boolean_mask_gradient<G, X, M, Axis>& n, const Views& views, const extents<R>& out_ext, T* out) {
  const auto m = detail::listed_mask<Sig>(n, views);
  const graph::detail::gather_layout& l = m.layout;
  const auto ge = graph::node_extents(n.g, staticflow::detail::extents_of_views(views));
  graph::check_kept_rows(ge[Axis], l.positions);
  // the adjoint is evaluated before anything is written: if it throws, out is untouched
  const T* g = l.outer * l.positions * l.inner == 0 ? nullptr : detail::contiguous_operand<T, Sig>(n.g, views, ge);
  const std::size_t rows = l.outer * l.n;
  if (rows * l.inner == 0) return;
  constexpr std::size_t static_inner = detail::static_inner_size<typename X::shape_type, Axis + M::shape_type::rank - 1>();
  const std::int64_t* kept = m.kept.data();
  parallel_for(rows, threads_for(staticflow::detail::product(out_ext)), [&](std::size_t b, std::size_t e) {
    std::size_t o = b / l.n, p = b % l.n;
    std::size_t j = static_cast<std::size_t>(std::lower_bound(kept, kept + l.positions, static_cast<std::int64_t>(p)) - kept);
    for (std::size_t row = b; row < e; ++row) {
      T* to = out + row * l.inner;
      const std::size_t inner = static_inner > 0 ? static_inner : l.inner;
      if (j < l.positions && static_cast<std::size_t>(kept[j]) == p) {
        const T* from = g + (o * l.positions + j) * l.inner;
        for (std::size_t k = 0; k < inner; ++k) to[k] = from[k];
        ++j;
      } else {
        for (std::size_t k = 0; k < inner; ++k) to[k] = T(0);
      }
      if (++p == l.n) p = 0, j = 0, ++o;
    }
  });
}

}  // namespace staticflow::cpu
