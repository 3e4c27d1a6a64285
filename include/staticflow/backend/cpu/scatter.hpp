// staticflow/backend/cpu/scatter.hpp -- sf::gather_nd and the tensor_scatter_nd family
// (graph/scatter.hpp) on the CPU.
//
// x seen as [slices, inner], each index tuple naming one slice. Every tuple is checked (and turned
// into its slice) before anything is written. gather_nd copies one slice per tuple, tuples across
// threads. A scatter evaluates x into the result, then applies the tuples in order to work items
// of (band of 16 columns): every item walks all tuples, so a repeated tuple adds up, or wins, in
// tuple order whatever the thread count (1 or 2 threads give the same bits).
#pragma once

#include <algorithm>
#include <cstddef>
#include <type_traits>

#include "staticflow/backend/cpu/gather.hpp"
#include "staticflow/backend/cpu/operand.hpp"
#include "staticflow/backend/cpu/parallel.hpp"
#include "staticflow/graph/scatter.hpp"
#include "staticflow/plan/arena.hpp"

namespace staticflow::cpu {
namespace detail {
/// The slice of every index tuple of node n (a gather_nd or a scatter), checked against x's extents.
template <class Sig, class N, class Views, std::size_t K, std::size_t IR>
const std::size_t* slices_of_tuples(const N& n, const Views& views, const graph::detail::nd_layout<K>& l,
                                    const extents<IR>& ie, const char* what) {
  using J = typename std::remove_cvref_t<decltype(n.indices)>::value_type;
  graph::detail::check_tuples_have_elements(l, what);
  const J* indices = contiguous_operand<J, Sig>(n.indices, views, ie);
  auto* slices = static_cast<std::size_t*>(plan::arena::local().allocate(sizeof(std::size_t) * std::max<std::size_t>(l.positions, 1)));
  for (std::size_t p = 0; p < l.positions; ++p) slices[p] = graph::detail::slice_of(l, indices, p, what);
  return slices;
}
}  // namespace detail

template <class Sig, class X, class I, class Views, std::size_t R, class T>
void materialize(const graph::gather_nd<X, I>& n, const Views& views, const extents<R>&, T* out) {
  const auto o = graph::detail::nd_operands_of(n, staticflow::detail::extents_of_views(views));
  const auto& l = o.layout;
  const std::size_t* slices = detail::slices_of_tuples<Sig>(n, views, l, o.index_extents, "gather_nd");
  if (l.positions * l.inner == 0) return;
  const T* x = detail::contiguous_operand<T, Sig>(n.x, views, o.x_extents);
  const std::size_t inner = l.inner;
  // a slice whose size is in the type (a table of shape [None, 64]) is copied with a compile-time
  // count, an inline loop otherwise (as gather's rows: a memmove call per row costs more)
  constexpr std::size_t static_inner = detail::static_inner_size<typename X::shape_type, graph::gather_nd<X, I>::depth - 1>();
  parallel_for(l.positions, threads_for(l.positions * inner), [&](std::size_t b, std::size_t e) {
    for (std::size_t p = b; p < e; ++p) {
      const T* from = x + slices[p] * inner;
      T* to = out + p * inner;
      if constexpr (static_inner > 0) {
        for (std::size_t k = 0; k < static_inner; ++k) to[k] = from[k];
      } else {
        for (std::size_t k = 0; k < inner; ++k) to[k] = from[k];
      }
    }
  });
}

template <class Sig, class Mode, class X, class I, class U, class Views, std::size_t R, class T>
void materialize(const graph::tensor_scatter_nd<Mode, X, I, U>& n, const Views& views, const extents<R>& out_ext, T* out) {
  const auto arg_ext = staticflow::detail::extents_of_views(views);
  const auto o = graph::detail::nd_operands_of(n, arg_ext);
  const auto& l = o.layout;
  // the tuples and the updates are read before anything is written: if they throw, out is untouched
  const std::size_t* slices = detail::slices_of_tuples<Sig>(n, views, l, o.index_extents, Mode::function);
  const auto ue = graph::node_extents(n.updates, arg_ext);
  const T* updates = l.positions * l.inner != 0 ? detail::contiguous_operand<T, Sig>(n.updates, views, ue) : nullptr;
  evaluate_into<Sig>(n.x, views, out_ext, out);
  if (l.positions * l.inner == 0) return;
  constexpr std::size_t band = 16;
  const std::size_t inner = l.inner, positions = l.positions, bands = (inner + band - 1) / band;
  parallel_for(bands, threads_for(positions * inner), [&](std::size_t b, std::size_t e) {
    const std::size_t c0 = b * band, c1 = std::min(inner, e * band);
    for (std::size_t p = 0; p < positions; ++p) {
      const T* from = updates + p * inner;
      T* to = out + slices[p] * inner;
      for (std::size_t k = c0; k < c1; ++k) to[k] = Mode::apply(to[k], from[k]);
    }
  });
}

}  // namespace staticflow::cpu
