// staticflow/backend/thrust/scatter.hpp -- sf::gather_nd and the tensor_scatter_nd family
// (graph/scatter.hpp) on the device. The index tuples are copied to the host, checked and turned
// into slice numbers there (the CPU backend's error, before any kernel writes; a synchronization
// point of the call), and the slice numbers copied back. gather_nd is one thread per result
// element; a scatter one thread per column of a slice, applying the tuples in order (the CPU
// kernel's order: the same bits, and the same winner of a repeated tuple, without atomics).
#pragma once

#include <cstddef>
#include <type_traits>
#include <vector>

#include <thrust/copy.h>
#include <thrust/device_ptr.h>

#include "staticflow/backend/thrust/arena.hpp"
#include "staticflow/backend/thrust/operand.hpp"
#include "staticflow/backend/thrust/shape_ops.hpp"
#include "staticflow/backend/thrust/system.hpp"
#include "staticflow/core/config.hpp"
#include "staticflow/graph/scatter.hpp"

namespace staticflow::thrust_backend {
namespace detail {
/// The slice of every index tuple of node n, checked on the host, as device data.
template <class N, class Views, std::size_t K, std::size_t IR>
const std::size_t* slices_of_tuples(const N& n, const Views& views, const graph::detail::nd_layout<K>& l,
                                    const extents<IR>& ie, const char* what) {
  using J = typename std::remove_cvref_t<decltype(n.indices)>::value_type;
  graph::detail::check_tuples_have_elements(l, what);
  const J* indices = contiguous_operand<J>(n.indices, views, ie);
  std::vector<J> tuples(l.positions * K);
  std::vector<std::size_t> slices(l.positions);
  if (l.positions) {
    synchronize();
    ::thrust::copy_n(::thrust::device_pointer_cast(indices), tuples.size(), tuples.data());
  }
  for (std::size_t p = 0; p < l.positions; ++p) slices[p] = graph::detail::slice_of(l, tuples.data(), p, what);
  auto* device = static_cast<std::size_t*>(device_arena::local().allocate(sizeof(std::size_t) * (l.positions ? l.positions : 1)));
  if (l.positions) ::thrust::copy_n(slices.data(), l.positions, ::thrust::device_pointer_cast(device));
  return device;
}

template <class T>
struct slice_element {  // out[p, k] = x[slice of tuple p, k]
  const T* x;
  const std::size_t* slices;
  T* out;
  std::size_t inner;
  STATICFLOW_HD void operator()(std::size_t e) const { out[e] = x[slices[e / inner] * inner + e % inner]; }
};

template <class Mode, class T>
struct scatter_slice_column {  // column k of every tuple's slice, tuples in order
  const T* updates;
  const std::size_t* slices;
  T* out;
  std::size_t positions, inner;
  STATICFLOW_HD void operator()(std::size_t k) const {
    for (std::size_t p = 0; p < positions; ++p) {
      T& to = out[slices[p] * inner + k];
      to = Mode::apply(to, updates[p * inner + k]);
    }
  }
};
}  // namespace detail

template <class X, class I, class Views, std::size_t R, class T>
void materialize(const graph::gather_nd<X, I>& n, const Views& views, const extents<R>&, T* out) {
  const auto o = graph::detail::nd_operands_of(n, staticflow::detail::extents_of_views(views));
  const auto& l = o.layout;
  const std::size_t* slices = detail::slices_of_tuples(n, views, l, o.index_extents, "gather_nd");
  if (l.positions * l.inner == 0) return;
  const T* x = detail::contiguous_operand<T>(n.x, views, o.x_extents);
  detail::gather(l.positions * l.inner, detail::slice_element<T>{x, slices, out, l.inner});
}

template <class Mode, class X, class I, class U, class Views, std::size_t R, class T>
void materialize(const graph::tensor_scatter_nd<Mode, X, I, U>& n, const Views& views, const extents<R>& out_ext, T* out) {
  const auto arg_ext = staticflow::detail::extents_of_views(views);
  const auto o = graph::detail::nd_operands_of(n, arg_ext);
  const auto& l = o.layout;
  // the tuples and the updates are read before anything is written: if they throw, out is untouched
  const std::size_t* slices = detail::slices_of_tuples(n, views, l, o.index_extents, Mode::function);
  const auto ue = graph::node_extents(n.updates, arg_ext);
  const T* updates = l.positions * l.inner != 0 ? detail::contiguous_operand<T>(n.updates, views, ue) : nullptr;
  evaluate_into(n.x, views, out_ext, out);
  if (l.positions * l.inner == 0) return;
  detail::gather(l.inner, detail::scatter_slice_column<Mode, T>{updates, slices, out, l.positions, l.inner});
}

}  // namespace staticflow::thrust_backend
