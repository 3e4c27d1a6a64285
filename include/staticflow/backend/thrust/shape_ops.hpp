// staticflow/backend/thrust/shape_ops.hpp -- the materialized shape ops on the device (transpose,
// reshape, expand_dims, squeeze, slice, one_hot, concat, materialize) and the gradients of slice,
// concat and x[i]: each is one gather kernel that computes, for every result element, where it
// comes from.
#pragma once

#include <cstddef>
#include <type_traits>

#include <thrust/copy.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/backend/thrust/kernel.hpp"
#include "staticflow/backend/thrust/operand.hpp"
#include "staticflow/backend/thrust/system.hpp"
#include "staticflow/core/axes.hpp"
#include "staticflow/core/config.hpp"
#include "staticflow/graph/shape_gradients.hpp"
#include "staticflow/graph/shape_ops.hpp"

namespace staticflow::thrust_backend {
namespace detail {

/// out[j] = in[offset of j's coordinates under a permutation of the input's strides].
template <class T, std::size_t R>
struct transpose_gather {
  const T* in;
  T* out;
  std::size_t out_ext[R > 0 ? R : 1], in_stride[R > 0 ? R : 1];  // in_stride[i]: input stride of result axis i
  STATICFLOW_HD void operator()(std::size_t j) const {
    std::size_t rest = j, from = 0;
    for (std::size_t d = R; d-- > 0;) {
      from += (rest % out_ext[d]) * in_stride[d];
      rest /= out_ext[d];
    }
    out[j] = in[from];
  }
};

template <class F>
void gather(std::size_t n, const F& f) {
  if (n) ::thrust::for_each_n(async_policy(), ::thrust::counting_iterator<std::size_t>(0), n, f);
}

/// Row blocks: out[o * out_row + offset + r] = in[o * in_row + skip + r] for r < chunk.
template <class T>
struct block_copy {
  const T* in;
  T* out;
  std::size_t chunk, in_row, skip, out_row, offset;
  STATICFLOW_HD void operator()(std::size_t j) const {
    const std::size_t o = j / chunk, r = j % chunk;
    out[o * out_row + offset + r] = in[o * in_row + skip + r];
  }
};

/// The gradient of a window: out[o, a, r] = g[o, a - begin, r] for a in [begin, begin + window),
/// else 0 (out's axis has `extent` elements, r < inner).
template <class T>
struct embed_gather {
  const T* g;
  T* out;
  std::size_t extent, inner, begin, window;
  STATICFLOW_HD void operator()(std::size_t j) const {
    const std::size_t r = j % inner, a = j / inner % extent, o = j / (inner * extent);
    out[j] = a >= begin && a < begin + window ? g[(o * window + a - begin) * inner + r] : T(0);
  }
};

template <class T, std::size_t R>
void embed_window(const T* g, std::size_t ax, std::size_t begin, std::size_t window, T* out, const extents<R>& oe) {
  std::size_t inner = 1;
  for (std::size_t i = ax + 1; i < R; ++i) inner *= oe[i];
  if (inner == 0 || oe[ax] == 0) return;
  gather(staticflow::detail::product(oe), embed_gather<T>{g, out, oe[ax], inner, begin, window});
}

template <class I>
struct one_hot_gather {
  const I* in;
  float* out;
  std::size_t depth;
  STATICFLOW_HD void operator()(std::size_t j) const {
    out[j] = in[j / depth] == static_cast<I>(j % depth) ? 1.f : 0.f;
  }
};

template <int... P, class T, std::size_t R>
void rearrange_into(const graph::transpose_kind<P...>& k, const T* in, const extents<R>& ie, T* out, const extents<R>& oe) {
  transpose_gather<T, R> g{in, out, {}, {}};
  extents<R> stride{};
  for (std::size_t i = R, s = 1; i-- > 0;) stride[i] = s, s *= ie[i];
  for (std::size_t i = 0; i < R; ++i) g.out_ext[i] = oe[i], g.in_stride[i] = stride[k.perm[i]];
  gather(staticflow::detail::product(oe), g);
}
template <class Kind, class T, std::size_t RI, std::size_t R>
  requires(Kind::keeps_order)
void rearrange_into(const Kind&, const T* in, const extents<RI>& ie, T* out, const extents<R>&) {
  const std::size_t n = staticflow::detail::product(ie);
  if (n) ::thrust::copy_n(async_policy(), in, n, out);
}
template <int Axis, class T, std::size_t R>
void rearrange_into(const graph::slice_kind<Axis>& k, const T* in, const extents<R>& ie, T* out, const extents<R>& oe) {
  const std::size_t ax = staticflow::detail::checked_axis(Axis, R);
  std::size_t inner = 1;
  for (std::size_t i = ax + 1; i < R; ++i) inner *= ie[i];
  const std::size_t chunk = k.size * inner;
  if (chunk == 0) return;
  gather(staticflow::detail::product(oe), block_copy<T>{in, out, chunk, ie[ax] * inner, k.begin * inner, chunk, 0});
}
template <std::size_t Depth, class I, std::size_t RI, std::size_t R>
void rearrange_into(const graph::one_hot_kind<Depth>&, const I* in, const extents<RI>&, float* out, const extents<R>& oe) {
  gather(staticflow::detail::product(oe), one_hot_gather<I>{in, out, Depth});
}
}  // namespace detail

template <class Kind, class A, class Views, std::size_t R, class T>
void materialize(const graph::rearrange<Kind, A>& n, const Views& views, const extents<R>& out_ext, T* out) {
  using In = typename A::value_type;
  const auto ie = graph::node_extents(n.a, staticflow::detail::extents_of_views(views));
  const In* in = detail::contiguous_operand<In>(n.a, views, ie);
  detail::rearrange_into(n.params, in, ie, out, out_ext);
}

template <class A, class Views, std::size_t R, class T>
void materialize(const graph::stored<A>& n, const Views& views, const extents<R>& out_ext, T* out) {
  evaluate_into(n.a, views, out_ext, out);
}

template <int Axis, class... A, class Views, std::size_t R, class T>
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
      const T* in = detail::contiguous_operand<T>(part, views, pe);
      const std::size_t chunk = pe[ax] * inner;
      if (chunk) detail::gather(outer * chunk, detail::block_copy<T>{in, out, chunk, chunk, 0, out_row, offset});
      offset += chunk;
    }(), ...);
  }, n.parts);
}

