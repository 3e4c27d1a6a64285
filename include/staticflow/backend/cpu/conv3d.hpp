// staticflow/backend/cpu/conv3d.hpp -- conv3d and its two gradients (graph/conv3d.hpp) on the
// CPU, as conv2d's kernels over the volume's depth windows (arena scratch):
//
//   forward        windows = depth_windows(x); y = conv2d(windows, fold(f))
//   input grad     dwindows = conv2d input gradient(fold(f), dy); dx = the windows added back
//   filter grad    dfolded = conv2d filter gradient(depth_windows(x), dy); df = unfold(dfolded)
//
// where windows[b * OD + od, h, w, c * KD + kd] = x[b, od * SD + kd * DD - pad_front, h, w, c]
// (0 in the padding) and fold(f)[u, v, p * KD + kd, q] = f[kd, u, v, p, q]. That is the path of
// grouped (and integer) convolutions; ungrouped float/double ones take conv_direct.hpp's kernels
// with a depth axis (taps over (kd, kh, kw), the DHWIO filter as it lies), which copy no window.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>

#include "staticflow/backend/cpu/conv.hpp"
#include "staticflow/backend/cpu/operand.hpp"
#include "staticflow/backend/cpu/parallel.hpp"
#include "staticflow/graph/conv3d.hpp"
#include "staticflow/plan/arena.hpp"

