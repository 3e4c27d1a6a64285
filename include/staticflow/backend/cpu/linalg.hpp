// staticflow/backend/cpu/linalg.hpp -- evaluating graph::matmul nodes with the kernels of
// matmul.hpp: fully unrolled for small static shapes, blocked and register-tiled otherwise, split
// across threads when the product is big enough (cpu::threads_for).
#pragma once

#include <cstddef>

#include "staticflow/backend/cpu/epilogue.hpp"
#include "staticflow/backend/cpu/matmul.hpp"
#include "staticflow/backend/cpu/matmul_static.hpp"
#include "staticflow/backend/cpu/operand.hpp"
#include "staticflow/backend/cpu/parallel.hpp"
#include "staticflow/graph/matmul.hpp"

namespace staticflow::cpu {
namespace detail {
/// A matmul operand as it lies: the node to evaluate (X of a graph::transposed_operand<X>, read
/// with its last two axes swapped), and whether it is transposed.
template <class N>
struct stored_operand {
  static constexpr bool transposed = false;
  static constexpr const N& of(const N& n) { return n; }
};
template <class X>
struct stored_operand<graph::transposed_operand<X>> {
  static constexpr bool transposed = true;
  static constexpr const X& of(const graph::transposed_operand<X>& n) { return n.x; }
};

/// The operand's data as a row-major rows × cols matrix, for the unrolled static product: a
/// transposed one copied into `local` first.
template <class T, std::size_t Rows, std::size_t Cols, std::size_t Size>
STATICFLOW_INLINE const T* static_operand(const T* p, bool transposed, T (&local)[Size]) {
  static_assert(Size >= Rows * Cols);
  if (!transposed) return p;
  transposed_copy(p, Rows, Rows, Cols, local);
  return local;
}

/// C = the product n (batches of matrices, NumPy's rules); finish (matmul.hpp) sees each block of
/// each batch's C once its sums are complete.
template <class Sig, class A, class B, class Views, std::size_t R, class T, class Finish>
void matmul_forward(const graph::matmul<A, B>& n, const Views& views, const extents<R>& out_ext, T* out, const Finish& finish) {
  using node = graph::matmul<A, B>;
  constexpr std::size_t ra = node::ra, rb = node::rb, br = node::batch_rank;
  using stored_a = stored_operand<A>;
  using stored_b = stored_operand<B>;
  constexpr operand_order order{stored_a::transposed, stored_b::transposed};
  const auto ext_views = staticflow::detail::extents_of_views(views);
  const auto ea = graph::node_extents(n.a, ext_views);
  const auto eb = graph::node_extents(n.b, ext_views);
  const auto& a_stored = stored_a::of(n.a);
  const auto& b_stored = stored_b::of(n.b);
  const T* pa = contiguous_operand<T, Sig>(a_stored, views, graph::node_extents(a_stored, ext_views));
  const T* pb = contiguous_operand<T, Sig>(b_stored, views, graph::node_extents(b_stored, ext_views));
  const std::size_t m = ra >= 2 ? ea[ra - 2] : 1, k = ea[ra - 1], cols = rb >= 2 ? eb[rb - 1] : 1;
  // rows apart as stored: a transposed A lies k × m, a transposed B n × k
  const std::size_t lda = order.a_transposed ? m : k;
  const std::size_t ldb = order.b_transposed ? k : rb >= 2 ? cols : 1;

  using SA = typename A::shape_type;
  using SB = typename B::shape_type;
  if constexpr (br == 0 && SA::is_static && SB::is_static) {
    constexpr std::size_t M = ra >= 2 ? SA::dims[ra >= 2 ? ra - 2 : 0] : 1, K = SA::dims[ra - 1];
    constexpr std::size_t N = rb >= 2 ? SB::dims[rb >= 2 ? rb - 1 : 0] : 1;
    if constexpr (M <= 8 && N <= 8 && K <= 8 && rb >= 2) {
      // small static shapes: no loop at run time (a transposed operand copied on the stack first)
      T local_a[M * K > 0 ? M * K : 1], local_b[K * N > 0 ? K * N : 1];
      matmul_static<T, M, N, K>(static_operand<T, M, K>(pa, order.a_transposed, local_a),
                                static_operand<T, K, N>(pb, order.b_transposed, local_b), out);
      finish(out, M, N, std::size_t{0}, N);
      return;
    }
  }
  const std::size_t threads = threads_for(m * cols * k);
  if constexpr (br == 0) {
    matmul(pa, lda, pb, ldb, out, cols, m, cols, k, threads, order, finish);
  } else {
    // batch index -> offsets into A and B (a broadcast batch axis has stride 0)
    std::array<std::size_t, br> stride_a{}, stride_b{};
    std::size_t sa = m * k, sb = k * cols;
    for (std::size_t i = br; i-- > 0;) {
      // batch axis i is axis i - (br - batch dims of X) of operand X, when that is >= 0
      const long ia = long(i) - long(br) + long(ra >= 2 ? ra - 2 : 0);
      const long ib = long(i) - long(br) + long(rb >= 2 ? rb - 2 : 0);
      const std::size_t da = ia >= 0 ? ea[std::size_t(ia)] : 1, db = ib >= 0 ? eb[std::size_t(ib)] : 1;
      stride_a[i] = da == 1 ? 0 : sa;
      stride_b[i] = db == 1 ? 0 : sb;
      sa *= da;
      sb *= db;
    }
    std::array<std::size_t, br> index{};
    const std::size_t batches = staticflow::detail::product(out_ext) / (m * cols != 0 ? m * cols : 1);
    for (std::size_t bi = 0; bi < batches; ++bi) {
      std::size_t oa = 0, ob = 0;
      for (std::size_t i = 0; i < br; ++i) oa += index[i] * stride_a[i], ob += index[i] * stride_b[i];
      matmul(pa + oa, lda, pb + ob, ldb, out + bi * m * cols, cols, m, cols, k, threads, order, finish);
      for (std::size_t i = br; i-- > 0;) {
        if (++index[i] < out_ext[i]) break;
        index[i] = 0;
      }
    }
  }
}
}  // namespace detail

template <class Sig, class A, class B, class Views, std::size_t R, class T>
void materialize(const graph::matmul<A, B>& n, const Views& views, const extents<R>& out_ext, T* out) {
  detail::matmul_forward<Sig>(n, views, out_ext, out, detail::no_finish{});
}

/// A product with its epilogue (plan/epilogues.hpp: a dense layer's bias and activation), applied
/// to each panel of rows the blocked kernel finishes (backend/cpu/epilogue.hpp).
template <class Sig, class A, class B, class Fn, class... Q, class Views, std::size_t R, class T>
void materialize(const graph::epilogue<graph::matmul<A, B>, Fn, Q...>& n, const Views& views, const extents<R>& ext,
                 T* out) {
  const std::size_t channels = ext[R - 1], pixels = channels ? staticflow::detail::product(ext) / channels : 0;
  const auto producer_ext = graph::node_extents(n.producer, staticflow::detail::extents_of_views(views));
  detail::run_epilogue<Sig>(n, views, ext, out, pixels, producer_ext[R - 1], [&](T* y, const auto& finish) {
    detail::matmul_forward<Sig>(n.producer, views, producer_ext, y, finish);
  });
}

}  // namespace staticflow::cpu
