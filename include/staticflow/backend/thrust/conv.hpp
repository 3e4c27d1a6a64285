// staticflow/backend/thrust/conv.hpp -- conv2d and its gradients (graph/conv.hpp) on the device:
// one thread per result element, each a direct sum over what that element depends on, in a
// fixed order (no atomics, so every device system gives the same bits). The CPU backend computes
// the same sums through a GEMM, in another order: the two agree within rounding.
//
//   forward        y[b,i,j,q]   = sum over (u, v, p) of x[b, i*SH+u*DH-pt, j*SW+v*DW-pl, P] f[u,v,p,q]
//   input grad     dx[b,h,w,P]  = sum over (u, v, q) of dy[b, i, j, q] f[u,v,p,q] for the outputs
//                                 (i, j) whose window puts (h, w) under filter tap (u, v)
//   filter grad    df[u,v,p,q]  = sum over (b, i, j) of x[b, i*SH+u*DH-pt, j*SW+v*DW-pl, P] dy[b,i,j,q]
//
// where p runs over the filter's in_channels, q over the outputs of one group (groups = C / the
// filter's in_channels), and P = group(q) * C/groups + p is the image's channel.
#pragma once

#include <cstddef>

#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>

#include "staticflow/backend/thrust/epilogue.hpp"
#include "staticflow/backend/thrust/linalg.hpp"
#include "staticflow/backend/thrust/operand.hpp"
#include "staticflow/backend/thrust/system.hpp"
#include "staticflow/core/config.hpp"
#include "staticflow/graph/conv.hpp"

