// staticflow/backend/thrust/masking.hpp -- sf::boolean_mask, sf::repeat by a tensor, their
// gradient and sf::where(condition) (graph/masking.hpp) on the device. A mask is computed on the
// device and its true positions listed there (thrust::copy_if over the positions); their count is
// read on the host, which waits for the kernels before it (a synchronization point, as TF's GPU
// kernels have: the result's size is data). Counts are read on the host and listed there. Then
// gather's functors (backend/thrust/gather.hpp) copy the rows taken, or add the adjoint's rows
// back for the gradient (one thread per column, in order, no atomics).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include <thrust/copy.h>
#include <thrust/device_ptr.h>
#include <thrust/fill.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>

#include "staticflow/backend/thrust/arena.hpp"
#include "staticflow/backend/thrust/gather.hpp"
#include "staticflow/backend/thrust/operand.hpp"
#include "staticflow/backend/thrust/system.hpp"
#include "staticflow/core/config.hpp"
#include "staticflow/graph/masking.hpp"
#include "staticflow/graph/traversal.hpp"

namespace staticflow::thrust_backend {

template <class Node>
struct slot_evaluator;  // (declared in backend/thrust/run_plan.hpp, which includes this header)

namespace detail {
struct is_true {
  STATICFLOW_HD bool operator()(bool b) const { return b; }
};

/// The true positions of a device mask of `size` elements, listed in order in a device buffer of
/// the arena; returns their count (read on the host).
inline std::size_t list_true_positions(const bool* mask, std::size_t size, std::int64_t* kept) {
  if (size == 0) return 0;
  const auto first = ::thrust::counting_iterator<std::int64_t>(0);
  const auto end = ::thrust::copy_if(async_policy(), first, first + static_cast<std::int64_t>(size),
                                     ::thrust::device_pointer_cast(mask), ::thrust::device_pointer_cast(kept),
                                     is_true{});
  synchronize();
  return static_cast<std::size_t>(end - ::thrust::device_pointer_cast(kept));
}

/// A selected_rows node's or its gradient's selector, evaluated and listed: the rows it takes in
/// order, in a device buffer of the arena, with gather's layout of the tensor around them (the
/// selector's shape checked against the tensor's first). A mask's true positions are listed on
/// the device; counts are read on the host (a negative one throws there) and their positions
/// copied to the device.
template <class N, class Views>
auto listed_rows(const N& n, const Views& views) {
  using Kind = typename N::kind;
  const auto args = staticflow::detail::extents_of_views(views);
  const auto xe = graph::node_extents(n.tensor, args);
  const auto me = graph::node_extents(n.mask, args);
  graph::detail::gather_layout l = Kind::template layout<N::axis>(xe, me);
  const std::size_t selectors = staticflow::detail::product(me);
  std::int64_t* kept = nullptr;
  if constexpr (std::is_same<Kind, graph::by_mask>::value) {
    kept = static_cast<std::int64_t*>(device_arena::local().allocate(sizeof(std::int64_t) * (l.n ? l.n : 1)));
    if (l.n > 0) l.positions = list_true_positions(contiguous_operand<bool>(n.mask, views, me), l.n, kept);
  } else {
    using J = typename std::remove_cvref_t<decltype(n.mask)>::value_type;
    std::vector<std::int64_t> host;
    if (l.n > 0 && selectors > 0) {
      const std::vector<J> counts = indices_on_host(contiguous_operand<J>(n.mask, views, me), selectors);
      host.resize(Kind::count(counts.data(), selectors, l.n));
      Kind::list(counts.data(), selectors, l.n, host.data());
    }
    l.positions = host.size();
    kept = static_cast<std::int64_t*>(device_arena::local().allocate(sizeof(std::int64_t) * (host.empty() ? 1 : host.size())));
    if (!host.empty()) ::thrust::copy_n(host.data(), host.size(), ::thrust::device_pointer_cast(kept));
  }
  struct listed {
    std::remove_const_t<decltype(xe)> tensor_extents;
    graph::detail::gather_layout layout;
    const std::int64_t* kept;
  };
  return listed{xe, l, kept};
}

/// Row j of where(condition)'s result: the coordinates of the j-th true position.
template <std::size_t R>
struct coordinates_row {
  const std::int64_t* kept;
  std::int64_t* out;
  std::size_t ext[R];
  STATICFLOW_HD void operator()(std::size_t j) const {
    auto p = static_cast<std::size_t>(kept[j]);
    for (std::size_t d = R; d-- > 0;) {
      out[j * R + d] = static_cast<std::int64_t>(p % ext[d]);
      p /= ext[d];
    }
  }
};
}  // namespace detail

/// boolean_mask, repeat by a tensor: the rows taken, copied into a result of their count.
template <class Kind, class X, class M, std::size_t Axis>
struct slot_evaluator<graph::selected_rows<Kind, X, M, Axis>> {
  using node_type = graph::selected_rows<Kind, X, M, Axis>;
  template <class All, class Out>
  static void run(const node_type& n, All& all, const Out& out) {
    using T = typename X::value_type;
    const auto m = detail::listed_rows(n, all);
    const graph::detail::gather_layout l = m.layout;
    const std::size_t size = l.outer * l.positions * l.inner;
    // the tensor is evaluated before the result is allocated: if it throws, nothing is written
    const T* x = size == 0 ? nullptr : detail::contiguous_operand<T>(n.tensor, all, m.tensor_extents);
    T* data = out.template allocate<0>(node_type::kept_extents(m.tensor_extents, l.positions));
    if (size == 0) return;
    ::thrust::for_each_n(async_policy(), ::thrust::counting_iterator<std::size_t>(0), size,
                         detail::gather_element<T, std::int64_t>{x, m.kept, data, l});
  }
};

/// sf::where(condition): the coordinates of the trues, a thread per row.
template <class C>
struct slot_evaluator<graph::true_coordinates<C>> {
  template <class All, class Out>
  static void run(const graph::true_coordinates<C>& n, All& all, const Out& out) {
    constexpr std::size_t R = C::shape_type::rank;
    const auto ce = graph::node_extents(n.condition, staticflow::detail::extents_of_views(all));
    const std::size_t size = staticflow::detail::product(ce);
    auto* kept = static_cast<std::int64_t*>(device_arena::local().allocate(sizeof(std::int64_t) * (size ? size : 1)));
    const std::size_t count = size == 0 ? 0 : detail::list_true_positions(detail::contiguous_operand<bool>(n.condition, all, ce), size, kept);
    std::int64_t* data = out.template allocate<0>(extents<2>{count, R});
    if constexpr (R > 0) {
      if (count == 0) return;
      detail::coordinates_row<R> row{kept, data, {}};
      for (std::size_t d = 0; d < R; ++d) row.ext[d] = ce[d];
      ::thrust::for_each_n(async_policy(), ::thrust::counting_iterator<std::size_t>(0), count, row);
    }
  }
};

/// The gradient of the selected rows: zeros, and the adjoint's rows added where they were read,
/// in order (one thread per column, no atomics; the CPU's order).
template <class Kind, class G, class X, class M, std::size_t Axis, class Views, std::size_t R, class T>
void materialize(const graph::selected_rows_gradient<Kind, G, X, M, Axis>& n, const Views& views, const extents<R>& out_ext, T* out) {
  const auto m = detail::listed_rows(n, views);
  const graph::detail::gather_layout l = m.layout;
  const auto ge = graph::node_extents(n.g, staticflow::detail::extents_of_views(views));
  graph::check_kept_rows<Kind>(ge[Axis], l.positions);
  const std::size_t size = staticflow::detail::product(out_ext);
  if (size == 0) return;
  // the adjoint is evaluated before anything is written: if it throws, out is untouched
  const T* g = l.positions == 0 ? nullptr : detail::contiguous_operand<T>(n.g, views, ge);
  ::thrust::fill_n(async_policy(), out, size, T(0));
  if (l.positions == 0) return;
  ::thrust::for_each_n(async_policy(), ::thrust::counting_iterator<std::size_t>(0), l.outer * l.inner,
                       detail::scatter_column<T, std::int64_t>{g, m.kept, out, l});
}

}  // namespace staticflow::thrust_backend
