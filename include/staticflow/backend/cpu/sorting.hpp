// staticflow/backend/cpu/sorting.hpp -- argsort, take_along_axis and its gradient
// (graph/sorting.hpp) on the CPU: each line along the axis on its own (a stable sort of its
// positions; for top_k a selection per line where k is small, a partial sort otherwise; a pick
// or a scatter-add in position order), lines split across threads, so any thread count gives
// the same bits.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "staticflow/backend/cpu/gather.hpp"
#include "staticflow/backend/cpu/operand.hpp"
#include "staticflow/backend/cpu/parallel.hpp"
#include "staticflow/graph/sorting.hpp"

namespace staticflow::cpu {

template <class Sig, class X, std::size_t Axis, sort_direction D, class Views, std::size_t R>
void materialize(const graph::argsort<X, Axis, D>& n, const Views& views, const extents<R>& out_ext, std::int32_t* out) {
  using T = typename X::value_type;
  const auto l = graph::detail::layout_around(out_ext, Axis);
  const std::size_t size = l.outer * l.n * l.inner;
  if (size == 0) return;
  const T* x = detail::contiguous_operand<T, Sig>(n.x, views, out_ext);
  const std::size_t lines = l.outer * l.inner;
  parallel_for(lines, threads_for(size * 8), [&](std::size_t first, std::size_t last) {
    // each chunk sorts its lines in one scratch line of (value, position) pairs (a vector: the
    // arena belongs to the calling thread)
    struct entry {
      T value;
      std::int32_t position;
    };
    std::vector<entry> scratch(l.n);
    entry* line = scratch.data();
    for (std::size_t ln = first; ln < last; ++ln) {
      const std::size_t o = ln / l.inner, i = ln % l.inner;
      const T* from = x + o * l.n * l.inner + i;
      for (std::size_t k = 0; k < l.n; ++k) line[k] = {from[k * l.inner], static_cast<std::int32_t>(k)};
      std::stable_sort(line, line + l.n, [](const entry& a, const entry& b) { return graph::detail::sorts_before<D>(a.value, b.value); });
      std::int32_t* to = out + o * l.n * l.inner + i;
      for (std::size_t k = 0; k < l.n; ++k) to[k * l.inner] = line[k].position;
    }
  });
}

template <class Sig, class X, std::size_t K, class Views, std::size_t R>
void materialize(const graph::top_k_positions<X, K>& n, const Views& views, const extents<R>&, std::int32_t* out) {
  using T = typename X::value_type;
  const auto xe = graph::node_extents(n.x, staticflow::detail::extents_of_views(views));
  const std::size_t width = xe[R - 1], k = n.k, lines = width ? staticflow::detail::product(xe) / width : 0;
  if (lines * k == 0) return;
  const T* x = detail::contiguous_operand<T, Sig>(n.x, views, xe);
  if (k <= graph::detail::top_k_selection_limit) {  // 1024 lines of 1000 floats, k = 5: 1.8x faster
    parallel_for(lines, threads_for(lines * width), [&](std::size_t first, std::size_t last) {
      for (std::size_t ln = first; ln < last; ++ln) graph::detail::select_top_k(x + ln * width, width, out + ln * k, k);
    });
    return;
  }
  parallel_for(lines, threads_for(lines * width * 4), [&](std::size_t first, std::size_t last) {
    struct entry {
      T value;
      std::int32_t position;
    };
    std::vector<entry> scratch(width);
    for (std::size_t ln = first; ln < last; ++ln) {
      const T* from = x + ln * width;
      for (std::size_t j = 0; j < width; ++j) scratch[j] = {from[j], static_cast<std::int32_t>(j)};
      // the order of a stable descending sort: larger first, then the lower position
      std::partial_sort(scratch.begin(), scratch.begin() + static_cast<std::ptrdiff_t>(k), scratch.end(),
                        [](const entry& a, const entry& b) {
                          using graph::detail::sorts_before;
                          return sorts_before<sort_direction::descending>(a.value, b.value) ||
                                 (!sorts_before<sort_direction::descending>(b.value, a.value) && a.position < b.position);
                        });
      for (std::size_t j = 0; j < k; ++j) out[ln * k + j] = scratch[j].position;
    }
  });
}

namespace detail {
/// The positions of a take_along_axis (or of its gradient), read and checked against the axis of
/// x before anything is written.
template <class Sig, class N, class Views>
auto checked_positions(const N& n, const Views& views, const extents<N::rank>& xe, const extents<N::rank>& pe, const char* what) {
  using J = typename std::remove_cvref_t<decltype(n.positions)>::value_type;
  const J* positions = contiguous_operand<J, Sig>(n.positions, views, pe);
  check_indices(positions, staticflow::detail::product(pe), xe[N::axis], what);
  return positions;
}

/// f(picked, from) for every element of a take_along_axis: picked indexes the positions (and the
/// result, or the adjoint), from indexes x; outer blocks split across threads, each line in the
/// order of its positions (the gradient's adds keep that order whatever the thread count).
template <class J, class F>
void for_each_pick(const J* positions, const graph::detail::axis_layout& xl, const graph::detail::axis_layout& pl,
                   std::size_t work, F&& f) {
  parallel_for(pl.outer, threads_for(work), [&](std::size_t first, std::size_t last) {
    for (std::size_t o = first; o < last; ++o)
      for (std::size_t j = 0; j < pl.n; ++j) {
        const std::size_t row = (o * pl.n + j) * pl.inner;
        for (std::size_t i = 0; i < pl.inner; ++i) f(row + i, (o * xl.n + static_cast<std::size_t>(positions[row + i])) * xl.inner + i);
      }
  });
}
}  // namespace detail

template <class Sig, class X, class P, std::size_t Axis, class Views, std::size_t R, class T>
void materialize(const graph::take_along_axis<X, P, Axis>& n, const Views& views, const extents<R>& out_ext, T* out) {
  const auto arg_ext = staticflow::detail::extents_of_views(views);
  const auto xe = graph::node_extents(n.x, arg_ext);
  const auto* positions = detail::checked_positions<Sig>(n, views, xe, out_ext, "take_along_axis");
  const std::size_t size = staticflow::detail::product(out_ext);
  if (size == 0) return;
  const T* x = detail::contiguous_operand<T, Sig>(n.x, views, xe);
  detail::for_each_pick(positions, graph::detail::layout_around(xe, Axis), graph::detail::layout_around(out_ext, Axis), size,
                        [&](std::size_t picked, std::size_t from) { out[picked] = x[from]; });
}

template <class Sig, class G, class X, class P, std::size_t Axis, class Views, std::size_t R, class T>
void materialize(const graph::take_along_axis_gradient<G, X, P, Axis>& n, const Views& views, const extents<R>& out_ext, T* out) {
  const auto arg_ext = staticflow::detail::extents_of_views(views);
  const auto pe = graph::node_extents(n.positions, arg_ext);
  const auto* positions = detail::checked_positions<Sig>(n, views, out_ext, pe, "take_along_axis gradient");
  const std::size_t picked = staticflow::detail::product(pe);
  // the adjoint is evaluated before anything is written: if it throws, out is untouched
  const T* g = picked ? detail::contiguous_operand<T, Sig>(n.g, views, pe) : nullptr;
  std::fill_n(out, staticflow::detail::product(out_ext), T(0));
  if (picked == 0) return;
  detail::for_each_pick(positions, graph::detail::layout_around(out_ext, Axis), graph::detail::layout_around(pe, Axis), picked,
                        [&](std::size_t at, std::size_t to) { out[to] += g[at]; });
}

}  // namespace staticflow::cpu
