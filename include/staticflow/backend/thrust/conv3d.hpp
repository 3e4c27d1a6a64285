// staticflow/backend/thrust/conv3d.hpp -- conv3d and its gradients (graph/conv3d.hpp) on the
// device, as the CPU backend computes them (backend/cpu/conv3d.hpp): conv2d's kernels over the
// volume's depth windows, in device scratch from the arena, one thread per element of each step.
#pragma once

#include <cstddef>

#include "staticflow/backend/thrust/arena.hpp"
#include "staticflow/backend/thrust/conv.hpp"
#include "staticflow/backend/thrust/epilogue.hpp"
#include "staticflow/backend/thrust/operand.hpp"
#include "staticflow/core/config.hpp"
#include "staticflow/graph/conv3d.hpp"

namespace staticflow::thrust_backend {
namespace detail {

/// The depth axis of one conv3d, as signed numbers for device code.
struct conv3d_depth_dims {
  long n, d, hw, c, kd, od, sd, dd, pf;
  explicit conv3d_depth_dims(const graph::conv3d_geometry& g)
      : n(long(g.n)), d(long(g.d)), hw(long(g.plane_size())), c(long(g.c)), kd(long(g.kd)), od(long(g.od)),
        sd(long(g.sd)), dd(long(g.dd)), pf(long(g.pad_front)) {}
};

/// windows[b * OD + od, p, c * KD + kd] = x[b, od * SD + kd * DD - pad_front, p, c] (0 in the padding).
template <class T>
struct depth_windows_kernel {
  const T* x;
  T* windows;
  conv3d_depth_dims d;
  STATICFLOW_HD void operator()(std::size_t e) const {
    const long ck = d.c * d.kd, k = long(e) % ck, p = long(e) / ck % d.hw, r = long(e) / (ck * d.hw);
    const long c = k / d.kd, kd = k % d.kd, b = r / d.od, od = r % d.od, z = od * d.sd + kd * d.dd - d.pf;
    windows[e] = z < 0 || z >= d.d ? T(0) : x[((b * d.d + z) * d.hw + p) * d.c + c];
  }
};

/// dx[b, z, p, c] = the sum over the taps kd whose window reads depth z of dwindows (kd ascending).
template <class T>
struct depth_windows_gradient_kernel {
  const T* dwindows;
  T* dx;
  conv3d_depth_dims d;
  STATICFLOW_HD void operator()(std::size_t e) const {
    const long c = long(e) % d.c, p = long(e) / d.c % d.hw, z = long(e) / (d.c * d.hw) % d.d, b = long(e) / (d.c * d.hw * d.d);
    const long ck = d.c * d.kd;
    T acc = T(0);
    for (long kd = 0; kd < d.kd; ++kd) {
      const long at = z + d.pf - kd * d.dd;
      if (at < 0 || at % d.sd != 0 || at / d.sd >= d.od) continue;
      acc += dwindows[((b * d.od + at / d.sd) * d.hw + p) * ck + c * d.kd + kd];
    }
    dx[e] = acc;
  }
};

/// folded[t, p * KD + kd, q] = f[kd, t, p, q] (Unfold false), or back (Unfold true); e runs
/// over the folded filter (t: the KH * KW taps, p: the in_channels of a group).
template <bool Unfold, class T>
struct fold_conv3d_filter_kernel {
  const T* from;
  T* to;
  long taps, cg, kd, o;
  STATICFLOW_HD void operator()(std::size_t e) const {
    const long q = long(e) % o, k = long(e) / o % (cg * kd), t = long(e) / (o * cg * kd);
    const long plain = ((k % kd * taps + t) * cg + k / kd) * o + q;
    if constexpr (Unfold) to[plain] = from[e];
    else to[e] = from[plain];
  }
};

template <bool Unfold, class T>
void fold_conv3d_filter(const graph::conv3d_geometry& g, const T* from, T* to) {
  const long kd = long(g.kd), cg = kd == 0 ? 0 : long(g.plane.group_channels()) / kd;
  run_conv_kernel(fold_conv3d_filter_kernel<Unfold, T>{from, to, long(g.plane.kh * g.plane.kw), cg, kd, long(g.plane.o)},
                  g.folded_filter_size());
}

template <class T>
T* device_buffer(std::size_t elements) {
  return static_cast<T*>(device_arena::local().allocate(sizeof(T) * (elements == 0 ? 1 : elements)));
}
}  // namespace detail

template <class X, class F, class Opt, class Views, std::size_t R, class T>
void materialize(const graph::conv3d<X, F, Opt>& n, const Views& views, const extents<R>& out_ext, T* out) {
  const auto ext_views = staticflow::detail::extents_of_views(views);
  const auto ex = graph::node_extents(n.x, ext_views), ef = graph::node_extents(n.f, ext_views);
  const auto g = graph::detail::conv3d_geometry_of<Opt>(ex, ef, "conv3d");
  const std::size_t total = staticflow::detail::product(out_ext);
  if (total == 0) return;
  const device_arena::scope scratch;
  T* windows = detail::device_buffer<T>(g.patches_size());
  T* folded = detail::device_buffer<T>(g.folded_filter_size());
  const detail::conv3d_depth_dims dd(g);
  detail::run_conv_kernel(detail::depth_windows_kernel<T>{detail::contiguous_operand<T>(n.x, views, ex), windows, dd},
                          g.patches_size());
  detail::fold_conv3d_filter<false>(g, detail::contiguous_operand<T>(n.f, views, ef), folded);
  detail::run_conv_kernel(detail::conv_forward_kernel<T>{windows, folded, out, detail::conv_dims(g.plane)}, total);
}

/// A conv3d with its epilogue (plan/epilogues.hpp): backend/thrust/epilogue.hpp.
template <class X, class F, class Opt, class Fn, class... Q, class Views, std::size_t R, class T>
void materialize(const graph::epilogue<graph::conv3d<X, F, Opt>, Fn, Q...>& n, const Views& views,
                 const extents<R>& out_ext, T* out) {
  detail::run_epilogue(n, views, out_ext, out, [&](T* y, const extents<R>& e) { materialize(n.producer, views, e, y); });
}

template <class Wrt, class X, class F, class G, class Opt, class Views, std::size_t R, class T>
void materialize(const graph::conv3d_gradient<Wrt, X, F, G, Opt>& n, const Views& views, const extents<R>& out_ext,
                 T* out) {
  const auto ext_views = staticflow::detail::extents_of_views(views);
  const auto ex = graph::node_extents(n.x, ext_views), ef = graph::node_extents(n.f, ext_views);
  const auto g = graph::detail::conv3d_geometry_of<Opt>(ex, ef, "conv3d gradient");
  const std::size_t total = staticflow::detail::product(out_ext);
  if (total == 0) return;
  const device_arena::scope scratch;
  const T* dy = detail::contiguous_operand<T>(n.g, views, graph::node_extents(n.g, ext_views));
  T* windows = detail::device_buffer<T>(g.patches_size());
  T* folded = detail::device_buffer<T>(g.folded_filter_size());
  const detail::conv3d_depth_dims dd(g);
  const detail::conv_dims plane(g.plane);
  if constexpr (graph::conv3d_gradient<Wrt, X, F, G, Opt>::wrt_image) {
    detail::fold_conv3d_filter<false>(g, detail::contiguous_operand<T>(n.f, views, ef), folded);
    detail::run_conv_kernel(detail::conv_input_gradient_kernel<T>{folded, dy, windows, plane}, g.patches_size());
    detail::run_conv_kernel(detail::depth_windows_gradient_kernel<T>{windows, out, dd}, total);
  } else {
    detail::run_conv_kernel(detail::depth_windows_kernel<T>{detail::contiguous_operand<T>(n.x, views, ex), windows, dd},
                            g.patches_size());
    detail::run_conv_kernel(detail::conv_filter_gradient_kernel<T>{windows, dy, folded, plane}, g.folded_filter_size());
    detail::fold_conv3d_filter<true>(g, folded, out);
  }
}

}  // namespace staticflow::thrust_backend
