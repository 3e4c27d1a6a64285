// staticflow/backend/thrust/linalg.hpp -- matmul on the device: one thread per element of C, each
// the fused multiply-add chain over k in increasing order, c = fma(a[i][k-1], b[k-1][j], ...
// fma(a[i][0], b[0][j], 0)) -- the CPU backend's order (backend/cpu/matmul.hpp), so results
// agree bit for bit with its general path. Integers wrap. Batched operands whose batch dims
// broadcast read a stride of 0 on those axes.
#pragma once

#include <cmath>
#include <cstddef>

#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>

#include "staticflow/backend/thrust/epilogue.hpp"
#include "staticflow/backend/thrust/operand.hpp"
#include "staticflow/backend/thrust/system.hpp"
#include "staticflow/core/config.hpp"
#include "staticflow/graph/matmul.hpp"
#include "staticflow/graph/scalar_ops.hpp"

namespace staticflow::thrust_backend {
namespace detail {

template <class T>
STATICFLOW_HD T fma_step(T a, T b, T c) {
  if constexpr (std::is_floating_point<T>::value) {
#if defined(__CUDA_ARCH__) || defined(__FMA__) || defined(__ARM_FEATURE_FMA)
    return std::fma(a, b, c);
#else
    return a * b + c;
#endif
  } else {
    return op::add::apply(op::multiply::apply(a, b), c);
  }
}

template <class T, std::size_t BR>
struct matmul_kernel {
  const T* a;
  const T* b;
  T* c;
  std::size_t m, n, k;  // C is m x n per batch; A is m x k; B is k x n
  // A(i, p) = a[i * a_row + p * a_col], B(p, j) = b[p * b_row + j * b_col]: row-major, or
  // transposed where it lies (graph::transposed_operand)
  std::size_t a_row, a_col, b_row, b_col;
  std::size_t batch_ext[BR > 0 ? BR : 1], stride_a[BR > 0 ? BR : 1], stride_b[BR > 0 ? BR : 1];
  STATICFLOW_HD void operator()(std::size_t e) const {
    const std::size_t per_batch = m * n;
    std::size_t batch = e / per_batch;
    const std::size_t ij = e % per_batch, i = ij / n, j = ij % n;
    std::size_t oa = 0, ob = 0;
    for (std::size_t d = BR; d-- > 0;) {
      const std::size_t x = batch % batch_ext[d];
      batch /= batch_ext[d];
      oa += x * stride_a[d];
      ob += x * stride_b[d];
    }
    const T* ar = a + oa + i * a_row;
    const T* bc = b + ob + j * b_col;
    T acc = T(0);
    for (std::size_t p = 0; p < k; ++p) acc = fma_step(ar[p * a_col], bc[p * b_row], acc);
    c[e] = acc;
  }
};

/// A matmul operand as it lies: X of a graph::transposed_operand<X> (read transposed), or itself.
template <class N>
struct stored_operand {
  static constexpr bool transposed = false;
  static const N& of(const N& n) { return n; }
};
template <class X>
struct stored_operand<graph::transposed_operand<X>> {
  static constexpr bool transposed = true;
  static const X& of(const graph::transposed_operand<X>& n) { return n.x; }
};
}  // namespace detail

template <class A, class B, class Views, std::size_t R, class T>
void materialize(const graph::matmul<A, B>& n, const Views& views, const extents<R>& out_ext, T* out) {
  using node = graph::matmul<A, B>;
  constexpr std::size_t ra = node::ra, rb = node::rb, br = node::batch_rank;
  using stored_a = detail::stored_operand<A>;
  using stored_b = detail::stored_operand<B>;
  const auto ext_views = staticflow::detail::extents_of_views(views);
  const auto ea = graph::node_extents(n.a, ext_views);
  const auto eb = graph::node_extents(n.b, ext_views);
  const std::size_t total = staticflow::detail::product(out_ext);
  if (total == 0) return;
  detail::matmul_kernel<T, br> kernel{};
  const auto& a_stored = stored_a::of(n.a);
  const auto& b_stored = stored_b::of(n.b);
  kernel.a = detail::contiguous_operand<T>(a_stored, views, graph::node_extents(a_stored, ext_views));
  kernel.b = detail::contiguous_operand<T>(b_stored, views, graph::node_extents(b_stored, ext_views));
  kernel.c = out;
  kernel.m = ra >= 2 ? ea[ra - 2] : 1;
  kernel.k = ea[ra - 1];
  kernel.n = rb >= 2 ? eb[rb - 1] : 1;
  kernel.a_row = stored_a::transposed ? 1 : kernel.k;
  kernel.a_col = stored_a::transposed ? kernel.m : 1;
  kernel.b_row = stored_b::transposed ? 1 : rb >= 2 ? kernel.n : 1;
  kernel.b_col = stored_b::transposed ? kernel.k : 1;
  if constexpr (br > 0) {
    std::size_t sa = kernel.m * kernel.k, sb = kernel.k * kernel.n;
    for (std::size_t i = br; i-- > 0;) {
      const long ia = long(i) - long(br) + long(ra >= 2 ? ra - 2 : 0);
      const long ib = long(i) - long(br) + long(rb >= 2 ? rb - 2 : 0);
      const std::size_t da = ia >= 0 ? ea[std::size_t(ia)] : 1, db = ib >= 0 ? eb[std::size_t(ib)] : 1;
      kernel.batch_ext[i] = out_ext[i];
      kernel.stride_a[i] = da == 1 ? 0 : sa;
      kernel.stride_b[i] = db == 1 ? 0 : sb;
      sa *= da;
      sb *= db;
    }
  }
  ::thrust::for_each_n(async_policy(), ::thrust::counting_iterator<std::size_t>(0), total, kernel);
}

/// A product with its epilogue (plan/epilogues.hpp): backend/thrust/epilogue.hpp.
template <class A, class B, class Fn, class... Q, class Views, std::size_t R, class T>
void materialize(const graph::epilogue<graph::matmul<A, B>, Fn, Q...>& n, const Views& views,
                 const extents<R>& out_ext, T* out) {
  detail::run_epilogue(n, views, out_ext, out, [&](T* y, const extents<R>& e) { materialize(n.producer, views, e, y); });
}

}  // namespace staticflow::thrust_backend