namespace staticflow::thrust_backend {
namespace detail {

/// The extents of one conv2d, as signed numbers for the window arithmetic in device code.
struct conv_dims {
  long n, h, w, c, kh, kw, o, oh, ow, sh, sw, pt, pl, dh, dw, cg, og;  // cg, og: channels and outputs per group
  explicit conv_dims(const graph::conv2d_geometry& g)
      : n(long(g.n)), h(long(g.h)), w(long(g.w)), c(long(g.c)), kh(long(g.kh)), kw(long(g.kw)), o(long(g.o)),
        oh(long(g.oh)), ow(long(g.ow)), sh(long(g.sh)), sw(long(g.sw)), pt(long(g.pad_top)), pl(long(g.pad_left)),
        dh(long(g.dh)), dw(long(g.dw)), cg(long(g.group_channels())), og(long(g.group_outputs())) {}
};

template <class T>
struct conv_forward_kernel {
  const T* x;
  const T* f;
  T* y;
  conv_dims d;
  STATICFLOW_HD void operator()(std::size_t e) const {
    const long q = long(e) % d.o, j = long(e) / d.o % d.ow, i = long(e) / (d.o * d.ow) % d.oh, b = long(e) / (d.o * d.ow * d.oh);
    T acc = T(0);
    for (long u = 0; u < d.kh; ++u) {
      const long ih = i * d.sh + u * d.dh - d.pt;
      if (ih < 0 || ih >= d.h) continue;
      for (long v = 0; v < d.kw; ++v) {
        const long iw = j * d.sw + v * d.dw - d.pl;
        if (iw < 0 || iw >= d.w) continue;
        const T* xp = x + ((b * d.h + ih) * d.w + iw) * d.c + q / d.og * d.cg;
        const T* fp = f + (u * d.kw + v) * d.cg * d.o + q;
        for (long p = 0; p < d.cg; ++p) acc = fma_step(xp[p], fp[p * d.o], acc);
      }
    }
    y[e] = acc;
  }
};

template <class T>
struct conv_input_gradient_kernel {
  const T* f;
  const T* dy;
  T* dx;
  conv_dims d;
  STATICFLOW_HD void operator()(std::size_t e) const {
    const long channel = long(e) % d.c, iw = long(e) / d.c % d.w, ih = long(e) / (d.c * d.w) % d.h,
               b = long(e) / (d.c * d.w * d.h);
    const long p = channel % d.cg, q0 = channel / d.cg * d.og;  // the filter's in_channel, the group's first output
    T acc = T(0);
    for (long u = 0; u < d.kh; ++u) {
      const long row = ih + d.pt - u * d.dh;  // = i * sh for the output row i that puts ih under tap u
      if (row < 0 || row % d.sh != 0 || row / d.sh >= d.oh) continue;
      for (long v = 0; v < d.kw; ++v) {
        const long col = iw + d.pl - v * d.dw;
        if (col < 0 || col % d.sw != 0 || col / d.sw >= d.ow) continue;
        const T* g = dy + ((b * d.oh + row / d.sh) * d.ow + col / d.sw) * d.o + q0;
        const T* fp = f + ((u * d.kw + v) * d.cg + p) * d.o + q0;
        for (long q = 0; q < d.og; ++q) acc = fma_step(g[q], fp[q], acc);
      }
    }
    dx[e] = acc;
  }
};

template <class T>
struct conv_filter_gradient_kernel {
  const T* x;
  const T* dy;
  T* df;
  conv_dims d;
  STATICFLOW_HD void operator()(std::size_t e) const {
    const long q = long(e) % d.o, p = long(e) / d.o % d.cg, v = long(e) / (d.o * d.cg) % d.kw, u = long(e) / (d.o * d.cg * d.kw);
    const long channel = q / d.og * d.cg + p;
    T acc = T(0);
    for (long b = 0; b < d.n; ++b)
      for (long i = 0; i < d.oh; ++i) {
        const long ih = i * d.sh + u * d.dh - d.pt;
        if (ih < 0 || ih >= d.h) continue;
        for (long j = 0; j < d.ow; ++j) {
          const long iw = j * d.sw + v * d.dw - d.pl;
          if (iw < 0 || iw >= d.w) continue;
          acc = fma_step(x[((b * d.h + ih) * d.w + iw) * d.c + channel], dy[((b * d.oh + i) * d.ow + j) * d.o + q], acc);
        }
      }
    df[e] = acc;
  }
};

template <class Kernel>
void run_conv_kernel(Kernel kernel, std::size_t total) {
  if (total != 0) ::thrust::for_each_n(async_policy(), ::thrust::counting_iterator<std::size_t>(0), total, kernel);
}

}  // namespace detail

template <class X, class F, class Opt, class Views, std::size_t R, class T>
void materialize(const graph::conv2d<X, F, Opt>& n, const Views& views, const extents<R>& out_ext, T* out) {
  const auto ext_views = staticflow::detail::extents_of_views(views);
  const auto ex = graph::node_extents(n.x, ext_views), ef = graph::node_extents(n.f, ext_views);
  const detail::conv_dims d(graph::conv2d_geometry_of<Opt>(ex, ef, "conv2d"));
  const T* x = detail::contiguous_operand<T>(n.x, views, ex);
  const T* f = detail::contiguous_operand<T>(n.f, views, ef);
  detail::run_conv_kernel(detail::conv_forward_kernel<T>{x, f, out, d}, staticflow::detail::product(out_ext));
}

/// A convolution with its epilogue (plan/epilogues.hpp): backend/thrust/epilogue.hpp.
template <class X, class F, class Opt, class Fn, class... Q, class Views, std::size_t R, class T>
void materialize(const graph::epilogue<graph::conv2d<X, F, Opt>, Fn, Q...>& n, const Views& views,
                 const extents<R>& out_ext, T* out) {
  detail::run_epilogue(n, views, out_ext, out, [&](T* y, const extents<R>& e) { materialize(n.producer, views, e, y); });
}

template <class Wrt, class X, class F, class G, class Opt, class Views, std::size_t R,
          class T>
void materialize(const graph::conv2d_gradient<Wrt, X, F, G, Opt>& n, const Views& views,
                 const extents<R>& out_ext, T* out) {
  const auto ext_views = staticflow::detail::extents_of_views(views);
  const auto ex = graph::node_extents(n.x, ext_views), ef = graph::node_extents(n.f, ext_views);
  const detail::conv_dims d(graph::conv2d_geometry_of<Opt>(ex, ef, "conv2d gradient"));
  const T* dy = detail::contiguous_operand<T>(n.g, views, graph::node_extents(n.g, ext_views));
  const std::size_t total = staticflow::detail::product(out_ext);
  if constexpr (graph::conv2d_gradient<Wrt, X, F, G, Opt>::wrt_image)
    detail::run_conv_kernel(detail::conv_input_gradient_kernel<T>{detail::contiguous_operand<T>(n.f, views, ef), dy, out, d},
                            total);
  else
    detail::run_conv_kernel(detail::conv_filter_gradient_kernel<T>{detail::contiguous_operand<T>(n.x, views, ex), dy, out, d},
                            total);
}

}  // namespace staticflow::thrust_backend
