// staticflow/backend/cpu/shape_ops.hpp -- evaluating the materialized shape ops (transpose, reshape,
// slice, one_hot, concat) and the gradients of slice and concat (graph/shape_gradients.hpp): one
// pass that copies each element to its new place.
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/backend/cpu/operand.hpp"
#include "staticflow/graph/shape_gradients.hpp"
#include "staticflow/graph/shape_ops.hpp"

namespace staticflow::cpu {
namespace detail {
template <std::size_t R>
extents<R> row_major_strides(const extents<R>& e) {
  extents<R> s{};
  for (std::size_t i = R, n = 1; i-- > 0;) s[i] = n, n *= e[i];
  return s;
}

// Each op: (input data, input extents, output, output extents).
template <int... P, class T, std::size_t R>
void rearrange_into(const graph::transpose_kind<P...>& k, const T* in, const extents<R>& ie, T* out, const extents<R>& oe) {
  const auto in_stride = row_major_strides(ie);
  std::array<std::size_t, R> index{};
  const std::size_t size = staticflow::detail::product(oe);
  for (std::size_t j = 0; j < size; ++j) {
    std::size_t from = 0;
    for (std::size_t i = 0; i < R; ++i) from += index[i] * in_stride[k.perm[i]];
    out[j] = in[from];
    for (std::size_t i = R; i-- > 0;) {
      if (++index[i] < oe[i]) break;
      index[i] = 0;
    }
  }
}
/// reshape, expand_dims, squeeze: the same elements in the same order.
template <class Kind, class T, std::size_t RI, std::size_t R>
  requires(Kind::keeps_order)
void rearrange_into(const Kind&, const T* in, const extents<RI>& ie, T* out, const extents<R>&) {
  std::copy(in, in + staticflow::detail::product(ie), out);
}
template <int Axis, class T, std::size_t R>
void rearrange_into(const graph::slice_kind<Axis>& k, const T* in, const extents<R>& ie, T* out, const extents<R>&) {
  const std::size_t ax = staticflow::detail::checked_axis(Axis, R);
  std::size_t outer = 1, inner = 1;
  for (std::size_t i = 0; i < ax; ++i) outer *= ie[i];
  for (std::size_t i = ax + 1; i < R; ++i) inner *= ie[i];
  for (std::size_t o = 0; o < outer; ++o)
    std::copy_n(in + (o * ie[ax] + k.begin) * inner, k.size * inner, out + o * k.size * inner);
}
/// The sizes around axis ax of extents e: the product of the axes before it and after it.
template <std::size_t R>
std::pair<std::size_t, std::size_t> outer_inner(const extents<R>& e, std::size_t ax) {
  std::size_t outer = 1, inner = 1;
  for (std::size_t i = 0; i < ax; ++i) outer *= e[i];
  for (std::size_t i = ax + 1; i < R; ++i) inner *= e[i];
  return {outer, inner};
}
/// out (extents oe) = zeros, with g (oe but `window` along ax) at [begin, begin + window) of ax:
/// the gradient of a slice or of x[i].
template <class T, std::size_t R>
void embed_window(const T* g, std::size_t ax, std::size_t begin, std::size_t window, T* out, const extents<R>& oe) {
  const auto [outer, inner] = outer_inner(oe, ax);
  std::fill_n(out, staticflow::detail::product(oe), T(0));
  for (std::size_t o = 0; o < outer; ++o) std::copy_n(g + o * window * inner, window * inner, out + (o * oe[ax] + begin) * inner);
}
template <std::size_t Depth, class I, std::size_t RI, std::size_t R>
void rearrange_into(const graph::one_hot_kind<Depth>&, const I* in, const extents<RI>& ie, float* out, const extents<R>&) {
  const std::size_t n = staticflow::detail::product(ie);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t d = 0; d < Depth; ++d) out[i * Depth + d] = in[i] == static_cast<I>(d) ? 1.f : 0.f;
}
}  // namespace detail

template <class Sig, class Kind, class A, class Views, std::size_t R, class T>
void materialize(const graph::rearrange<Kind, A>& n, const Views& views, const extents<R>& out_ext, T* out) {
  using In = typename A::value_type;
  const auto ie = graph::node_extents(n.a, staticflow::detail::extents_of_views(views));
  const In* in = detail::contiguous_operand<In, Sig>(n.a, views, ie);
  detail::rearrange_into(n.params, in, ie, out, out_ext);
}

template <class Sig, class A, class Views, std::size_t R, class T>
void materialize(const graph::stored<A>& n, const Views& views, const extents<R>& out_ext, T* out) {
  evaluate_into<Sig>(n.a, views, out_ext, out);
}

template <class Sig, int Axis, class... A, class Views, std::size_t R, class T>
void materialize(const graph::concat<Axis, A...>& n, const Views& views, const extents<R>& out_ext, T* out) {
  constexpr std::size_t ax = graph::concat<Axis, A...>::axis;
  std::size_t outer = 1, inner = 1;
  for (std::size_t i = 0; i < ax; ++i) outer *= out_ext[i];
  for (std::size_t i = ax + 1; i < R; ++i) inner *= out_ext[i];
  const std::size_t out_row = out_ext[ax] * inner;
  std::size_t offset = 0;  // where this part starts inside an output row
  staticflow::detail::apply([&](const auto&... part) {
    ([&] {
      const auto pe = graph::node_extents(part, staticflow::detail::extents_of_views(views));
      const T* in = detail::contiguous_operand<T, Sig>(part, views, pe);
      const std::size_t chunk = pe[ax] * inner;
      for (std::size_t o = 0; o < outer; ++o) std::copy_n(in + o * chunk, chunk, out + o * out_row + offset);
      offset += chunk;
    }(), ...);
  }, n.parts);
}

template <class Sig, int Axis, class G, class A, class Views, std::size_t R, class T>
void materialize(const graph::slice_gradient<Axis, G, A>& n, const Views& views, const extents<R>& out_ext, T* out) {
  const auto ge = graph::node_extents(n.g, staticflow::detail::extents_of_views(views));
  constexpr std::size_t ax = graph::slice_gradient<Axis, G, A>::axis;
  detail::embed_window(detail::contiguous_operand<T, Sig>(n.g, views, ge), ax, n.begin, ge[ax], out, out_ext);
}

template <class Sig, std::size_t K, int Axis, class G, class... A, class Views, std::size_t R, class T>
void materialize(const graph::concat_gradient<K, Axis, G, A...>& n, const Views& views, const extents<R>& out_ext, T* out) {
  using node_t = graph::concat_gradient<K, Axis, G, A...>;
  const auto ext_views = staticflow::detail::extents_of_views(views);
  const auto ge = graph::node_extents(n.g, ext_views);
  const std::size_t offset = n.offset_in(ext_views);
  const T* g = detail::contiguous_operand<T, Sig>(n.g, views, ge);
  const auto [outer, inner] = detail::outer_inner(out_ext, node_t::axis);
  const std::size_t chunk = out_ext[node_t::axis] * inner, g_row = ge[node_t::axis] * inner;
  for (std::size_t o = 0; o < outer; ++o) std::copy_n(g + o * g_row + offset * inner, chunk, out + o * chunk);
}

}  // namespace staticflow::cpu
