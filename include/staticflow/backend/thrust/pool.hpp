// staticflow/backend/thrust/pool.hpp -- max_pool / avg_pool, their gradients and max_pool's second
// derivative (graph/pool.hpp) on the device: one thread per result element. The forward pass
// reduces its output's window (the second derivative reads e where it finds the maximum); the
// gradient gathers, for its input element, from the outputs whose windows hold it, in
// increasing output order, so each sum is the CPU backend's sum in the CPU backend's order (the
// CPU scatters in that order): the two backends give the same bits.
#pragma once

#include <cstddef>
#include <type_traits>

#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>

#include "staticflow/backend/thrust/epilogue.hpp"
#include "staticflow/backend/thrust/operand.hpp"
#include "staticflow/backend/thrust/system.hpp"
#include "staticflow/core/config.hpp"
#include "staticflow/graph/pool.hpp"

namespace staticflow::thrust_backend {
namespace detail {

/// The geometry of one pooling, as signed numbers for the window arithmetic in device code.
struct pool_dims {
  long n, h, w, c, kh, kw, oh, ow, sh, sw, pt, pl;
  explicit pool_dims(const graph::pool_geometry& g)
      : n(long(g.n)), h(long(g.h)), w(long(g.w)), c(long(g.c)), kh(long(g.kh)), kw(long(g.kw)), oh(long(g.oh)),
        ow(long(g.ow)), sh(long(g.sh)), sw(long(g.sw)), pt(long(g.pad_top)), pl(long(g.pad_left)) {}
  /// Output element o's image b, row i, column j and channel k.
  STATICFLOW_HD void output_position(long o, long& b, long& i, long& j, long& k) const {
    k = o % c, j = o / c % ow, i = o / (c * ow) % oh, b = o / (c * ow * oh);
  }
  /// Output (i, j)'s window clipped to the input: rows [r0, r1), columns [c0, c1).
  STATICFLOW_HD void window(long i, long j, long& r0, long& r1, long& c0, long& c1) const {
    r0 = i * sh - pt, r1 = r0 + kh, c0 = j * sw - pl, c1 = c0 + kw;
    r0 = r0 < 0 ? 0 : r0, c0 = c0 < 0 ? 0 : c0, r1 = r1 > h ? h : r1, c1 = c1 > w ? w : c1;
  }
};

using graph::replaces_maximum;

/// Where in x (b, ., ., k)'s window (i, j) has its first maximum.
template <class T>
STATICFLOW_HD long first_maximum(const T* x, const pool_dims& d, long b, long i, long j, long k) {
  long r0, r1, c0, c1;
  d.window(i, j, r0, r1, c0, c1);
  long where = ((b * d.h + r0) * d.w + c0) * d.c + k;
  for (long r = r0; r < r1; ++r)
    for (long col = c0; col < c1; ++col) {
      const long at = ((b * d.h + r) * d.w + col) * d.c + k;
      if (replaces_maximum(x[at], x[where])) where = at;
    }
  return where;
}

template <bool IsMax, class T>
struct pool_forward_kernel {
  const T* x;
  T* y;
  pool_dims d;
  STATICFLOW_HD void operator()(std::size_t e) const {
    long b, i, j, k;
    d.output_position(long(e), b, i, j, k);
    long r0, r1, c0, c1;
    d.window(i, j, r0, r1, c0, c1);
    T acc = x[((b * d.h + r0) * d.w + c0) * d.c + k];
    bool first = true;
    for (long r = r0; r < r1; ++r)
      for (long col = c0; col < c1; ++col) {
        const T v = x[((b * d.h + r) * d.w + col) * d.c + k];
        if (first) first = false;
        else if constexpr (IsMax) acc = replaces_maximum(v, acc) ? v : acc;
        else acc += v;
      }
    if constexpr (IsMax) y[e] = acc;
    else y[e] = acc / T((r1 - r0) * (c1 - c0));
  }
};

template <bool IsMax, class T>
struct pool_gradient_kernel {
  const T* x;
  const T* dy;
  T* dx;
  pool_dims d;
  STATICFLOW_HD void operator()(std::size_t e) const {
    const long k = long(e) % d.c, col = long(e) / d.c % d.w, row = long(e) / (d.c * d.w) % d.h, b = long(e) / (d.c * d.w * d.h);
    // the outputs i whose window rows [i*sh - pt, i*sh - pt + kh) hold row, and likewise j
    const long i_hi = (row + d.pt) / d.sh, j_hi = (col + d.pl) / d.sw;
    const long i_lo = row + d.pt - d.kh + 1 > 0 ? (row + d.pt - d.kh + d.sh) / d.sh : 0;
    const long j_lo = col + d.pl - d.kw + 1 > 0 ? (col + d.pl - d.kw + d.sw) / d.sw : 0;
    T acc = T(0);
    for (long i = i_lo; i <= i_hi && i < d.oh; ++i)
      for (long j = j_lo; j <= j_hi && j < d.ow; ++j) {
        const T g = dy[((b * d.oh + i) * d.ow + j) * d.c + k];
        if constexpr (IsMax) {
          if (first_maximum(x, d, b, i, j, k) == long(e)) acc += g;
        } else {
          long r0, r1, c0, c1;
          d.window(i, j, r0, r1, c0, c1);
          acc += g / T((r1 - r0) * (c1 - c0));
        }
      }
    dx[e] = acc;
  }
};

/// MaxPoolGradGrad: output e's value at its window's first maximum in x.
template <class T>
struct pool_value_at_maximum_kernel {
  const T* x;
  const T* e;
  T* y;
  pool_dims d;
  STATICFLOW_HD void operator()(std::size_t o) const {
    long b, i, j, k;
    d.output_position(long(o), b, i, j, k);
    y[o] = e[first_maximum(x, d, b, i, j, k)];
  }
};

template <class Kernel>
void run_pool_kernel(Kernel kernel, std::size_t total) {
  if (total != 0) ::thrust::for_each_n(async_policy(), ::thrust::counting_iterator<std::size_t>(0), total, kernel);
}

}  // namespace detail

template <class Kind, class X, class P, class Views, std::size_t R, class T>
void materialize(const graph::pool<Kind, X, P>& n, const Views& views, const extents<R>& out_ext, T* out) {
  constexpr bool is_max = std::is_same<Kind, graph::max_pooling>::value;
  const auto ext_views = staticflow::detail::extents_of_views(views);
  const auto ex = graph::node_extents(n.x, ext_views);
  const detail::pool_dims d(graph::pool_geometry_of<R, P>(ex, is_max ? "max_pool" : "avg_pool"));
  detail::run_pool_kernel(detail::pool_forward_kernel<is_max, T>{detail::contiguous_operand<T>(n.x, views, ex), out, d},
                          staticflow::detail::product(out_ext));
}

/// A pooling with its epilogue (plan/epilogues.hpp): backend/thrust/epilogue.hpp.
template <class Kind, class X, class P, class Fn, class... Q, class Views, std::size_t R, class T>
void materialize(const graph::epilogue<graph::pool<Kind, X, P>, Fn, Q...>& n, const Views& views, const extents<R>& out_ext,
                 T* out) {
  detail::run_epilogue(n, views, out_ext, out, [&](T* y, const extents<R>& e) { materialize(n.producer, views, e, y); });
}

template <class Kind, class X, class G, class P, class Views, std::size_t R, class T>
void materialize(const graph::pool_gradient<Kind, X, G, P>& n, const Views& views, const extents<R>& out_ext, T* out) {
  constexpr bool is_max = std::is_same<Kind, graph::max_pooling>::value;
  const auto ext_views = staticflow::detail::extents_of_views(views);
  const auto ex = graph::node_extents(n.x, ext_views);
  const detail::pool_dims d(graph::pool_geometry_of<R, P>(ex, "pooling gradient"));
  const T* dy = detail::contiguous_operand<T>(n.g, views, graph::node_extents(n.g, ext_views));
  const T* x = is_max ? detail::contiguous_operand<T>(n.x, views, ex) : nullptr;
  detail::run_pool_kernel(detail::pool_gradient_kernel<is_max, T>{x, dy, out, d}, staticflow::detail::product(out_ext));
}

template <class X, class E, class P, class Views, std::size_t R, class T>
void materialize(const graph::max_pool_gradient_gradient<X, E, P>& n, const Views& views, const extents<R>& out_ext, T* out) {
  const auto ext_views = staticflow::detail::extents_of_views(views);
  const auto ex = graph::node_extents(n.x, ext_views);
  const detail::pool_dims d(graph::pool_geometry_of<R, P>(ex, "max_pool's second derivative"));
  const T* x = detail::contiguous_operand<T>(n.x, views, ex);
  const T* e = detail::contiguous_operand<T>(n.e, views, graph::node_extents(n.e, ext_views));
  detail::run_pool_kernel(detail::pool_value_at_maximum_kernel<T>{x, e, out, d}, staticflow::detail::product(out_ext));
}

}  // namespace staticflow::thrust_backend
