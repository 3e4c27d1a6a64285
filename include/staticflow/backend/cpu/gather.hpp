// staticflow/backend/cpu/gather.hpp -- sf::gather and its gradient (graph/gather.hpp) on the CPU.
//
// x seen as [outer, n, inner] around the axis, the indices as `positions` values: the result is
// [outer, positions, inner], each inner row copied from x's row indices[p]. The gradient adds the
// rows of the adjoint back into zeros of x's shape in index order, so repeated indices always
// add up in the same order: work items of (outer block, band of 16 columns) are split across
// threads, never the positions, and 1 or 2 threads give the same bits. (Rows of 16 columns or
// fewer with one outer block, a 1-D table, run on one thread: a sort of the positions by index
// would parallelize those too.) The row loops (copy_rows, add_rows) are the segment sums' too
// (backend/cpu/segment.hpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <type_traits>

#include "staticflow/backend/cpu/operand.hpp"
#include "staticflow/backend/cpu/parallel.hpp"
#include "staticflow/graph/gather.hpp"

namespace staticflow::cpu {
namespace detail {
/// Every index checked against [0, n) before anything is written (TF's CPU rule).
template <class J>
void check_indices(const J* indices, std::size_t positions, std::size_t n, const char* what) {
  for (std::size_t p = 0; p < positions; ++p)
    if (indices[p] < 0 || static_cast<std::size_t>(indices[p]) >= n) graph::detail::throw_bad_index(what, p, indices[p], n);
}

/// The number of elements after Axis when every such dimension is static, else 0.
template <class S, std::size_t Axis>
constexpr std::size_t static_inner_size() {
  std::size_t n = 1;
  for (std::size_t d = Axis + 1; d < S::rank; ++d) {
    if (S::dims[d] == dyn) return 0;
    n *= S::dims[d];
  }
  return n;
}

/// A gather or gather_gradient node's operands, and its indices read and checked against the
/// axis before the kernel writes anything.
template <class Sig, class N, class Views>
auto checked_gather_inputs(const N& n, const Views& views, const char* what) {
  using J = typename std::remove_cvref_t<decltype(n.indices)>::value_type;
  const auto found = graph::detail::operands_of(n, staticflow::detail::extents_of_views(views));
  const J* indices = contiguous_operand<J, Sig>(n.indices, views, found.index_extents);
  check_indices(indices, found.layout.positions, found.layout.n, what);
  struct inputs {
    std::remove_const_t<decltype(found)> operands;
    const J* indices;
  };
  return inputs{found, indices};
}

/// out row (o, p) = x's row (o, indices[p]) of [outer, n, inner]; with DropNegative a negative
/// index gives zeros (TF's _GatherDropNegatives: the segment sums' gradient, graph/segment.hpp).
/// StaticInner: the row width when it is in the type (0 if not).
template <bool DropNegative, std::size_t StaticInner, class T, class J>
void copy_rows(const T* x, const J* indices, const graph::detail::gather_layout& l, T* out) {
  parallel_for(l.outer * l.positions, threads_for(l.outer * l.positions * l.inner), [&](std::size_t b, std::size_t e) {
    std::size_t o = b / l.positions, p = b % l.positions;
    for (std::size_t row = b; row < e; ++row) {
      T* to = out + row * l.inner;
      if (DropNegative && indices[p] < 0) {
        std::fill_n(to, l.inner, T{});  // zeros (T{}: strings gather too, and never drop)
      } else {
        const T* from = x + (o * l.n + static_cast<std::size_t>(indices[p])) * l.inner;
        // a row whose width is in the type (an embedding table of shape [None, 64]) is copied with
        // a compile-time count, as a hand loop would; an inline loop otherwise (std::copy_n's
        // memmove call per row of 64 floats took 1.8x the hand loop's time)
        if constexpr (StaticInner > 0) {
          for (std::size_t k = 0; k < StaticInner; ++k) to[k] = from[k];
        } else {
          for (std::size_t k = 0; k < l.inner; ++k) to[k] = from[k];
        }
      }
      if (++p == l.positions) p = 0, ++o;
    }
  });
}

/// g's row (o, p) added to out's row (o, indices[p]) of [outer, n, inner] (out holds zeros), in
/// position order for every element: work items are (outer block, band of columns), never
/// positions. With DropNegative a negative index's row is skipped (the segment sums).
template <bool DropNegative, class T, class J>
void add_rows(const T* g, const J* indices, const graph::detail::gather_layout& l, T* out) {
  // one thread: whole rows, one pass over the positions (bands of 16 made 4 passes over rows of
  // 64 floats: 3.5x a hand loop's time); the order of each element's additions is the same
  const std::size_t threads = threads_for(l.outer * l.positions * l.inner);
  const std::size_t band = threads == 1 ? std::max<std::size_t>(l.inner, 1) : 16;
  const std::size_t bands = (l.inner + band - 1) / band;
  parallel_for(l.outer * bands, threads, [&](std::size_t b, std::size_t e) {
    for (std::size_t item = b; item < e; ++item) {
      const std::size_t o = item / bands, c0 = (item % bands) * band, c1 = std::min(l.inner, c0 + band);
      for (std::size_t p = 0; p < l.positions; ++p) {
        if (DropNegative && indices[p] < 0) continue;
        const T* from = g + (o * l.positions + p) * l.inner;
        T* to = out + (o * l.n + static_cast<std::size_t>(indices[p])) * l.inner;
        for (std::size_t k = c0; k < c1; ++k) to[k] += from[k];
      }
    }
  });
}
}  // namespace detail

template <class Sig, class X, class I, std::size_t Axis, class Views, std::size_t R, class T>
void materialize(const graph::gather<X, I, Axis>& n, const Views& views, const extents<R>&, T* out) {
  // named members, not a structured binding: clang 14 cannot capture one in a lambda
  const auto in = detail::checked_gather_inputs<Sig>(n, views, "gather");
  const graph::detail::gather_layout l = in.operands.layout;
  if (l.outer * l.positions * l.inner == 0) return;
  const T* x = detail::contiguous_operand<T, Sig>(n.x, views, in.operands.x_extents);
  detail::copy_rows<false, detail::static_inner_size<typename X::shape_type, Axis>()>(x, in.indices, l, out);
}

template <class Sig, class G, class X, class I, std::size_t Axis, class Views, std::size_t R, class T>
void materialize(const graph::gather_gradient<G, X, I, Axis>& n, const Views& views, const extents<R>& out_ext, T* out) {
  // named members, not a structured binding: clang 14 cannot capture one in a lambda
  const auto in = detail::checked_gather_inputs<Sig>(n, views, "gather gradient");
  const auto& xe = in.operands.x_extents;
  const graph::detail::gather_layout l = in.operands.layout;
  const auto* indices = in.indices;
  const bool empty = l.outer * l.positions * l.inner == 0;
  // the adjoint is evaluated before anything is written: if it throws, out is untouched
  const T* g = empty ? nullptr : detail::contiguous_operand<T, Sig>(n.g, views, n.gathered(xe, in.operands.index_extents));
  std::fill_n(out, staticflow::detail::product(out_ext), T(0));
  if (!empty) detail::add_rows<false>(g, indices, l, out);
}

}  // namespace staticflow::cpu
