// staticflow/backend/thrust/kernel.hpp -- one fused elementwise group as one Thrust algorithm:
// thrust::for_each_n over a counting iterator whose functor evaluates the whole group (a device
// expression, expr.hpp) at an index and stores the element. No temporaries.
#pragma once

#include <cstddef>

#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>

#include "staticflow/backend/thrust/expr.hpp"
#include "staticflow/backend/thrust/system.hpp"
#include "staticflow/core/config.hpp"
#include "staticflow/core/shape.hpp"

namespace staticflow::thrust_backend {
namespace detail {

/// out[j] = e at flat index j (Blocks: some tensors read as blocks, expr.hpp).
template <class E, class T, bool Blocks>
struct flat_kernel {
  E e;
  T* out;
  STATICFLOW_HD void operator()(std::size_t j) const { out[j] = static_cast<T>(e.at(flat_index_of<Blocks>{j})); }
};

/// out[j] = e at the result coordinates of j (row-major over `ext`).
template <class E, class T, std::size_t R>
struct nd_kernel {
  E e;
  T* out;
  std::size_t ext[R > 0 ? R : 1];
  STATICFLOW_HD void operator()(std::size_t j) const {
    nd_index<R> i;
    std::size_t rest = j;
    for (std::size_t d = R; d-- > 0;) {
      i.c[d] = rest % ext[d];
      rest /= ext[d];
    }
    out[j] = static_cast<T>(e.at(i));
  }
};

template <class F>
void launch(std::size_t n, const F& f) {
  if (n == 0) return;
  ::thrust::for_each_n(async_policy(), ::thrust::counting_iterator<std::size_t>(0), n, f);
}
}  // namespace detail

/// Evaluates the lowered elementwise graph n into device memory `out` (row-major, extents ext),
/// reading device tensors and host scalars through `views` (indexed like the arguments, then
/// the slots). Asynchronous under CUDA.
template <class N, class Views, class T, std::size_t R>
void evaluate_into(const N& n, const Views& views, const extents<R>& ext, T* out) {
  const std::size_t size = staticflow::detail::product(ext);
  if (size == 0) return;
  const detail::read_plan<R> rp{ext, size, detail::fits_flat<N>(views, ext)};
  if (rp.flat) {
    using E = decltype(detail::make_expr(n, views, rp));
    if (detail::separate_plain_kernels && !detail::reads_blocks<N>(views, size))
      detail::launch(size, detail::flat_kernel<E, T, !detail::separate_plain_kernels>{detail::make_expr(n, views, rp), out});
    else
      detail::launch(size, detail::flat_kernel<E, T, true>{detail::make_expr(n, views, rp), out});
  } else {
    using E = decltype(detail::make_expr(n, views, rp));
    detail::nd_kernel<E, T, R> k{detail::make_expr(n, views, rp), out, {}};
    for (std::size_t d = 0; d < R; ++d) k.ext[d] = ext[d];
    detail::launch(size, k);
  }
}

}  // namespace staticflow::thrust_backend
