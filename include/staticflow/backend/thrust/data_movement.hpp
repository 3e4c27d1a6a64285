// staticflow/backend/thrust/data_movement.hpp -- the axis-map ops (graph/data_movement.hpp: reverse,
// roll, tile, repeat, pad, split; graph/slicing.hpp: strided slices) and their gradients on the
// device: one thread per result
// element for the forward pass (its coordinates mapped axis by axis), one thread per operand
// element for the gradient (the adjoint at its readers summed in row-major order of the result,
// the CPU kernel's order: the same bits, no atomics).
#pragma once

#include <array>
#include <cstddef>

#include <thrust/copy.h>
#include <thrust/fill.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>

#include "staticflow/backend/thrust/operand.hpp"
#include "staticflow/backend/thrust/shape_ops.hpp"
#include "staticflow/backend/thrust/system.hpp"
#include "staticflow/core/config.hpp"
#include "staticflow/graph/data_movement.hpp"

namespace staticflow::thrust_backend {
namespace detail {

template <class T, std::size_t R>
struct axis_map_element {
  const T* in;  // null when the operand is empty (every element is the fill value)
  T* out;
  T fill;
  graph::axis_rule rule[R];
  std::size_t out_ext[R], in_stride[R];
  STATICFLOW_HD void operator()(std::size_t j) const {
    std::size_t rest = j, from = 0;
    for (std::size_t d = R; d-- > 0;) {
      const std::ptrdiff_t s = rule[d].source(rest % out_ext[d]);
      rest /= out_ext[d];
      if (s < 0 || !in) {
        out[j] = fill;
        return;
      }
      from += static_cast<std::size_t>(s) * in_stride[d];
    }
    out[j] = in[from];
  }
};

template <class T, std::size_t R>
struct axis_map_gradient_element {
  const T* g;
  T* out;
  graph::axis_rule rule[R];
  std::size_t in_ext[R], g_stride[R];
  STATICFLOW_HD void operator()(std::size_t j) const {
    std::size_t index[R], counts[R], k[R];
    for (std::size_t d = R, rest = j; d-- > 0;) {
      index[d] = rest % in_ext[d];
      rest /= in_ext[d];
      counts[d] = rule[d].count(index[d]);
      k[d] = 0;
      if (counts[d] == 0) {
        out[j] = T(0);
        return;
      }
    }
    T sum = T(0);
    for (;;) {
      std::size_t from = 0;
      for (std::size_t d = 0; d < R; ++d) from += rule[d].nth(index[d], k[d]) * g_stride[d];
      sum += g[from];
      std::size_t d = R;
      while (d-- > 0) {
        if (++k[d] < counts[d]) break;
        k[d] = 0;
      }
      if (d >= R) break;  // every combination done
    }
    out[j] = sum;
  }
};

template <std::size_t R>
extents<R> strides_of(const extents<R>& e) {
  extents<R> s{};
  for (std::size_t i = R, n = 1; i-- > 0;) s[i] = n, n *= e[i];
  return s;
}

}  // namespace detail

template <class Kind, class A, class Views, std::size_t R, class T>
void materialize(const graph::axis_map<Kind, A>& n, const Views& views, const extents<R>& out_ext, T* out) {
  const auto ie = graph::node_extents(n.a, staticflow::detail::extents_of_views(views));
  const std::size_t size = staticflow::detail::product(out_ext);
  if (size == 0) return;
  const T* in = staticflow::detail::product(ie) ? detail::contiguous_operand<T>(n.a, views, ie) : nullptr;
  if constexpr (R == 0) {
    ::thrust::copy_n(async_policy(), in, 1, out);
  } else {
    detail::axis_map_element<T, R> f{in, out, T{}, {}, {}, {}};
    if constexpr (requires { n.params.fill; }) f.fill = static_cast<T>(n.params.fill);
    const auto rules = n.params.rules(ie, out_ext);
    const auto stride = detail::strides_of(ie);
    for (std::size_t d = 0; d < R; ++d) f.rule[d] = rules[d], f.out_ext[d] = out_ext[d], f.in_stride[d] = stride[d];
    detail::gather(size, f);
  }
}

template <class Kind, class G, class A, class Views, std::size_t R, class T>
void materialize(const graph::axis_map_gradient<Kind, G, A>& n, const Views& views, const extents<R>& out_ext, T* out) {
  const auto ge = graph::node_extents(n.g, staticflow::detail::extents_of_views(views));
  const std::size_t size = staticflow::detail::product(out_ext);
  if (size == 0) return;
  if (staticflow::detail::product(ge) == 0) {
    ::thrust::fill_n(async_policy(), out, size, T(0));
    return;
  }
  const T* g = detail::contiguous_operand<T>(n.g, views, ge);
  if constexpr (R == 0) {
    ::thrust::copy_n(async_policy(), g, 1, out);
  } else {
    detail::axis_map_gradient_element<T, R> f{g, out, {}, {}, {}};
    const auto rules = n.rules(out_ext);
    const auto stride = detail::strides_of(ge);
    for (std::size_t d = 0; d < R; ++d) f.rule[d] = rules[d], f.in_ext[d] = out_ext[d], f.g_stride[d] = stride[d];
    detail::gather(size, f);
  }
}

}  // namespace staticflow::thrust_backend