template <int Axis, class G, class A, class Views, std::size_t R, class T>
void materialize(const graph::slice_gradient<Axis, G, A>& n, const Views& views, const extents<R>& out_ext, T* out) {
  const auto ge = graph::node_extents(n.g, staticflow::detail::extents_of_views(views));
  constexpr std::size_t ax = graph::slice_gradient<Axis, G, A>::axis;
  detail::embed_window(detail::contiguous_operand<T>(n.g, views, ge), ax, n.begin, ge[ax], out, out_ext);
}

template <std::size_t K, int Axis, class G, class... A, class Views, std::size_t R, class T>
void materialize(const graph::concat_gradient<K, Axis, G, A...>& n, const Views& views, const extents<R>& out_ext, T* out) {
  using node_t = graph::concat_gradient<K, Axis, G, A...>;
  const auto ext_views = staticflow::detail::extents_of_views(views);
  const auto ge = graph::node_extents(n.g, ext_views);
  const std::size_t offset = n.offset_in(ext_views);
  std::size_t inner = 1;
  for (std::size_t i = node_t::axis + 1; i < R; ++i) inner *= out_ext[i];
  const std::size_t chunk = out_ext[node_t::axis] * inner;
  if (chunk)
    detail::gather(staticflow::detail::product(out_ext),
                   detail::block_copy<T>{detail::contiguous_operand<T>(n.g, views, ge), out, chunk,
                                         ge[node_t::axis] * inner, offset * inner, chunk, 0});
}

}  // namespace staticflow::thrust_backend
