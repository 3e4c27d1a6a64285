// staticflow/backend/thrust/depthwise_conv.hpp -- depthwise_conv2d and its gradients
// (graph/depthwise_conv.hpp) on the device: one thread per result element, a direct sum in the
// CPU kernels' order (taps ascending, then m; or images, rows, columns), no atomics.
//
//   forward        y[b,i,j,c*M+m] = sum over (u, v) of x[b, i*SH+u*DH-pt, j*SW+v*DW-pl, c] f[u,v,c,m]
//   input grad     dx[b,h,w,c]    = sum over (u, v, m) of dy[b, i, j, c*M+m] f[u,v,c,m] for the
//                                   outputs (i, j) whose window puts (h, w) under tap (u, v)
//   filter grad    df[u,v,c,m]    = sum over (b, i, j) of x[b, i*SH+u*DH-pt, j*SW+v*DW-pl, c] dy[b,i,j,c*M+m]
#pragma once

#include <cstddef>

#include <thrust/fill.h>

#include "staticflow/backend/thrust/conv.hpp"
#include "staticflow/backend/thrust/operand.hpp"
#include "staticflow/backend/thrust/system.hpp"
#include "staticflow/core/config.hpp"
#include "staticflow/graph/depthwise_conv.hpp"

namespace staticflow::thrust_backend {
namespace detail {

template <class T>
struct depthwise_forward_kernel {
  const T* x;
  const T* f;
  T* y;
  conv_dims d;  // d.o: the channel multiplier M
  STATICFLOW_HD void operator()(std::size_t e) const {
    const long cm = d.c * d.o, k = long(e) % cm, j = long(e) / cm % d.ow, i = long(e) / (cm * d.ow) % d.oh,
               b = long(e) / (cm * d.ow * d.oh), c = k / d.o;
    T acc = T(0);
    for (long u = 0; u < d.kh; ++u) {
      const long ih = i * d.sh + u * d.dh - d.pt;
      if (ih < 0 || ih >= d.h) continue;
      for (long v = 0; v < d.kw; ++v) {
        const long iw = j * d.sw + v * d.dw - d.pl;
        if (iw < 0 || iw >= d.w) continue;
        acc = fma_step(x[((b * d.h + ih) * d.w + iw) * d.c + c], f[(u * d.kw + v) * cm + k], acc);
      }
    }
    y[e] = acc;
  }
};

template <class T>
struct depthwise_input_gradient_kernel {
  const T* f;
  const T* dy;
  T* dx;
  conv_dims d;
  STATICFLOW_HD void operator()(std::size_t e) const {
    const long cm = d.c * d.o, c = long(e) % d.c, iw = long(e) / d.c % d.w, ih = long(e) / (d.c * d.w) % d.h,
               b = long(e) / (d.c * d.w * d.h);
    T acc = T(0);
    for (long u = 0; u < d.kh; ++u) {
      const long row = ih + d.pt - u * d.dh;
      if (row < 0 || row % d.sh != 0 || row / d.sh >= d.oh) continue;
      for (long v = 0; v < d.kw; ++v) {
        const long col = iw + d.pl - v * d.dw;
        if (col < 0 || col % d.sw != 0 || col / d.sw >= d.ow) continue;
        const T* g = dy + ((b * d.oh + row / d.sh) * d.ow + col / d.sw) * cm + c * d.o;
        const T* tap = f + (u * d.kw + v) * cm + c * d.o;
        T s = T(0);
        for (long m = 0; m < d.o; ++m) s = fma_step(g[m], tap[m], s);
        acc += s;
      }
    }
    dx[e] = acc;
  }
};

template <class T>
struct depthwise_filter_gradient_kernel {
  const T* x;
  const T* dy;
  T* df;
  conv_dims d;
  STATICFLOW_HD void operator()(std::size_t e) const {
    const long cm = d.c * d.o, k = long(e) % cm, v = long(e) / cm % d.kw, u = long(e) / (cm * d.kw), c = k / d.o;
    T acc = T(0);
    for (long b = 0; b < d.n; ++b)
      for (long i = 0; i < d.oh; ++i) {
        const long ih = i * d.sh + u * d.dh - d.pt;
        if (ih < 0 || ih >= d.h) continue;
        for (long j = 0; j < d.ow; ++j) {
          const long iw = j * d.sw + v * d.dw - d.pl;
          if (iw < 0 || iw >= d.w) continue;
          acc = fma_step(x[((b * d.h + ih) * d.w + iw) * d.c + c], dy[((b * d.oh + i) * d.ow + j) * cm + k], acc);
        }
      }
    df[e] = acc;
  }
};

}  // namespace detail

template <class X, class F, class Opt, class Views, std::size_t R, class T>
void materialize(const graph::depthwise_conv2d<X, F, Opt>& n, const Views& views, const extents<R>& out_ext, T* out) {
  const auto ext_views = staticflow::detail::extents_of_views(views);
  const auto ex = graph::node_extents(n.x, ext_views), ef = graph::node_extents(n.f, ext_views);
  const detail::conv_dims d(graph::detail::depthwise_geometry_of<Opt>(ex, ef, "depthwise_conv2d"));
  const std::size_t total = staticflow::detail::product(out_ext);
  if (total == 0) return;
  const T* x = detail::contiguous_operand<T>(n.x, views, ex);
  const T* f = detail::contiguous_operand<T>(n.f, views, ef);
  detail::run_conv_kernel(detail::depthwise_forward_kernel<T>{x, f, out, d}, total);
}

/// A depthwise convolution with its epilogue (plan/epilogues.hpp): backend/thrust/epilogue.hpp.
template <class X, class F, class Opt, class Fn, class... Q, class Views, std::size_t R, class T>
void materialize(const graph::epilogue<graph::depthwise_conv2d<X, F, Opt>, Fn, Q...>& n, const Views& views,
                 const extents<R>& out_ext, T* out) {
  detail::run_epilogue(n, views, out_ext, out, [&](T* y, const extents<R>& e) { materialize(n.producer, views, e, y); });
}

template <class Wrt, class X, class F, class G, class Opt, class Views, std::size_t R, class T>
void materialize(const graph::depthwise_conv2d_gradient<Wrt, X, F, G, Opt>& n, const Views& views, const extents<R>& out_ext,
                 T* out) {
  const auto ext_views = staticflow::detail::extents_of_views(views);
  const auto ex = graph::node_extents(n.x, ext_views), ef = graph::node_extents(n.f, ext_views);
  const graph::conv2d_geometry g = graph::detail::depthwise_geometry_of<Opt>(ex, ef, "depthwise_conv2d gradient");
  const detail::conv_dims d(g);
  const std::size_t total = staticflow::detail::product(out_ext);
  if (total == 0) return;
  if (g.n * g.oh * g.ow * g.c * g.o == 0) {  // no output: nothing reaches the operand
    ::thrust::fill_n(async_policy(), out, total, T(0));
    return;
  }
  const T* dy = detail::contiguous_operand<T>(n.g, views, graph::node_extents(n.g, ext_views));
  if constexpr (graph::depthwise_conv2d_gradient<Wrt, X, F, G, Opt>::wrt_image)
    detail::run_conv_kernel(detail::depthwise_input_gradient_kernel<T>{detail::contiguous_operand<T>(n.f, views, ef), dy, out, d}, total);
  else
    detail::run_conv_kernel(detail::depthwise_filter_gradient_kernel<T>{detail::contiguous_operand<T>(n.x, views, ex), dy, out, d}, total);
}

}  // namespace staticflow::thrust_backend
