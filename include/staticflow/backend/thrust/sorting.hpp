// staticflow/backend/thrust/sorting.hpp -- argsort, take_along_axis and its gradient
// (graph/sorting.hpp) on the device. argsort is a segmented stable sort: every line's values and
// positions laid out line after line, one stable sort by value (the direction's order, NaN the
// largest), then one stable sort by line, which keeps each line's values in order. take_along_axis
// checks its positions on the host first (the CPU backend's error, a synchronization point) and
// runs one thread per result element; its gradient one thread per line, adding in position order
// (the CPU kernel's order: the same bits, no atomics).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <thrust/device_ptr.h>
#include <thrust/fill.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/sort.h>
#include <thrust/tuple.h>

#include "staticflow/backend/thrust/arena.hpp"
#include "staticflow/backend/thrust/gather.hpp"
#include "staticflow/backend/thrust/operand.hpp"
#include "staticflow/backend/thrust/shape_ops.hpp"
#include "staticflow/backend/thrust/system.hpp"
#include "staticflow/core/config.hpp"
#include "staticflow/graph/sorting.hpp"

namespace staticflow::thrust_backend {
namespace detail {
template <class T>
struct lines_of {  // element (line, k) of the line-major copy, from x as [outer, n, inner]
  const T* x;
  T* values;
  std::int32_t* positions;
  std::size_t* line;
  graph::detail::axis_layout l;
  STATICFLOW_HD void operator()(std::size_t e) const {
    const std::size_t ln = e / l.n, k = e % l.n, o = ln / l.inner, i = ln % l.inner;
    values[e] = x[(o * l.n + k) * l.inner + i];
    positions[e] = static_cast<std::int32_t>(k);
    line[e] = ln;
  }
};
struct positions_back {  // position j of line ln to its place in out ([outer, n, inner])
  const std::int32_t* positions;
  std::int32_t* out;
  graph::detail::axis_layout l;
  STATICFLOW_HD void operator()(std::size_t e) const {
    const std::size_t ln = e / l.n, j = e % l.n, o = ln / l.inner, i = ln % l.inner;
    out[(o * l.n + j) * l.inner + i] = positions[e];
  }
};
template <sort_direction D>
struct value_order {
  template <class T>
  STATICFLOW_HD bool operator()(T a, T b) const { return graph::detail::sorts_before<D>(a, b); }
};
template <class T, class J>
struct take_element {
  const T* x;
  const J* positions;
  T* out;
  graph::detail::axis_layout xl, pl;
  STATICFLOW_HD void operator()(std::size_t e) const {
    const std::size_t i = e % pl.inner, o = e / (pl.inner * pl.n);
    out[e] = x[(o * xl.n + static_cast<std::size_t>(positions[e])) * xl.inner + i];
  }
};
template <class T, class J>
struct add_back_line {
  const T* g;
  const J* positions;
  T* out;
  graph::detail::axis_layout xl, pl;
  STATICFLOW_HD void operator()(std::size_t ln) const {
    const std::size_t o = ln / pl.inner, i = ln % pl.inner;
    for (std::size_t j = 0; j < pl.n; ++j) {
      const std::size_t e = (o * pl.n + j) * pl.inner + i;
      out[(o * xl.n + static_cast<std::size_t>(positions[e])) * xl.inner + i] += g[e];
    }
  }
};
}  // namespace detail

namespace detail {
/// The stable sort of every line of x ([outer, n, inner] by l) in direction D: positions[e] for
/// e = line * n + j is the position of line's j-th value (device scratch from the arena).
template <sort_direction D, class T>
std::int32_t* sorted_line_positions(const T* x, const graph::detail::axis_layout& l) {
  const std::size_t size = l.outer * l.n * l.inner;
  auto& arena = device_arena::local();
  auto* values = static_cast<T*>(arena.allocate(sizeof(T) * size));
  auto* positions = static_cast<std::int32_t*>(arena.allocate(sizeof(std::int32_t) * size));
  auto* line = static_cast<std::size_t*>(arena.allocate(sizeof(std::size_t) * size));
  gather(size, lines_of<T>{x, values, positions, line, l});
  const auto dev = [](auto* p) { return ::thrust::device_pointer_cast(p); };
  ::thrust::stable_sort_by_key(async_policy(), dev(values), dev(values) + size,
                               ::thrust::make_zip_iterator(::thrust::make_tuple(dev(line), dev(positions))), value_order<D>{});
  ::thrust::stable_sort_by_key(async_policy(), dev(line), dev(line) + size, dev(positions));
  return positions;
}
struct first_positions {  // the first k positions of each sorted line
  const std::int32_t* positions;
  std::int32_t* out;
  std::size_t n, k;
  STATICFLOW_HD void operator()(std::size_t e) const { out[e] = positions[(e / k) * n + e % k]; }
};
}  // namespace detail

template <class X, std::size_t Axis, sort_direction D, class Views, std::size_t R>
void materialize(const graph::argsort<X, Axis, D>& n, const Views& views, const extents<R>& out_ext, std::int32_t* out) {
  using T = typename X::value_type;
  const auto l = graph::detail::layout_around(out_ext, Axis);
  if (l.outer * l.n * l.inner == 0) return;
  const std::int32_t* positions = detail::sorted_line_positions<D>(detail::contiguous_operand<T>(n.x, views, out_ext), l);
  detail::gather(l.outer * l.n * l.inner, detail::positions_back{positions, out, l});
}

namespace detail {
/// top_k's positions of line ln (x's last axis, n values) by selection (graph/sorting.hpp).
template <class T>
struct select_top_k_line {
  const T* x;
  std::int32_t* out;
  std::size_t n, k;
  STATICFLOW_HD void operator()(std::size_t ln) const { graph::detail::select_top_k(x + ln * n, n, out + ln * k, k); }
};

/// Whether top_k selects per line (select_top_k_line, one thread per line) rather than sorting
/// every line whole: k at most top_k_selection_limit (32), and, on a GPU, lines enough to fill it
/// or lines short enough that one thread's walk costs less than two device sorts. (The host
/// systems have a few threads: one line each is always enough there.)
inline bool top_k_by_selection(std::size_t lines, std::size_t n, std::size_t k) {
  if (k > graph::detail::top_k_selection_limit) return false;
  return !STATICFLOW_THRUST_CUDA || lines >= 4096 || n <= 1024;
}
}  // namespace detail

/// top_k's positions: by selection per line where k is small (detail::top_k_by_selection), else
/// the whole of each line sorted, then its first k.
template <class X, std::size_t K, class Views, std::size_t R>
void materialize(const graph::top_k_positions<X, K>& n, const Views& views, const extents<R>& out_ext, std::int32_t* out) {
  using T = typename X::value_type;
  const auto xe = graph::node_extents(n.x, staticflow::detail::extents_of_views(views));
  const auto l = graph::detail::layout_around(xe, R - 1);
  if (l.outer * l.n * n.k == 0) return;
  const T* x = detail::contiguous_operand<T>(n.x, views, xe);
  if (detail::top_k_by_selection(l.outer, l.n, n.k)) {
    detail::gather(l.outer, detail::select_top_k_line<T>{x, out, l.n, n.k});
    return;
  }
  const std::int32_t* positions = detail::sorted_line_positions<sort_direction::descending>(x, l);
  detail::gather(staticflow::detail::product(out_ext), detail::first_positions{positions, out, l.n, n.k});
}

template <class X, class P, std::size_t Axis, class Views, std::size_t R, class T>
void materialize(const graph::take_along_axis<X, P, Axis>& n, const Views& views, const extents<R>& out_ext, T* out) {
  using J = typename P::value_type;
  const auto arg_ext = staticflow::detail::extents_of_views(views);
  const auto xe = graph::node_extents(n.x, arg_ext);
  const std::size_t size = staticflow::detail::product(out_ext);
  const J* positions = detail::contiguous_operand<J>(n.positions, views, out_ext);
  detail::check_indices_on_host(positions, size, xe[Axis], "take_along_axis");
  if (size == 0) return;
  const T* x = detail::contiguous_operand<T>(n.x, views, xe);
  detail::gather(size, detail::take_element<T, J>{x, positions, out, graph::detail::layout_around(xe, Axis),
                                                          graph::detail::layout_around(out_ext, Axis)});
}

template <class G, class X, class P, std::size_t Axis, class Views, std::size_t R, class T>
void materialize(const graph::take_along_axis_gradient<G, X, P, Axis>& n, const Views& views, const extents<R>& out_ext, T* out) {
  using J = typename P::value_type;
  const auto arg_ext = staticflow::detail::extents_of_views(views);
  const auto pe = graph::node_extents(n.positions, arg_ext);
  const std::size_t picked = staticflow::detail::product(pe), size = staticflow::detail::product(out_ext);
  const J* positions = detail::contiguous_operand<J>(n.positions, views, pe);
  detail::check_indices_on_host(positions, picked, out_ext[Axis], "take_along_axis gradient");
  // the adjoint is evaluated before anything is written: if it throws, out is untouched
  const T* g = picked ? detail::contiguous_operand<T>(n.g, views, pe) : nullptr;
  if (size) ::thrust::fill_n(async_policy(), out, size, T(0));
  if (picked == 0) return;
  const auto pl = graph::detail::layout_around(pe, Axis);
  detail::gather(pl.outer * pl.inner, detail::add_back_line<T, J>{g, positions, out, graph::detail::layout_around(out_ext, Axis), pl});
}

}  // namespace staticflow::thrust_backend