namespace staticflow::cpu {
namespace detail {
/// The input depth that window tap kd of output depth od reads (negative or past the end: padding).
inline std::ptrdiff_t conv3d_input_depth(const graph::conv3d_geometry& g, std::size_t od, std::size_t kd) {
  return std::ptrdiff_t(od * g.sd + kd * g.dd) - std::ptrdiff_t(g.pad_front);
}

/// windows [N * OD, H, W, C * KD] of x [N, D, H, W, C].
template <class T>
void depth_windows(const graph::conv3d_geometry& g, const T* x, T* windows) {
  const std::size_t hw = g.plane_size(), ck = g.c * g.kd, planes = g.n * g.od;
  parallel_for(planes, threads_for(planes * hw * ck), [&](std::size_t begin, std::size_t end) {
    for (std::size_t r = begin; r < end; ++r) {
      const std::size_t b = r / g.od, od = r % g.od;
      T* out = windows + r * hw * ck;
      for (std::size_t kd = 0; kd < g.kd; ++kd) {
        const std::ptrdiff_t z = conv3d_input_depth(g, od, kd);
        if (z < 0 || z >= std::ptrdiff_t(g.d)) {
          for (std::size_t p = 0; p < hw; ++p)
            for (std::size_t c = 0; c < g.c; ++c) out[p * ck + c * g.kd + kd] = T(0);
          continue;
        }
        const T* in = x + (b * g.d + std::size_t(z)) * hw * g.c;
        for (std::size_t p = 0; p < hw; ++p)
          for (std::size_t c = 0; c < g.c; ++c) out[p * ck + c * g.kd + kd] = in[p * g.c + c];
      }
    }
  });
}

/// dx [N, D, H, W, C] = the windows' gradient added back at the depths they read (each input
/// plane summed by one thread, taps in ascending order).
template <class T>
void depth_windows_gradient(const graph::conv3d_geometry& g, const T* dwindows, T* dx) {
  const std::size_t hw = g.plane_size(), ck = g.c * g.kd, planes = g.n * g.d;
  parallel_for(planes, threads_for(g.n * g.od * hw * ck), [&](std::size_t begin, std::size_t end) {
    for (std::size_t r = begin; r < end; ++r) {
      const std::size_t b = r / g.d, z = r % g.d;
      T* out = dx + r * hw * g.c;
      std::fill_n(out, hw * g.c, T(0));
      for (std::size_t kd = 0; kd < g.kd; ++kd) {
        const std::ptrdiff_t at = std::ptrdiff_t(z + g.pad_front) - std::ptrdiff_t(kd * g.dd);
        if (at < 0 || std::size_t(at) % g.sd != 0 || std::size_t(at) / g.sd >= g.od) continue;
        const T* in = dwindows + (b * g.od + std::size_t(at) / g.sd) * hw * ck;
        for (std::size_t p = 0; p < hw; ++p)
          for (std::size_t c = 0; c < g.c; ++c) out[p * g.c + c] += in[p * ck + c * g.kd + kd];
      }
    }
  });
}

/// fold(f) (Unfold false) or its inverse (Unfold true: folded -> f).
template <bool Unfold, class T>
void fold_conv3d_filter(const graph::conv3d_geometry& g, const T* from, T* to) {
  const std::size_t taps = g.plane.kh * g.plane.kw, cg = g.plane.group_channels() / std::max<std::size_t>(g.kd, 1),
                    o = g.plane.o;
  for (std::size_t kd = 0; kd < g.kd; ++kd)
    for (std::size_t t = 0; t < taps; ++t)
      for (std::size_t p = 0; p < cg; ++p) {
        const std::size_t plain = ((kd * taps + t) * cg + p) * o, folded = ((t * cg + p) * g.kd + kd) * o;
        if constexpr (Unfold) std::copy_n(from + folded, o, to + plain);
        else std::copy_n(from + plain, o, to + folded);
      }
}

/// The direct kernels' view of an ungrouped conv3d (conv_direct.hpp): the plane's geometry
/// with the batch and channels of the volume, and the depth axis. Null when they do not apply
/// (groups, integers).
template <class T>
std::optional<direct_geometry> conv3d_direct_geometry(const graph::conv3d_geometry& g) {
  graph::conv2d_geometry plane = g.plane;
  plane.n = g.n, plane.c = g.c;
  if (!conv_direct_applies<T>(plane)) return std::nullopt;
  return direct_geometry::of(plane, g.d, g.kd, g.od, g.sd, g.dd, g.pad_front);
}

/// Multiply-adds of a conv3d (for threads_for).
inline std::size_t conv3d_work(const graph::conv3d_geometry& g) {
  return g.n * g.od * g.plane.oh * g.plane.ow * g.plane.o * g.kd * g.plane.patch();
}

template <class T>
T* arena_buffer(std::size_t elements) {
  return static_cast<T*>(plan::arena::local().allocate(sizeof(T) * std::max<std::size_t>(elements, 1)));
}
}  // namespace detail

namespace detail {
/// y [N,OD,OH,OW,O] = conv3d(x, f); finish (matmul.hpp) sees every output pixel once, after its
/// sums are complete (an epilogue, backend/cpu/epilogue.hpp).
template <class T, class Finish = no_finish>
void conv3d_forward(const graph::conv3d_geometry& g, const T* x, const T* f, T* y, const Finish& finish = {}) {
  if (g.n * g.od * g.plane.oh * g.plane.ow * g.plane.o == 0) return;
  const plan::arena_scope scratch;
  if (const auto direct = conv3d_direct_geometry<T>(g)) {  // windows read in place
    conv_direct_forward(*direct, x, f, y, threads_for(conv3d_work(g)), finish);
    return;
  }
  T* windows = arena_buffer<T>(g.patches_size());
  T* folded = arena_buffer<T>(g.folded_filter_size());
  depth_windows(g, x, windows);
  fold_conv3d_filter<false>(g, f, folded);
  conv2d_forward(g.plane, windows, folded, y, finish);
}
}  // namespace detail

template <class Sig, class X, class F, class Opt, class Views, std::size_t R, class T>
void materialize(const graph::conv3d<X, F, Opt>& n, const Views& views, const extents<R>&, T* out) {
  const auto ext_views = staticflow::detail::extents_of_views(views);
  const auto ex = graph::node_extents(n.x, ext_views), ef = graph::node_extents(n.f, ext_views);
  const auto g = graph::detail::conv3d_geometry_of<Opt>(ex, ef, "conv3d");
  detail::conv3d_forward(g, detail::contiguous_operand<T, Sig>(n.x, views, ex), detail::contiguous_operand<T, Sig>(n.f, views, ef), out);
}

/// A conv3d with its epilogue (plan/epilogues.hpp), as conv2d's (backend/cpu/conv.hpp).
template <class Sig, class X, class F, class Opt, class Fn, class... Q, class Views, std::size_t R, class T>
void materialize(const graph::epilogue<graph::conv3d<X, F, Opt>, Fn, Q...>& n, const Views& views,
                 const extents<R>& ext, T* out) {
  const auto ext_views = staticflow::detail::extents_of_views(views);
  const auto& conv = n.producer;
  const auto ex = graph::node_extents(conv.x, ext_views), ef = graph::node_extents(conv.f, ext_views);
  const auto g = graph::detail::conv3d_geometry_of<Opt>(ex, ef, "conv3d");
  const T* px = detail::contiguous_operand<T, Sig>(conv.x, views, ex);
  const T* pf = detail::contiguous_operand<T, Sig>(conv.f, views, ef);
  detail::run_epilogue<Sig>(n, views, ext, out, g.n * g.od * g.plane.oh * g.plane.ow, g.plane.o,
                            [&](T* y, const auto& finish) { detail::conv3d_forward(g, px, pf, y, finish); });
}

template <class Sig, class Wrt, class X, class F, class G, class Opt, class Views, std::size_t R, class T>
void materialize(const graph::conv3d_gradient<Wrt, X, F, G, Opt>& n, const Views& views, const extents<R>& out_ext,
                 T* out) {
  const auto ext_views = staticflow::detail::extents_of_views(views);
  const auto ex = graph::node_extents(n.x, ext_views), ef = graph::node_extents(n.f, ext_views);
  const auto g = graph::detail::conv3d_geometry_of<Opt>(ex, ef, "conv3d gradient");
  const std::size_t total = staticflow::detail::product(out_ext);
  if (total == 0) return;
  const plan::arena_scope scratch;
  const T* dy = detail::contiguous_operand<T, Sig>(n.g, views, graph::node_extents(n.g, ext_views));
  const auto direct = detail::conv3d_direct_geometry<T>(g);
  const std::size_t threads = threads_for(detail::conv3d_work(g));
  if constexpr (graph::conv3d_gradient<Wrt, X, F, G, Opt>::wrt_image) {
    if (direct)  // dy convolved with the turned filter, per stride phase
      return detail::conv_direct_input_gradient(*direct, detail::contiguous_operand<T, Sig>(n.f, views, ef), dy, out, threads);
  } else {
    if (direct)  // pixels summed in place
      return detail::conv_direct_filter_gradient(*direct, detail::contiguous_operand<T, Sig>(n.x, views, ex), dy, out, threads);
  }
  T* windows = detail::arena_buffer<T>(g.patches_size());
  T* folded = detail::arena_buffer<T>(g.folded_filter_size());
  if constexpr (graph::conv3d_gradient<Wrt, X, F, G, Opt>::wrt_image) {
    detail::fold_conv3d_filter<false>(g, detail::contiguous_operand<T, Sig>(n.f, views, ef), folded);
    detail::conv2d_input_gradient(g.plane, folded, dy, windows);
    detail::depth_windows_gradient(g, windows, out);
  } else {
    detail::depth_windows(g, detail::contiguous_operand<T, Sig>(n.x, views, ex), windows);
    detail::conv2d_filter_gradient(g.plane, windows, dy, folded);
    detail::fold_conv3d_filter<true>(g, folded, out);
  }
}

}  // namespace staticflow::cpu
