// staticflow/backend/thrust/index.hpp -- x[i] (graph::take), its gradient and the extent queries
// (sf::size, sf::dim, sf::shape_of) on the Thrust backend; scalar values read back to the host.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include <thrust/copy.h>
#include <thrust/device_ptr.h>

#include "staticflow/backend/thrust/arena.hpp"
#include "staticflow/backend/thrust/kernel.hpp"
#include "staticflow/backend/thrust/operand.hpp"
#include "staticflow/backend/thrust/shape_ops.hpp"
#include "staticflow/backend/thrust/system.hpp"
#include "staticflow/control/index.hpp"
#include "staticflow/core/errors.hpp"

namespace staticflow::thrust_backend {
namespace detail {

/// One element of device memory, read on the host (waits for the kernels before it).
template <class T>
T read_back(const T* p) {
  synchronize();
  T v{};
  ::thrust::copy_n(::thrust::device_pointer_cast(p), 1, &v);
  return v;
}

/// The value of the scalar node n (a predicate, a selector, an index), computed on the device
/// and copied back to the host.
template <class N, class Views>
auto scalar_on_host(const N& n, const Views& views) {
  using T = typename N::value_type;
  device_arena::scope scope;
  auto* buf = static_cast<T*>(device_arena::local().allocate(sizeof(T)));
  evaluate_into(n, views, extents<0>{}, buf);
  return read_back<T>(buf);
}

/// Position i of an axis of `extent` elements, Python style (negative counts from the end);
/// throws sf::shape_error when out of range (the CPU backend's message).
inline std::size_t checked_position(std::int64_t i, std::size_t extent, const char* what) {
  const std::int64_t n = static_cast<std::int64_t>(extent);
  const std::int64_t k = i < 0 ? i + n : i;
  if (k < 0 || k >= n)
    throw shape_error(std::string(what) + ": index " + std::to_string(i) + " is out of range for an axis of size " +
                      std::to_string(extent));
  return static_cast<std::size_t>(k);
}
}  // namespace detail

template <class X, class I, class Views, std::size_t R, class T>
void materialize(const graph::take<X, I>& n, const Views& views, const extents<R>& out_ext, T* out) {
  const auto xe = graph::node_extents(n.a, staticflow::detail::extents_of_views(views));
  const std::size_t row =
      detail::checked_position(static_cast<std::int64_t>(detail::scalar_on_host(n.index, views)), xe[0], "x[i]");
  const std::size_t inner = staticflow::detail::product(out_ext);
  const T* in = detail::contiguous_operand<T>(n.a, views, xe);
  if (inner > 0) ::thrust::copy_n(async_policy(), in + row * inner, inner, out);
}

template <class G, class X, class I, class Views, std::size_t R, class T>
void materialize(const graph::take_gradient<G, X, I>& n, const Views& views, const extents<R>& out_ext, T* out) {
  const std::size_t row = detail::checked_position(static_cast<std::int64_t>(detail::scalar_on_host(n.index, views)),
                                                   out_ext[0], "x[i] gradient");
  const auto ge = graph::node_extents(n.g, staticflow::detail::extents_of_views(views));
  detail::embed_window(detail::contiguous_operand<T>(n.g, views, ge), 0, row, 1, out, out_ext);
}

template <class X, int Axis, class Views, std::size_t R>
void materialize(const graph::extent_query<X, Axis>& n, const Views& views, const extents<R>&, std::int32_t* out) {
  constexpr std::size_t count = Axis == -2 ? X::shape_type::rank : 1;
  std::array<std::int32_t, count == 0 ? 1 : count> host{};
  graph::extent_query<X, Axis>::compute(graph::node_extents(n.a, staticflow::detail::extents_of_views(views)), host.data());
  if constexpr (count > 0) {
    synchronize();
    ::thrust::copy_n(host.data(), count, ::thrust::device_pointer_cast(out));
  }
}

}  // namespace staticflow::thrust_backend
