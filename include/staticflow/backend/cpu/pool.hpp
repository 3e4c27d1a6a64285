// staticflow/backend/cpu/pool.hpp -- max_pool / avg_pool, their gradients and max_pool's second
// derivative (graph/pool.hpp) on the CPU.
//
// Channels are the innermost axis, so every window element is a contiguous run of C values and
// each kernel's inner loop runs over channels (vectorized by the compiler). The forward pass
// writes each output row of the result once, rows split across threads. The gradient is a
// scatter: a block owns a band of input rows and walks the outputs whose windows reach into it,
// adding only into its own rows. The outputs are walked in the same order in every band, so each
// input's gradient is the same sum, in the same order, whatever the number of threads.
#pragma once

#include <algorithm>
#include <cstddef>
#include <type_traits>

#include "staticflow/backend/cpu/epilogue.hpp"
#include "staticflow/backend/cpu/operand.hpp"
#include "staticflow/backend/cpu/parallel.hpp"
#include "staticflow/backend/cpu/simd_ops.hpp"
#include "staticflow/core/config.hpp"
#include "staticflow/graph/pool.hpp"

STATICFLOW_DETAIL_INTRINSICS_BEGIN

namespace staticflow::cpu {
namespace detail {

using graph::replaces_maximum;

/// graph::replaces_maximum lane by lane: the lanes where v replaces the running maximum m.
template <class B>
STATICFLOW_INLINE auto replaces_maximum_lanes(const B& v, const B& m) {
  return (v > m) || (nan_lanes(v) && !nan_lanes(m));
}

/// Runs body(k0, lanes) over the c channels in passes: for floats, passes of 8, then at most one
/// of 4, then 1 xsimd batches (`lanes` a batch_lanes<V>, whose running values stay in registers
/// across the window), then one scalar pass over the rest (`lanes` a std::size_t count). Each pass
/// walks the window once: 64 channels are one pass of 4 AVX-512 batches rather than four of one.
template <std::size_t V>
struct batch_lanes {
  static constexpr std::size_t vectors = V;
};
template <class T, class Body>
void for_each_channel_pass(std::size_t c, Body body) {
  std::size_t k0 = 0;
  if constexpr (std::is_floating_point<T>::value) {
    constexpr std::size_t width = batch_t<T>::size;
    for (; k0 + 8 * width <= c; k0 += 8 * width) body(k0, batch_lanes<8>{});
    if (k0 + 4 * width <= c) body(k0, batch_lanes<4>{}), k0 += 4 * width;
    for (; k0 + width <= c; k0 += width) body(k0, batch_lanes<1>{});
  }
  if (k0 < c) body(k0, c - k0);
}

/// How many channels a pass covers.
template <class T, class Lanes>
constexpr std::size_t pass_size(Lanes lanes) {
  if constexpr (std::is_integral<Lanes>::value) return lanes;
  else return Lanes::vectors * batch_t<T>::size;
}

/// The running values of a batch pass (maximum, sum, or tap number): V xsimd batches.
template <class T, class Lanes>
struct pass_values;
template <class T, std::size_t V>
struct pass_values<T, batch_lanes<V>> {
  using B = batch_t<T>;
  B v[V];
  STATICFLOW_INLINE void load(const T* p) {
    for (std::size_t u = 0; u < V; ++u) v[u] = B::load_unaligned(p + u * B::size);
  }
  STATICFLOW_INLINE void store(T* p) const {
    for (std::size_t u = 0; u < V; ++u) v[u].store_unaligned(p + u * B::size);
  }
};

/// Calls tap(r, col, first) for each input of a window, row-major: the whole KH x KW window with
/// loops of a length the compiler knows (unrolled) when nothing of it is padding, else the part
/// inside the input.
template <std::size_t KH, std::size_t KW, class Tap>
STATICFLOW_INLINE void for_each_tap(const graph::pool_geometry::window& win, Tap tap) {
  if (win.row_end - win.row_begin == KH && win.col_end - win.col_begin == KW) {
    for (std::size_t u = 0; u < KH; ++u)
      for (std::size_t v = 0; v < KW; ++v) tap(win.row_begin + u, win.col_begin + v, u == 0 && v == 0);
  } else {
    for (std::size_t r = win.row_begin; r < win.row_end; ++r)
      for (std::size_t col = win.col_begin; col < win.col_end; ++col)
        tap(r, col, r == win.row_begin && col == win.col_begin);
  }
}

/// Calls body(win, in, out) for every output position of a pooling: its window, the offset of
/// its image's element (0, 0, 0) in the input, and its offset in the output; one output row
/// (image b, row i) at a time, rows split across threads; row_done(row) after each row.
template <class Body, class RowDone>
void for_each_output_window(const graph::pool_geometry& g, Body body, RowDone row_done) {
  if (g.outputs() == 0) return;
  parallel_for(g.n * g.oh, threads_for(g.outputs() * g.kh * g.kw), [&](std::size_t begin, std::size_t end) {
    for (std::size_t row = begin; row < end; ++row) {
      const std::size_t b = row / g.oh, i = row % g.oh;
      for (std::size_t j = 0; j < g.ow; ++j) body(g.window_of(i, j), b * g.h * g.w * g.c, (row * g.ow + j) * g.c);
      row_done(row);
    }
  });
}
template <class Body>
void for_each_output_window(const graph::pool_geometry& g, Body body) {
  for_each_output_window(g, body, [](std::size_t) {});
}

/// y = max_pool or avg_pool (parameters P) of x: one output row (image b, row i) at a time, then
/// finish (a no_finish or an epilogue's block_finish, backend/cpu/epilogue.hpp) on that row.
template <class Kind, class P, class T, class Finish = no_finish>
void pool_forward(const graph::pool_geometry& g, const T* x, T* y, const Finish& finish = {}) {
  constexpr bool is_max = std::is_same<Kind, graph::max_pooling>::value;
  const auto row_done = [&](std::size_t row) {
    if constexpr (!std::is_same<Finish, no_finish>::value) finish(y + row * g.ow * g.c, g.ow, g.c, 0, g.c);
  };
  for_each_output_window(g, [&](const graph::pool_geometry::window& win, std::size_t image, std::size_t at_out) {
    const auto at = [&](std::size_t r, std::size_t col) { return x + image + (r * g.w + col) * g.c; };
    T* out = y + at_out;
    for_each_channel_pass<T>(g.c, [&](std::size_t k0, auto lanes) {
      if constexpr (std::is_integral<decltype(lanes)>::value) {
        for (std::size_t k = k0; k < k0 + lanes; ++k) {
          T acc{};
          for_each_tap<P::kh, P::kw>(win, [&](std::size_t r, std::size_t col, bool first) {
            const T v = at(r, col)[k];
            if (first) acc = v;
            else if constexpr (is_max) acc = replaces_maximum(v, acc) ? v : acc;
            else acc += v;
          });
          if constexpr (is_max) out[k] = acc;
          else out[k] = acc / T(win.count());
        }
      } else {
        using B = batch_t<T>;
        constexpr std::size_t V = decltype(lanes)::vectors;
        pass_values<T, decltype(lanes)> acc;
        for_each_tap<P::kh, P::kw>(win, [&](std::size_t r, std::size_t col, bool first) {
          const T* in = at(r, col) + k0;
          if (first) return acc.load(in);
          for (std::size_t u = 0; u < V; ++u) {
            const B v = B::load_unaligned(in + u * B::size);
            if constexpr (is_max) acc.v[u] = simd_op<op::maximum, T>::apply(v, acc.v[u]);
            else acc.v[u] += v;
          }
        });
        if constexpr (!is_max)
          for (std::size_t u = 0; u < V; ++u) acc.v[u] /= B(T(win.count()));
        acc.store(out + k0);
      }
    });
  }, row_done);
}

/// y = MaxPoolGradGrad: for each output of max_pool of x, e at its window's first maximum in x
/// (the forward pass's loop, carrying e's value along with the running maximum).
template <class P, class T>
void pool_value_at_maximum(const graph::pool_geometry& g, const T* x, const T* e, T* y) {
  for_each_output_window(g, [&](const graph::pool_geometry::window& win, std::size_t image, std::size_t at_out) {
    const auto at = [&](std::size_t r, std::size_t col) { return image + (r * g.w + col) * g.c; };
    T* out = y + at_out;
    for_each_channel_pass<T>(g.c, [&](std::size_t k0, auto lanes) {
      if constexpr (std::is_integral<decltype(lanes)>::value) {
        for (std::size_t k = k0; k < k0 + lanes; ++k) {
          T best{}, value{};
          for_each_tap<P::kh, P::kw>(win, [&](std::size_t r, std::size_t col, bool first) {
            const T v = x[at(r, col) + k];
            if (first || replaces_maximum(v, best)) best = v, value = e[at(r, col) + k];
          });
          out[k] = value;
        }
      } else {
        using B = batch_t<T>;
        constexpr std::size_t V = decltype(lanes)::vectors;
        pass_values<T, decltype(lanes)> best, value;
        for_each_tap<P::kh, P::kw>(win, [&](std::size_t r, std::size_t col, bool first) {
          const std::size_t in = at(r, col) + k0;
          if (first) {
            best.load(x + in);
            value.load(e + in);
            return;
          }
          for (std::size_t u = 0; u < V; ++u) {
            const B v = B::load_unaligned(x + in + u * B::size);
            const auto replaces = replaces_maximum_lanes(v, best.v[u]);
            best.v[u] = xsimd::select(replaces, v, best.v[u]);
            value.v[u] = xsimd::select(replaces, B::load_unaligned(e + in + u * B::size), value.v[u]);
          }
        });
        value.store(out + k0);
      }
    });
  });
}

/// dx = the gradient of max_pool / avg_pool of x, given dy. Blocks are (image, band of input
/// rows), at least 8 of them when the input has 8 rows, whatever the thread count.
template <class Kind, class P, class T>
void pool_backward(const graph::pool_geometry& g, const T* x, const T* dy, T* dx) {
  constexpr bool is_max = std::is_same<Kind, graph::max_pooling>::value;
  std::fill_n(dx, g.inputs(), T(0));
  if (g.outputs() == 0) return;
  const std::size_t bands = std::min(g.h, (8 + g.n - 1) / g.n), band = (g.h + bands - 1) / bands;
  parallel_for(g.n * bands, threads_for(g.outputs() * g.kh * g.kw), [&](std::size_t begin, std::size_t end) {
    for (std::size_t block = begin; block < end; ++block) {
      const std::size_t b = block / bands, h0 = (block % bands) * band, h1 = std::min(g.h, h0 + band);
      const auto at = [&](std::size_t r, std::size_t col) { return ((b * g.h + r) * g.w + col) * g.c; };
      for (std::size_t i = 0; i < g.oh; ++i) {
        const auto rows = g.window_of(i, 0);
        if (rows.row_end <= h0 || rows.row_begin >= h1) continue;  // row i's windows miss the band
        for (std::size_t j = 0; j < g.ow; ++j) {
          const auto win = g.window_of(i, j);
          const std::size_t cols = win.col_end - win.col_begin;
          const T* grad = dy + ((b * g.oh + i) * g.ow + j) * g.c;
          if constexpr (is_max) {
            // each channel's first maximum, found as the window's tap number (row-major)
            T tap[8 * batch_t<T>::size];
            for_each_channel_pass<T>(g.c, [&](std::size_t k0, auto lanes) {
              const std::size_t count = pass_size<T>(lanes);
              if constexpr (std::is_integral<decltype(lanes)>::value) {
                for (std::size_t k = 0; k < count; ++k) {
                  T best{}, t = 0, where = 0;
                  for_each_tap<P::kh, P::kw>(win, [&](std::size_t r, std::size_t col, bool first) {
                    const T v = x[at(r, col) + k0 + k];
                    if (first || replaces_maximum(v, best)) best = v, where = t;
                    t += 1;
                  });
                  tap[k] = where;
                }
              } else {
                using B = batch_t<T>;
                constexpr std::size_t V = decltype(lanes)::vectors;
                pass_values<T, decltype(lanes)> best, where;
                for (std::size_t u = 0; u < V; ++u) where.v[u] = B(T(0));
                T t = 0;
                for_each_tap<P::kh, P::kw>(win, [&](std::size_t r, std::size_t col, bool first) {
                  const T* in = x + at(r, col) + k0;
                  if (first) {
                    best.load(in);
                  } else {
                    for (std::size_t u = 0; u < V; ++u) {
                      const B v = B::load_unaligned(in + u * B::size);
                      const auto replaces = replaces_maximum_lanes(v, best.v[u]);
                      best.v[u] = xsimd::select(replaces, v, best.v[u]);
                      where.v[u] = xsimd::select(replaces, B(t), where.v[u]);
                    }
                  }
                  t += 1;
                });
                where.store(tap);
              }
              for (std::size_t k = 0; k < count; ++k) {  // tap numbers are small integers, exact in T
                const std::size_t r = win.row_begin + std::size_t(tap[k]) / cols;
                if (r >= h0 && r < h1) dx[at(r, win.col_begin + std::size_t(tap[k]) % cols) + k0 + k] += grad[k0 + k];
              }
            });
          } else {
            const T count = T(win.count());
            for (std::size_t r = std::max(win.row_begin, h0); r < std::min(win.row_end, h1); ++r)
              for (std::size_t col = win.col_begin; col < win.col_end; ++col) {
                T* to = dx + at(r, col);
                for (std::size_t k = 0; k < g.c; ++k) to[k] += grad[k] / count;
              }
          }
        }
      }
    }
  });
}

}  // namespace detail

template <class Sig, class Kind, class X, class P, class Views, std::size_t R, class T>
void materialize(const graph::pool<Kind, X, P>& n, const Views& views, const extents<R>&, T* out) {
  const auto ext_views = staticflow::detail::extents_of_views(views);
  const auto ex = graph::node_extents(n.x, ext_views);
  const auto g = graph::pool_geometry_of<R, P>(ex, std::is_same<Kind, graph::max_pooling>::value ? "max_pool" : "avg_pool");
  detail::pool_forward<Kind, P>(g, detail::contiguous_operand<T, Sig>(n.x, views, ex), out);
}

/// A pooling with its epilogue (plan/epilogues.hpp): the function applied to each output row as
/// soon as it is pooled.
template <class Sig, class Kind, class X, class P, class Fn, class... Q, class Views, std::size_t R, class T>
void materialize(const graph::epilogue<graph::pool<Kind, X, P>, Fn, Q...>& n, const Views& views, const extents<R>& ext,
                 T* out) {
  const auto ext_views = staticflow::detail::extents_of_views(views);
  const auto ex = graph::node_extents(n.producer.x, ext_views);
  const auto g = graph::pool_geometry_of<R, P>(ex, std::is_same<Kind, graph::max_pooling>::value ? "max_pool" : "avg_pool");
  const T* x = detail::contiguous_operand<T, Sig>(n.producer.x, views, ex);
  detail::run_epilogue<Sig>(n, views, ext, out, g.n * g.oh * g.ow, g.c, [&](T* y, const auto& finish) {
    detail::pool_forward<Kind, P>(g, x, y, finish);
  });
}

template <class Sig, class Kind, class X, class G, class P, class Views, std::size_t R, class T>
void materialize(const graph::pool_gradient<Kind, X, G, P>& n, const Views& views, const extents<R>&, T* out) {
  const auto ext_views = staticflow::detail::extents_of_views(views);
  const auto ex = graph::node_extents(n.x, ext_views);
  const auto g = graph::pool_geometry_of<R, P>(ex, "pooling gradient");
  const T* dy = detail::contiguous_operand<T, Sig>(n.g, views, graph::node_extents(n.g, ext_views));
  const T* x = std::is_same<Kind, graph::max_pooling>::value ? detail::contiguous_operand<T, Sig>(n.x, views, ex) : nullptr;
  detail::pool_backward<Kind, P>(g, x, dy, out);
}

template <class Sig, class X, class E, class P, class Views, std::size_t R, class T>
void materialize(const graph::max_pool_gradient_gradient<X, E, P>& n, const Views& views, const extents<R>&, T* out) {
  const auto ext_views = staticflow::detail::extents_of_views(views);
  const auto ex = graph::node_extents(n.x, ext_views);
  const auto g = graph::pool_geometry_of<R, P>(ex, "max_pool's second derivative");
  detail::pool_value_at_maximum<P>(g, detail::contiguous_operand<T, Sig>(n.x, views, ex),
                                   detail::contiguous_operand<T, Sig>(n.e, views, graph::node_extents(n.e, ext_views)), out);
}

}  // namespace staticflow::cpu

STATICFLOW_DETAIL_INTRINSICS_END
