// staticflow/backend/cpu/matmul_static.hpp -- C = A·B for small contiguous matrices whose shape is
// known at compile time, fully unrolled: what a traced product of static shapes up to 8×8×8 runs.
//
//   cpu::matmul_static<float, 4, 4, 4>(a, b, c);           // contiguous 4×4 · 4×4
//
// Each element of C is the same fused multiply-add chain over k as cpu::matmul's (matmul.hpp),
// so both give the same results (the scalar form starts a chain with a[i][0] * b[0][j]: at most
// the sign of a zero differs). Larger shapes forward to cpu::matmul.
#pragma once

#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <utility>

#include <xsimd/xsimd.hpp>

#include "staticflow/backend/cpu/matmul.hpp"
#include "staticflow/core/config.hpp"

STATICFLOW_DETAIL_INTRINSICS_BEGIN

namespace staticflow::cpu {

namespace detail {

// The unrolled static product. Indices are expanded with fold expressions over function
// arguments rather than template arguments, so a shape instantiates a handful of functions
// (not one per element): compile time stays small even for 8×8×8.

/// row[j] = fma(x, brow[j], row[j]) (floating point) or row[j] + x * brow[j] wrapping (integers,
/// R unsigned), for j in J.
template <class T, class R, std::size_t... J>
STATICFLOW_INLINE void static_fma(T x, const T* brow, R* row, std::index_sequence<J...>) {
  if constexpr (std::is_floating_point<T>::value) {
    ((row[J] = fmadd(x, brow[J], row[J])), ...);
  } else {
    const R ux = static_cast<R>(x);
    ((row[J] += ux * static_cast<R>(brow[J])), ...);
  }
}

/// row[j] = x * brow[j], the start of the chains (integers: 0 + x * brow[j], the form GCC's SLP
/// vectorizer recognizes).
template <class T, class R, std::size_t... J>
STATICFLOW_INLINE void static_scale(T x, const T* brow, R* row, std::index_sequence<J...> cols) {
  if constexpr (std::is_floating_point<T>::value) {
    ((row[J] = x * brow[J]), ...);
  } else {
    ((row[J] = 0), ...);
    static_fma(x, brow, row, cols);
  }
}

/// The xsimd batch of exactly N lanes of floating-point T on this target (void if none).
template <class T, std::size_t N, bool = std::is_floating_point<T>::value>
struct static_row_batch_impl {
  using type = void;
};
template <class T, std::size_t N>
struct static_row_batch_impl<T, N, true> {
  using type = xsimd::make_sized_batch_t<T, N>;
};
template <class T, std::size_t N>
using static_row_batch = typename static_row_batch_impl<T, N>::type;

/// Row i of C as the rows of B scaled by row i of A: crow[j] = chain over p of arow[p] * b[p][j].
/// P enumerates p = 1 .. K-1.
template <class T, std::size_t N, std::size_t... P>
STATICFLOW_INLINE void static_row(const T* arow, const T* b, T* crow, std::index_sequence<P...>) {
  using R = typename std::conditional_t<std::is_floating_point<T>::value, std::type_identity<T>, std::make_unsigned<T>>::type;
  constexpr auto cols = std::make_index_sequence<N>{};
  R row[N];
  static_scale(arow[0], b, row, cols);
  (static_fma(arow[P + 1], b + (P + 1) * N, row, cols), ...);
  [&]<std::size_t... J>(std::index_sequence<J...>) STATICFLOW_LAMBDA_INLINE {
    ((crow[J] = static_cast<T>(row[J])), ...);
  }(cols);
}

/// The same when a row is one batch, with the rows of B already in registers. The chain starts
/// with fma(a[i][0], b[0], 0), exactly as the general kernel's does.
template <class B, class T, std::size_t K, std::size_t... P>
STATICFLOW_INLINE void static_row(const T* arow, const B (&brows)[K], T* crow, std::index_sequence<P...>) {
  B row = fmadd(B(arow[0]), brows[0], B(T(0)));
  ((row = fmadd(B(arow[P + 1]), brows[P + 1], row)), ...);
  row.store_unaligned(crow);
}

template <class B, class T, std::size_t N, std::size_t... P>
STATICFLOW_INLINE void static_load_rows(const T* b, B* brows, std::index_sequence<P...>) {
  ((brows[P] = B::load_unaligned(b + P * N)), ...);
}

template <class T, std::size_t N, std::size_t K, std::size_t... I>
STATICFLOW_INLINE void static_rows(const T* a, const T* b, T* c, std::index_sequence<I...>) {
  if constexpr (!std::is_void<static_row_batch<T, N>>::value) {
    // A row is exactly one native batch (4 or 8 floats, 2, 4 or 8 doubles): written out, since
    // GCC's SLP vectorizer, left to itself, may pack a chain of 4x4 products into 16-lane
    // registers and shuffle between them (twice the time), and reloads the rows of B for every
    // row of C (C might alias B, as far as it knows).
    using B = static_row_batch<T, N>;
    B brows[K];
    static_load_rows<B, T, N>(b, brows, std::make_index_sequence<K>{});
    (static_row(a + I * K, brows, c + I * N, std::make_index_sequence<K - 1>{}), ...);
  } else {
    (static_row<T, N>(a + I * K, b, c + I * N, std::make_index_sequence<K - 1>{}), ...);
  }
}

#if defined(__AVX512F__)
inline constexpr bool static_zmm_4x4 = true;

/// Four rows of a float product with K = N = 4 (a 4×4 · 4×4 block) in one 16-lane register:
/// lanes 4i..4i+3 are row i. Step p multiplies A(i, p) spread over row i's lanes (one in-lane
/// permute for all four rows) by row p of B repeated four times (a broadcast load), so a 4×4
/// product is 4 permutes and 4 fma, where one batch per row takes 16 of each when A comes from
/// registers (the previous product of a chain). Same chains as everywhere else.
STATICFLOW_INLINE void static_4x4x4_f32(const float* a, const float* b, float* c) {
  // (The maskz forms with a full mask compile to the plain instructions; GCC 12's unmasked
  // _mm512_permute_ps and _mm512_broadcast_f32x4 draw -Wuninitialized from _mm512_undefined_ps.)
  constexpr __mmask16 all = 0xFFFF;
  const __m512 av = _mm512_loadu_ps(a);
  const auto step = [&](auto imm, const float* brow, __m512 acc) STATICFLOW_LAMBDA_INLINE {
    return _mm512_fmadd_ps(_mm512_maskz_permute_ps(all, av, decltype(imm)::value),
                           _mm512_maskz_broadcast_f32x4(all, _mm_loadu_ps(brow)), acc);
  };
  __m512 r = step(std::integral_constant<int, 0x00>{}, b, _mm512_setzero_ps());
  r = step(std::integral_constant<int, 0x55>{}, b + 4, r);
  r = step(std::integral_constant<int, 0xAA>{}, b + 8, r);
  r = step(std::integral_constant<int, 0xFF>{}, b + 12, r);
  _mm512_storeu_ps(c, r);
}
#else
inline constexpr bool static_zmm_4x4 = false;
STATICFLOW_INLINE void static_4x4x4_f32(const float*, const float*, float*) {}
#endif

}  // namespace detail

/// C = A·B for static shapes, contiguous row-major (A is M×K, B is K×N, C is M×N), C not
/// overlapping A or B. When every dimension is at most 8 the product is fully unrolled, no loop
/// at run time: a row of C is one batch when N is a batch width (4 or 8 floats, 2, 4 or 8
/// doubles), four rows of a 4×4·4×4 float block share one 16-lane register with AVX-512, and
/// other widths are scalar statements the compiler vectorizes. Larger shapes go to `matmul`.
template <class T, std::size_t M, std::size_t N, std::size_t K>
STATICFLOW_INLINE void matmul_static(const T* a, const T* b, T* c) {
  static_assert(detail::simd_gemm_type<T> || (std::is_integral<T>::value && !std::is_same<T, bool>::value),
                "staticflow: matmul supports float, double and integer element types");
  if constexpr (M == 0 || N == 0) {
    return;
  } else if constexpr (K == 0) {
    std::fill_n(c, M * N, T(0));
  } else if constexpr (detail::static_zmm_4x4 && std::is_same<T, float>::value && N == 4 && K == 4 && M % 4 == 0 &&
                       M <= 8) {
    detail::static_4x4x4_f32(a, b, c);
    if constexpr (M == 8) detail::static_4x4x4_f32(a + 16, b, c + 16);
  } else if constexpr (M <= 8 && N <= 8 && K <= 8) {
    detail::static_rows<T, N, K>(a, b, c, std::make_index_sequence<M>{});
  } else {
    matmul(a, K, b, N, c, N, M, N, K);
  }
}

}  // namespace staticflow::cpu

STATICFLOW_DETAIL_INTRINSICS_END
