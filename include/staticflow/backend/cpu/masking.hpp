// staticflow/backend/cpu/masking.hpp -- sf::boolean_mask, sf::repeat by a tensor, their gradient
// and sf::where(condition) (graph/masking.hpp) on the CPU. The selector (mask or counts) is
// computed into a buffer and the rows it takes listed; then the result is allocated (the slot's
// extent is their count) and filled by gather's row loops with those positions as the indices;
// the gradient writes each row of the result once, summing the adjoint's rows taken from it.
// Shape errors and negative counts are thrown before anything is allocated or written.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "staticflow/backend/cpu/gather.hpp"
#include "staticflow/backend/cpu/operand.hpp"
#include "staticflow/backend/cpu/parallel.hpp"
#include "staticflow/graph/masking.hpp"
#include "staticflow/graph/traversal.hpp"
#include "staticflow/plan/arena.hpp"

namespace staticflow::cpu {

template <class Node>
struct slot_evaluator;  // (declared in backend/cpu/run_plan.hpp, which includes this header)

namespace detail {
/// A selected_rows node's or its gradient's selector, evaluated and listed: the rows it takes, in
/// order (each as often as it is taken), with gather's layout of the tensor around them. The
/// selector's shape is checked against the tensor's first.
template <class Sig, class N, class Views>
auto listed_rows(const N& n, const Views& views) {
  using Kind = typename N::kind;
  using M = std::remove_cvref_t<decltype(n.mask)>;
  using S = std::conditional_t<std::is_same<Kind, graph::by_mask>::value, bool, typename M::value_type>;
  const auto args = staticflow::detail::extents_of_views(views);
  const auto xe = graph::node_extents(n.tensor, args);
  const auto me = graph::node_extents(n.mask, args);
  graph::detail::gather_layout l = Kind::template layout<N::axis>(xe, me);
  const std::size_t selectors = staticflow::detail::product(me);
  std::int64_t* kept = nullptr;
  if (l.n > 0 && selectors > 0) {
    const S* selector = contiguous_operand<S, Sig>(n.mask, views, me);
    l.positions = Kind::count(selector, selectors, l.n);
    // (from the call's arena: a vector grown per call was an mmap and page faults per call)
    kept = static_cast<std::int64_t*>(plan::arena::local().allocate(sizeof(std::int64_t) * (l.positions ? l.positions : 1)));
    Kind::list(selector, selectors, l.n, kept);
  }
  struct listed {
    std::remove_const_t<decltype(xe)> tensor_extents;
    graph::detail::gather_layout layout;
    const std::int64_t* kept;
  };
  return listed{xe, l, kept};
}
}  // namespace detail

/// boolean_mask, repeat by a tensor: the rows taken, copied into a result of their count.
template <class Kind, class X, class M, std::size_t Axis>
struct slot_evaluator<graph::selected_rows<Kind, X, M, Axis>> {
  using node_type = graph::selected_rows<Kind, X, M, Axis>;
  template <class FullSig, class All, class Out>
  static void run(const node_type& n, All& all, const Out& out) {
    using T = typename X::value_type;
    const auto m = detail::listed_rows<FullSig>(n, all);
    const graph::detail::gather_layout& l = m.layout;
    // the tensor is evaluated before the result is allocated: if it throws, nothing is written
    const bool empty = l.outer * l.positions * l.inner == 0;
    const T* x = empty ? nullptr : detail::contiguous_operand<T, FullSig>(n.tensor, all, m.tensor_extents);
    T* data = out.template allocate<0>(node_type::kept_extents(m.tensor_extents, l.positions));
    if (!empty) detail::copy_rows<false, detail::static_inner_size<typename X::shape_type, Axis + node_type::covered - 1>()>(x, m.kept, l, data);
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
    const bool* condition = size > 0 ? detail::contiguous_operand<bool, FullSig>(n.condition, all, ce) : nullptr;
    const std::size_t count = size > 0 ? graph::by_mask::count(condition, size, size) : 0;
    std::int64_t* data = out.template allocate<0>(extents<2>{count, R});
    if (count == 0) return;
    if constexpr (R == 1) {
      graph::by_mask::list(condition, size, size, data);  // the positions are the coordinates
      return;
    }
    auto* kept = static_cast<std::int64_t*>(plan::arena::local().allocate(sizeof(std::int64_t) * count));
    graph::by_mask::list(condition, size, size, kept);
    for (std::size_t j = 0; j < count; ++j) {
      auto p = static_cast<std::size_t>(kept[j]);
      for (std::size_t d = R; d-- > 0;) {
        data[j * R + d] = static_cast<std::int64_t>(p % ce[d]);
        p /= ce[d];
      }
    }
  }
};

/// The gradient of the selected rows: row p of the result is zeros plus the adjoint's rows taken
/// from row p, in order (one or none for a mask; Thrust adds in the same order from zeros, so
/// both give the same bits, -0.0 included). One pass over the result's rows; a block of rows finds
/// the adjoint row it starts at by a binary search of the listed positions.
template <class Sig, class Kind, class G, class X, class M, std::size_t Axis, class Views, std::size_t R, class T>
void materialize(const graph::selected_rows_gradient<Kind, G, X, M, Axis>& n, const Views& views, const extents<R>& out_ext, T* out) {
  using node_type = graph::selected_rows_gradient<Kind, G, X, M, Axis>;
  const auto m = detail::listed_rows<Sig>(n, views);
  const graph::detail::gather_layout& l = m.layout;
  const auto ge = graph::node_extents(n.g, staticflow::detail::extents_of_views(views));
  graph::check_kept_rows<Kind>(ge[Axis], l.positions);
  // the adjoint is evaluated before anything is written: if it throws, out is untouched
  const T* g = l.outer * l.positions * l.inner == 0 ? nullptr : detail::contiguous_operand<T, Sig>(n.g, views, ge);
  const std::size_t rows = l.outer * l.n;
  if (rows * l.inner == 0) return;
  constexpr std::size_t static_inner = detail::static_inner_size<typename X::shape_type, Axis + node_type::covered - 1>();
  const std::int64_t* kept = m.kept;
  parallel_for(rows, threads_for(staticflow::detail::product(out_ext)), [&](std::size_t b, std::size_t e) {
    std::size_t o = b / l.n, p = b % l.n;
    std::size_t j = static_cast<std::size_t>(std::lower_bound(kept, kept + l.positions, static_cast<std::int64_t>(p)) - kept);
    const std::size_t inner = static_inner > 0 ? static_inner : l.inner;
    for (std::size_t row = b; row < e; ++row) {
      T* to = out + row * l.inner;
      for (std::size_t k = 0; k < inner; ++k) to[k] = T(0);
      for (; j < l.positions && static_cast<std::size_t>(kept[j]) == p; ++j) {
        const T* from = g + (o * l.positions + j) * l.inner;
        for (std::size_t k = 0; k < inner; ++k) to[k] += from[k];
      }
      if (++p == l.n) p = 0, j = 0, ++o;
    }
  });
}

}  // namespace staticflow::cpu
