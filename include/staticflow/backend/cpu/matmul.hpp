// staticflow/backend/cpu/matmul.hpp -- C = A·B for row-major matrices: a cache-blocked,
// register-tiled xsimd kernel for float and double, and a wrapping loop for integers (the fully
// unrolled form for small static shapes: matmul_static.hpp).
//
//   cpu::matmul(a, lda, b, ldb, c, ldc, m, n, k);          // A is m×k, B is k×n, C is m×n
//   cpu::matmul(a, lda, b, ldb, c, ldc, m, n, k, threads); // the same result, bit for bit
//
// Floating point: every element of C is one fused multiply-add chain over k in increasing order,
// c = fma(a[i][k-1], b[k-1][j], ... fma(a[i][0], b[0][j], 0)), whatever the blocking, the path,
// the tile an element falls in or the thread that computes it, except for n <= 4 and k > 8
// (matrix × vector and the like), where elements are dot products vectorized along k (W partial
// chains summed pairwise, then a chain over the last k mod W terms). Either way the results do
// not depend on `threads`, and matmul_static gives the same as matmul (its scalar form starts a
// chain with a[i][0] * b[0][j]: at most the sign of a zero differs). Without FMA instructions
// "fma" is a multiply and an add, in vectors and scalars alike. Integers wrap (two's
// complement), like `op::multiply` and `op::add`.
//
// Paths of the float/double kernel (one thread):
//  * blocked (GotoBLAS/BLIS): for each block of NC columns and KC rows of B, B is packed into
//    NR-column panels (zero-padded, aligned); for each MR-row panel of A, the A panel is packed
//    (k-major: one broadcast per row and k) and the micro-kernel runs over every B panel,
//    keeping up to MR × NB batches of C in registers. The A panel stays in L1, the packed B block
//    in L2. When B's panels serve few row panels (at most eight, B itself small enough to stay in
//    cache), or the block fits L1, the kernel reads B in place instead. A transposed B is packed
//    with W × W blocks transposed in registers (AVX-512). Tiles narrower than a batch are
//    computed in a local tile and copied out.
//  * few rows (m <= 4: vector × matrix): B is streamed row by row, C rows stay in L1.
//  * narrow (n <= 4 < 8 < k: matrix × vector): dot products of rows of A with columns of B.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#include <xsimd/xsimd.hpp>
#if (defined(__FMA__) || defined(__AVX512F__)) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#endif

#include "staticflow/backend/cpu/parallel.hpp"
#include "staticflow/backend/cpu/simd_eval.hpp"
#include "staticflow/core/config.hpp"

STATICFLOW_DETAIL_INTRINSICS_BEGIN

namespace staticflow::cpu {

namespace detail {

/// f(integral_constant<0>), ..., f(integral_constant<N-1>): a loop the compiler cannot keep.
template <std::size_t N, class F>
STATICFLOW_INLINE void unrolled(F&& f) {
  [&]<std::size_t... I>(std::index_sequence<I...>) STATICFLOW_LAMBDA_INLINE {
    (f(std::integral_constant<std::size_t, I>{}), ...);
  }(std::make_index_sequence<N>{});
}

/// a * b + c rounded once, for batches and scalars alike. xsimd 8.1's fma on AVX-512 and on
/// plain SSE/AVX batches is a multiply and an add that only GCC's contraction (at -O2 and up,
/// -ffp-contract=fast) fuses, and that it may then fuse with another product of the same sum;
/// the FMA intrinsics themselves always give one rounding. Scalars use the same instruction
/// (std::fma) where vectors do, and a * b + c where there is no FMA, so that the scalar tails
/// compute what the vector lanes do.
template <class V>
STATICFLOW_INLINE V fmadd(const V& a, const V& b, const V& c) {
  if constexpr (std::is_arithmetic<V>::value) {
#if defined(__FMA__) || defined(__ARM_FEATURE_FMA)
    return std::fma(a, b, c);
#else
    return a * b + c;
#endif
  } else {
#if defined(__FMA__) && (defined(__x86_64__) || defined(__i386__))
    // (Dispatch on the register's size: naming __m512 and the like in a template argument
    // draws -Wignored-attributes.)
    constexpr std::size_t bytes = sizeof(typename V::register_type);
    constexpr bool f32 = std::is_same<typename V::value_type, float>::value;
    constexpr bool f64 = std::is_same<typename V::value_type, double>::value;
#if defined(__AVX512F__)
    if constexpr (bytes == 64 && f32) return _mm512_fmadd_ps(a, b, c);
    else if constexpr (bytes == 64 && f64) return _mm512_fmadd_pd(a, b, c);
    else
#endif
    if constexpr (bytes == 32 && f32) return _mm256_fmadd_ps(a, b, c);
    else if constexpr (bytes == 32 && f64) return _mm256_fmadd_pd(a, b, c);
    else if constexpr (bytes == 16 && f32) return _mm_fmadd_ps(a, b, c);
    else if constexpr (bytes == 16 && f64) return _mm_fmadd_pd(a, b, c);
    else return xsimd::fma(a, b, c);
#else
    return xsimd::fma(a, b, c);
#endif
  }
}

template <class T>
inline constexpr bool simd_gemm_type = std::is_same<T, float>::value || std::is_same<T, double>::value;

/// What a kernel does with each block of its result whose values are complete: nothing, or an
/// epilogue's function while the block is in cache (backend/cpu/epilogue.hpp, graph/epilogue.hpp).
/// The kernels call finish(c, rows, ldc, col0, cols) for `rows` rows of `cols` values `ldc`
/// apart, the first one at column col0 of the result (a convolution's rows are its pixels).
struct no_finish {
  template <class T>
  void operator()(T*, std::size_t, std::size_t, std::size_t, std::size_t) const {}
};
/// An epilogue's finish, type-erased: every epilogue shares one instantiation of a kernel (the
/// GEMM's and the convolutions' kernels are large), at the price of one indirect call per block.
template <class T>
struct block_finish {
  const void* context;
  void (*call)(const void* context, T* c, std::size_t rows, std::size_t ldc, std::size_t col0, std::size_t cols);
  void operator()(T* c, std::size_t rows, std::size_t ldc, std::size_t col0, std::size_t cols) const {
    call(context, c, rows, ldc, col0, cols);
  }
  /// The one for callable f (which must outlive it).
  template <class F>
  static block_finish of(const F& f) {
    return {&f, [](const void* ctx, T* c, std::size_t rows, std::size_t ldc, std::size_t col0, std::size_t cols) {
              (*static_cast<const F*>(ctx))(c, rows, ldc, col0, cols);
            }};
  }
};

/// Register tile and cache blocks of the float/double kernel.
template <class T>
struct gemm_blocking {
  using batch = batch_t<T>;
  static constexpr std::size_t W = batch::size;
  // MR × NB accumulators + NB batches of B + one broadcast must fit the vector registers:
  // 32 with AVX-512 (12 × 2 + 3 = 27), 16 otherwise (6 × 2 + 3 = 15).
  static constexpr bool wide_regs = sizeof(batch) >= 64;
  static constexpr std::size_t MR = wide_regs ? 12 : 6;  // rows of C per tile
  static constexpr std::size_t NB = 2;                   // batches of columns per tile
  static constexpr std::size_t NR = NB * W;              // columns of C per tile
  // A KC × MR panel of A (12 KiB for float) stays in L1 while the micro-kernel sweeps the packed
  // KC × NC block of B (512 KiB for float), which stays in L2.
  static constexpr std::size_t KC = 1024 / sizeof(T);
  static constexpr std::size_t NC = 512;
  // Problems whose packing buffers fit this many bytes use a stack buffer: no allocation.
  static constexpr std::size_t stack_bytes = 16 * 1024;
};

template <class T>
struct aligned_delete {
  void operator()(T* p) const noexcept { ::operator delete(p, std::align_val_t{64}); }
};

/// acc = the R × NB batches of C (rows ldc apart) when accumulating, else zeros: a register
/// tile's start (the blocked kernel here, conv_direct.hpp's).
template <class B, std::size_t R, std::size_t NB, class T>
STATICFLOW_INLINE void load_tile(B (&acc)[R][NB], const T* c, std::size_t ldc, bool accumulate) {
  unrolled<R>([&](auto r) STATICFLOW_LAMBDA_INLINE {
    unrolled<NB>([&](auto j) STATICFLOW_LAMBDA_INLINE {
      acc[r][j] = accumulate ? B::load_unaligned(c + r * ldc + j * B::size) : B(T(0));
    });
  });
}

/// C = acc, the register tile's end.
template <class B, std::size_t R, std::size_t NB, class T>
STATICFLOW_INLINE void store_tile(const B (&acc)[R][NB], T* c, std::size_t ldc) {
  unrolled<R>([&](auto r) STATICFLOW_LAMBDA_INLINE {
    unrolled<NB>([&](auto j) STATICFLOW_LAMBDA_INLINE { acc[r][j].store_unaligned(c + r * ldc + j * B::size); });
  });
}

/// C[0:R, 0:NB·W] = (accumulate ? C : 0) + Ap · Bp over kc, where Ap is a packed A panel
/// (ap[p * MR + r], r < R) and Bp a B panel with rows ldbp apart (bp[p * ldbp + j], j < NB·W):
/// packed (ldbp = NR) or B itself. R × NB batches of C stay in registers.
template <class T, std::size_t R, std::size_t NB>
void gemm_micro_kernel(std::size_t kc, const T* __restrict ap, const T* __restrict bp, std::size_t ldbp,
                       T* __restrict c, std::size_t ldc, bool accumulate) {
  using B = batch_t<T>;
  constexpr std::size_t W = B::size, MR = gemm_blocking<T>::MR;
  B acc[R][NB];
  load_tile(acc, c, ldc, accumulate);
  for (std::size_t p = 0; p < kc; ++p) {
    B bv[NB];
    unrolled<NB>([&](auto j) STATICFLOW_LAMBDA_INLINE { bv[j] = B::load_unaligned(bp + j * W); });
    unrolled<R>([&](auto r) STATICFLOW_LAMBDA_INLINE {
      const B av(ap[r]);
      unrolled<NB>([&](auto j) STATICFLOW_LAMBDA_INLINE { acc[r][j] = fmadd(av, bv[j], acc[r][j]); });
    });
    ap += MR;
    bp += ldbp;
  }
  store_tile(acc, c, ldc);
}

/// The micro-kernel for mr rows (1 <= mr <= MR), chosen at run time.
template <class T, std::size_t NB>
void gemm_micro_kernel_rows(std::size_t mr, std::size_t kc, const T* ap, const T* bp, std::size_t ldbp, T* c,
                            std::size_t ldc, bool accumulate) {
  [&]<std::size_t... R>(std::index_sequence<R...>) {
    (void)((mr == R + 1 && (gemm_micro_kernel<T, R + 1, NB>(kc, ap, bp, ldbp, c, ldc, accumulate), true)) || ...);
  }(std::make_index_sequence<gemm_blocking<T>::MR>{});
}

/// One tile of C: mr rows (<= MR), nr columns (<= NR). Tiles as wide as one or two batches are
/// written in place; narrower ones go through a local tile, of which only the part inside C is
/// read and written back (their B panel must be packed: the kernel reads all NR columns).
template <class T>
void gemm_tile(std::size_t mr, std::size_t nr, std::size_t kc, const T* ap, const T* bp, std::size_t ldbp, T* c,
               std::size_t ldc, bool accumulate) {
  using G = gemm_blocking<T>;
  constexpr std::size_t W = G::W, NR = G::NR;
  static_assert(G::NB == 2);
  if (nr == NR) return gemm_micro_kernel_rows<T, 2>(mr, kc, ap, bp, ldbp, c, ldc, accumulate);
  if (nr == W) return gemm_micro_kernel_rows<T, 1>(mr, kc, ap, bp, ldbp, c, ldc, accumulate);
  alignas(64) T tile[G::MR * NR];
  if (accumulate) {
    for (std::size_t r = 0; r < mr; ++r) {
      std::memcpy(tile + r * NR, c + r * ldc, nr * sizeof(T));
      std::fill(tile + r * NR + nr, tile + (r + 1) * NR, T(0));
    }
  }
  if (nr < W) gemm_micro_kernel_rows<T, 1>(mr, kc, ap, bp, ldbp, tile, NR, accumulate);
  else gemm_micro_kernel_rows<T, 2>(mr, kc, ap, bp, ldbp, tile, NR, accumulate);
  for (std::size_t r = 0; r < mr; ++r) std::memcpy(c + r * ldc, tile + r * NR, nr * sizeof(T));
}

/// Whether transpose_block moves a W × W block in registers (else element by element).
template <class T>
inline constexpr bool register_transpose =
#if defined(__AVX512F__)
    sizeof(typename batch_t<T>::register_type) == 64 && simd_gemm_type<T>;
#else
    false;
#endif

constexpr std::size_t log2_of(std::size_t w) { return w <= 1 ? 0 : 1 + log2_of(w / 2); }

/// dst[q * ldd + j] = src[j * lds + q] for j, q < W, the batch width: a W × W block transposed.
/// With AVX-512, in registers: log2 W rounds that interleave row i with row i + W/2 (row 2i gets
/// their first halves, row 2i + 1 their second halves: the perfect shuffle, whose log2 W-th power
/// is the transpose), one two-source permute per row and round.
template <class T>
STATICFLOW_INLINE void transpose_block(const T* src, std::size_t lds, T* dst, std::size_t ldd) {
  using B = batch_t<T>;
  constexpr std::size_t W = B::size;
#if defined(__AVX512F__)
  if constexpr (register_transpose<T>) {
    using R = typename B::register_type;
    using I = std::conditional_t<sizeof(T) == 4, std::int32_t, std::int64_t>;
    // lanes of (row i, row i + W/2) in the order they interleave: lane l of the first is index
    // l, of the second W + l
    alignas(64) I lo_index[W], hi_index[W];
    for (std::size_t l = 0; l < W / 2; ++l) {
      lo_index[2 * l] = I(l), lo_index[2 * l + 1] = I(W + l);
      hi_index[2 * l] = I(W / 2 + l), hi_index[2 * l + 1] = I(W + W / 2 + l);
    }
    const __m512i lo = _mm512_load_si512(lo_index), hi = _mm512_load_si512(hi_index);
    R row[W];
    unrolled<W>([&](auto j) STATICFLOW_LAMBDA_INLINE { row[j] = B::load_unaligned(src + j * lds); });
    unrolled<log2_of(W)>([&](auto) STATICFLOW_LAMBDA_INLINE {
      R next[W];
      unrolled<W / 2>([&](auto i) STATICFLOW_LAMBDA_INLINE {
        if constexpr (sizeof(T) == 4) {
          next[2 * i] = _mm512_permutex2var_ps(row[i], lo, row[i + W / 2]);
          next[2 * i + 1] = _mm512_permutex2var_ps(row[i], hi, row[i + W / 2]);
        } else {
          next[2 * i] = _mm512_permutex2var_pd(row[i], lo, row[i + W / 2]);
          next[2 * i + 1] = _mm512_permutex2var_pd(row[i], hi, row[i + W / 2]);
        }
      });
      unrolled<W>([&](auto i) STATICFLOW_LAMBDA_INLINE { row[i] = next[i]; });
    });
    unrolled<W>([&](auto q) STATICFLOW_LAMBDA_INLINE { B(row[q]).store_unaligned(dst + q * ldd); });
    return;
  }
#endif
  for (std::size_t j = 0; j < W; ++j)
    for (std::size_t q = 0; q < W; ++q) dst[q * ldd + j] = src[j * lds + q];
}

/// Packs B[0:kc, 0:nc] into NR-column panels: panel q holds bp[q * kc * NR + p * NR + j], with
/// zeros beyond column nc. B(p, j) is b[p * ldb + j], or b[j * ldb + p] when `transposed` (B
/// stored as its transpose: each column of B one row of b, read along its length).
template <class T, std::size_t NR>
void gemm_pack_b(const T* b, std::size_t ldb, bool transposed, std::size_t kc, std::size_t nc, T* __restrict bp) {
  for (std::size_t jr = 0; jr < nc; jr += NR) {
    const std::size_t w = std::min(NR, nc - jr);
    if (transposed) {
      // W × W blocks (W the batch width) transposed in registers where the target can: each
      // reads a cache line or less of W rows of b, one after another along them; the rest
      // element by element
      constexpr std::size_t W = batch_t<T>::size;
      std::size_t j = 0;
      if (register_transpose<T>) {
      const std::size_t kw = kc / W * W;
        for (; j + W <= w; j += W)
          for (std::size_t p0 = 0; p0 < kw; p0 += W) transpose_block(b + (jr + j) * ldb + p0, ldb, bp + p0 * NR + j, NR);
        for (std::size_t jj = 0; jj < j; ++jj)
          for (std::size_t p = kw; p < kc; ++p) bp[p * NR + jj] = b[(jr + jj) * ldb + p];
      }
      for (; j < w; ++j) {
        const T* col = b + (jr + j) * ldb;
        for (std::size_t p = 0; p < kc; ++p) bp[p * NR + j] = col[p];
      }
      for (std::size_t p = 0; p < kc; ++p) std::fill(bp + p * NR + w, bp + (p + 1) * NR, T(0));
      bp += kc * NR;
      continue;
    }
    const T* src = b + jr;
    if (w == NR) {
      for (std::size_t p = 0; p < kc; ++p, src += ldb, bp += NR) std::memcpy(bp, src, NR * sizeof(T));
    } else {
      for (std::size_t p = 0; p < kc; ++p, src += ldb, bp += NR) {
        std::memcpy(bp, src, w * sizeof(T));
        std::fill(bp + w, bp + NR, T(0));
      }
    }
  }
}

/// Packs A[0:mr, 0:kc] (mr <= MR rows) k-major: ap[p * MR + r] for r < mr. A(r, p) is
/// a[r * lda + p], or a[p * lda + r] when `transposed` (then each p is one stretch of a).
template <class T, std::size_t MR>
void gemm_pack_a(const T* a, std::size_t lda, bool transposed, std::size_t mr, std::size_t kc, T* __restrict ap) {
  if (transposed && mr == MR) {  // (a copy of a size the compiler knows: no call per p)
    for (std::size_t p = 0; p < kc; ++p, ap += MR) std::memcpy(ap, a + p * lda, MR * sizeof(T));
  } else if (transposed) {
    for (std::size_t p = 0; p < kc; ++p, ap += MR) std::memcpy(ap, a + p * lda, mr * sizeof(T));
  } else if (mr == MR) {
    for (std::size_t p = 0; p < kc; ++p, ap += MR) {
      unrolled<MR>([&](auto r) STATICFLOW_LAMBDA_INLINE { ap[r] = a[r * lda + p]; });
    }
  } else {
    for (std::size_t r = 0; r < mr; ++r) {
      for (std::size_t p = 0; p < kc; ++p) ap[p * MR + r] = a[r * lda + p];
    }
  }
}

/// The packing buffer size (elements) of the float/double kernel for a problem of this size.
template <class T>
constexpr std::size_t gemm_buffer_size(std::size_t n, std::size_t k) {
  using G = gemm_blocking<T>;
  const std::size_t kc = std::min(k, G::KC);
  const std::size_t nc = (std::min(n, G::NC) + G::NR - 1) / G::NR * G::NR;
  // The B block, then the A panel (both multiples of 64 bytes: NR and MR·KC·sizeof(T) are).
  return kc * nc + G::MR * kc;
}

/// Which operands a product reads transposed, where they lie: A(i, p) = a[p * lda + i] (A
/// stored k × m) and B(p, j) = b[j * ldb + p] (B stored n × k). The packing of the blocked kernel
/// reads them so; the paths for few rows or narrow products copy a transposed operand first.
struct operand_order {
  bool a_transposed = false;
  bool b_transposed = false;
};

/// The float/double kernel on one thread; `buf` holds gemm_buffer_size(n, k) elements, 64-byte
/// aligned. Requires m, n, k > 0.
template <class T, class Finish = no_finish>
void gemm_blocked(const T* a, std::size_t lda, const T* b, std::size_t ldb, T* c, std::size_t ldc,
                  std::size_t m, std::size_t n, std::size_t k, T* buf, operand_order order = {}, const Finish& finish = {}) {
  using G = gemm_blocking<T>;
  constexpr std::size_t MR = G::MR, NR = G::NR;
  T* const bp = buf;
  T* const ap = buf + std::min(k, G::KC) * ((std::min(n, G::NC) + NR - 1) / NR * NR);
  // Packing B copies it once, before the row panels that read it; in place, each row panel reads
  // it from where it lies (NR columns of each of its rows: whole cache lines when ldb is a
  // multiple of 16 floats). Packing pays when the block leaves L1, the row panels are many, or B
  // is too large to stay in the shared cache between them (then packed, only its block is read
  // again, from L2). Measured on a Zen 4 core (1 MiB L2, float and double): reading in place is
  // 5-25 % faster up to 8 row panels while B takes at most 4 MiB, packing faster beyond.
  // A transposed B is always packed (the kernel reads rows of B).
  const std::size_t row_panels = (m + MR - 1) / MR;
  const bool pack_b = order.b_transposed ||
                      (std::min(k, G::KC) * std::min(n, G::NC) > 8192 && row_panels > 2 &&
                       (row_panels > 8 || k * n * sizeof(T) > (std::size_t{4} << 20)));
  for (std::size_t jc = 0; jc < n; jc += G::NC) {
    const std::size_t nc = std::min(G::NC, n - jc);
    const std::size_t nfull = pack_b ? 0 : nc / G::W * G::W;  // columns read from B itself
    for (std::size_t pc = 0; pc < k; pc += G::KC) {
      const std::size_t kc = std::min(G::KC, k - pc);
      const T* const bblock = order.b_transposed ? b + jc * ldb + pc : b + pc * ldb + jc;
      gemm_pack_b<T, NR>(bblock + nfull, ldb, order.b_transposed, kc, nc - nfull, bp);
      for (std::size_t ir = 0; ir < m; ir += MR) {
        const std::size_t mr = std::min(MR, m - ir);
        gemm_pack_a<T, MR>(order.a_transposed ? a + pc * lda + ir : a + ir * lda + pc, lda, order.a_transposed, mr, kc, ap);
        T* const crow = c + ir * ldc + jc;
        std::size_t jr = 0;
        for (; jr + NR <= nfull; jr += NR) gemm_tile(mr, NR, kc, ap, bblock + jr, ldb, crow + jr, ldc, pc > 0);
        if (jr < nfull) gemm_tile(mr, nfull - jr, kc, ap, bblock + jr, ldb, crow + jr, ldc, pc > 0);
        for (jr = nfull; jr < nc; jr += NR) {
          gemm_tile(mr, std::min(NR, nc - jr), kc, ap, bp + (jr - nfull) * kc, NR, crow + jr, ldc, pc > 0);
        }
        if (pc + kc == k) finish(crow, mr, ldc, jc, nc);  // the panel's sums are complete
      }
    }
  }
}

/// Aligned scratch for the float/double paths: `size` elements on the stack when they fit
/// `stack_bytes`, else allocated once; `f(T*)` runs with it.
template <class T, class F>
STATICFLOW_INLINE void with_scratch(std::size_t size, F&& f) {
  constexpr std::size_t stack_bytes = gemm_blocking<T>::stack_bytes;
  if (size * sizeof(T) <= stack_bytes) {
    alignas(64) T buf[stack_bytes / sizeof(T)];
    f(buf);
  } else {
    std::unique_ptr<T, aligned_delete<T>> buf(static_cast<T*>(::operator new(size * sizeof(T), std::align_val_t{64})));
    f(buf.get());
  }
}

/// C rows [0, R) of a product with few rows (vector × matrix and the like), B read row after row
/// as it lies in memory: for each p, c_r += a[r][p] · b[p] along column blocks that stay in L1.
/// Each element is still the fma chain over p.
template <class T, std::size_t R>
void gemm_few_rows(const T* a, std::size_t lda, const T* b, std::size_t ldb, T* c, std::size_t ldc, std::size_t n,
                   std::size_t k) {
  using B = batch_t<T>;
  constexpr std::size_t W = B::size;
  constexpr std::size_t JB = 8192 / sizeof(T) / R;  // R blocks of C rows: 8 KiB
  for (std::size_t jb = 0; jb < n; jb += JB) {
    const std::size_t nb = std::min(JB, n - jb), nv = nb / W * W;
    for (std::size_t p = 0; p < k; ++p) {
      const T* const brow = b + p * ldb + jb;
      T ap[R];
      unrolled<R>([&](auto r) STATICFLOW_LAMBDA_INLINE { ap[r] = a[r * lda + p]; });
      for (std::size_t j = 0; j < nv; j += W) {
        const B bv = B::load_unaligned(brow + j);
        unrolled<R>([&](auto r) STATICFLOW_LAMBDA_INLINE {
          T* const cr = c + r * ldc + jb + j;
          const B prev = p == 0 ? B(T(0)) : B::load_unaligned(cr);
          fmadd(B(ap[r]), bv, prev).store_unaligned(cr);
        });
      }
      for (std::size_t j = nv; j < nb; ++j) {
        unrolled<R>([&](auto r) STATICFLOW_LAMBDA_INLINE {
          T* const cr = c + r * ldc + jb + j;
          *cr = fmadd(ap[r], brow[j], p == 0 ? T(0) : *cr);
        });
      }
    }
  }
}

/// The largest number of rows that gemm_few_rows handles (more go to the blocked kernel).
inline constexpr std::size_t few_rows_max = 4;

/// The sum of a batch's lanes, pairwise (lane l + lane l + W/2, ...): a fixed order. (Not
/// xsimd::hadd, whose AVX-512 double form trips GCC 12's -Wmaybe-uninitialized.)
template <class B>
STATICFLOW_INLINE typename B::value_type lane_sum(const B& v) {
  alignas(64) typename B::value_type t[B::size];
  v.store_aligned(t);
  for (std::size_t w = B::size / 2; w >= 1; w /= 2)
    for (std::size_t l = 0; l < w; ++l) t[l] += t[l + w];
  return t[0];
}

/// Narrow products (n <= narrow_max, matrix × vector and the like): C[i][j] is a dot product of
/// row i of A with column j of B (copied to `bt`, contiguous), vectorized along k: W partial fma
/// chains over p ≡ l (mod W), summed pairwise, then a scalar fma chain over the last k mod W
/// terms. RG rows of C at a time.
template <class T, std::size_t RG, std::size_t NJ>
STATICFLOW_INLINE void gemm_narrow_rows(const T* a, std::size_t lda, const T* bt, T* c, std::size_t ldc,
                                        std::size_t k) {
  using B = batch_t<T>;
  constexpr std::size_t W = B::size;
  const std::size_t kv = k / W * W;
  B acc[RG][NJ];
  unrolled<RG>([&](auto r) STATICFLOW_LAMBDA_INLINE {
    unrolled<NJ>([&](auto j) STATICFLOW_LAMBDA_INLINE { acc[r][j] = B(T(0)); });
  });
  for (std::size_t p = 0; p < kv; p += W) {
    B bv[NJ];
    unrolled<NJ>([&](auto j) STATICFLOW_LAMBDA_INLINE { bv[j] = B::load_unaligned(bt + j * k + p); });
    unrolled<RG>([&](auto r) STATICFLOW_LAMBDA_INLINE {
      const B av = B::load_unaligned(a + r * lda + p);
      unrolled<NJ>([&](auto j) STATICFLOW_LAMBDA_INLINE { acc[r][j] = fmadd(av, bv[j], acc[r][j]); });
    });
  }
  unrolled<RG>([&](auto r) STATICFLOW_LAMBDA_INLINE {
    unrolled<NJ>([&](auto j) STATICFLOW_LAMBDA_INLINE {
      T sum = lane_sum(acc[r][j]);
      for (std::size_t p = kv; p < k; ++p) sum = fmadd(a[r * lda + p], bt[j * k + p], sum);
      c[r * ldc + j] = sum;
    });
  });
}

template <class T, std::size_t NJ>
void gemm_narrow(const T* a, std::size_t lda, const T* bt, T* c, std::size_t ldc, std::size_t m, std::size_t k) {
  std::size_t i = 0;
  for (; i + 4 <= m; i += 4) gemm_narrow_rows<T, 4, NJ>(a + i * lda, lda, bt, c + i * ldc, ldc, k);
  for (; i < m; ++i) gemm_narrow_rows<T, 1, NJ>(a + i * lda, lda, bt, c + i * ldc, ldc, k);
}

/// The widest product that takes the dot-product path.
inline constexpr std::size_t narrow_max = 4;

/// The float/double kernel on one thread. `narrow` (decided once per matmul call, so that every
/// thread of a call takes the same path) selects the dot-product path; the others compute the
/// same chains, so the choice between them may depend on the thread's share of the rows.
template <class T, class Finish = no_finish>
void gemm_serial(const T* a, std::size_t lda, const T* b, std::size_t ldb, T* c, std::size_t ldc,
                 std::size_t m, std::size_t n, std::size_t k, bool narrow, operand_order order, const Finish& finish = {}) {
  if (narrow) {
    with_scratch<T>(n * k, [&](T* bt) {
      for (std::size_t p = 0; p < k; ++p)
        for (std::size_t j = 0; j < n; ++j) bt[j * k + p] = b[p * ldb + j];
      [&]<std::size_t... J>(std::index_sequence<J...>) {
        (void)((n == J + 1 && (gemm_narrow<T, J + 1>(a, lda, bt, c, ldc, m, k), true)) || ...);
      }(std::make_index_sequence<narrow_max>{});
    });
    finish(c, m, ldc, std::size_t{0}, n);
  } else if (m <= few_rows_max) {
    [&]<std::size_t... R>(std::index_sequence<R...>) {
      (void)((m == R + 1 && (gemm_few_rows<T, R + 1>(a, lda, b, ldb, c, ldc, n, k), true)) || ...);
    }(std::make_index_sequence<few_rows_max>{});
    finish(c, m, ldc, std::size_t{0}, n);
  } else {
    with_scratch<T>(gemm_buffer_size<T>(n, k), [&](T* buf) { gemm_blocked(a, lda, b, ldb, c, ldc, m, n, k, buf, order, finish); });
  }
}

/// The integer kernel on one thread: i-k-j order over column blocks of C that stay in L1,
/// arithmetic in the unsigned type so that it wraps.
template <class T>
void gemm_integer(const T* a, std::size_t lda, const T* b, std::size_t ldb, T* c, std::size_t ldc,
                  std::size_t m, std::size_t n, std::size_t k) {
  using U = std::make_unsigned_t<T>;
  constexpr std::size_t JB = 4096 / sizeof(T);
  for (std::size_t jb = 0; jb < n; jb += JB) {
    const std::size_t nb = std::min(JB, n - jb);
    for (std::size_t i = 0; i < m; ++i) {
      U* __restrict crow = reinterpret_cast<U*>(c + i * ldc + jb);
      for (std::size_t j = 0; j < nb; ++j) crow[j] = 0;
      for (std::size_t p = 0; p < k; ++p) {
        const U aip = static_cast<U>(a[i * lda + p]);
        const T* __restrict brow = b + p * ldb + jb;
        for (std::size_t j = 0; j < nb; ++j) crow[j] += aip * static_cast<U>(brow[j]);
      }
    }
  }
}

/// dst (rows × cols, row-major) = the transpose of src (cols × rows, rows ld apart).
template <class T>
void transposed_copy(const T* src, std::size_t ld, std::size_t rows, std::size_t cols, T* dst) {
  for (std::size_t c = 0; c < cols; ++c)
    for (std::size_t r = 0; r < rows; ++r) dst[r * cols + c] = src[c * ld + r];
}

template <class T, class Finish = no_finish>
void gemm_dispatch(const T* a, std::size_t lda, const T* b, std::size_t ldb, T* c, std::size_t ldc,
                   std::size_t m, std::size_t n, std::size_t k, bool narrow, operand_order order, const Finish& finish = {}) {
  // Only the blocked kernel reads a transposed operand where it lies; the other paths get a copy
  // in the usual layout (they serve small products: few rows, or narrow ones).
  if (order.a_transposed && !(simd_gemm_type<T> && !narrow && m > few_rows_max)) {
    return with_scratch<T>(m * k, [&](T* copy) {
      transposed_copy(a, lda, m, k, copy);
      gemm_dispatch(copy, k, b, ldb, c, ldc, m, n, k, narrow, operand_order{false, order.b_transposed}, finish);
    });
  }
  if (order.b_transposed && !(simd_gemm_type<T> && !narrow && m > few_rows_max)) {
    return with_scratch<T>(k * n, [&](T* copy) {
      transposed_copy(b, ldb, k, n, copy);
      gemm_dispatch(a, lda, copy, n, c, ldc, m, n, k, narrow, operand_order{order.a_transposed, false}, finish);
    });
  }
  if constexpr (simd_gemm_type<T>) {
    gemm_serial(a, lda, b, ldb, c, ldc, m, n, k, narrow, order, finish);
  } else {
    gemm_integer(a, lda, b, ldb, c, ldc, m, n, k);
    finish(c, m, ldc, std::size_t{0}, n);
  }
}

}  // namespace detail

/// C = A·B (C is overwritten), row-major: A is m×k with rows lda apart, B is k×n with rows ldb
/// apart, C is m×n with rows ldc apart (lda >= k, ldb >= n, ldc >= n). C must not overlap A or B.
/// `order` says which operands lie transposed (A stored k×m, lda >= m; B stored n×k, ldb >= k):
/// the product of a transpose without the copy; the same result bit for bit.
/// `threads` > 1 splits the rows (or the column panels, whichever balances better) of C across
/// the pool of parallel.hpp, at most one share per MR-row or NR-column tile; the result is the
/// same bit for bit as with one thread.
/// T: float, double (xsimd kernel) or an integer type (wrapping arithmetic).
/// finish(c, rows, ldc, col0, cols) sees every block of C once its sums are complete (an
/// epilogue: backend/cpu/epilogue.hpp; col0 is the block's first column in C).
template <class T, class Finish = detail::no_finish>
void matmul(const T* a, std::size_t lda, const T* b, std::size_t ldb, T* c, std::size_t ldc, std::size_t m,
            std::size_t n, std::size_t k, std::size_t threads = 1, detail::operand_order order = {},
            const Finish& finish = {}) {
  static_assert(detail::simd_gemm_type<T> || (std::is_integral<T>::value && !std::is_same<T, bool>::value),
                "staticflow: matmul supports float, double and integer element types");
  if (m == 0 || n == 0) return;
  if (k == 0) {
    for (std::size_t i = 0; i < m; ++i) std::fill_n(c + i * ldc, n, T(0));
    finish(c, m, ldc, std::size_t{0}, n);
    return;
  }
  // Split along M in MR-row tiles or along N in NR-column tiles, whichever leaves the busiest
  // thread the fewest tiles (ties go to M). For integers, rows.
  std::size_t row_unit = 1, col_unit = 0;
  if constexpr (detail::simd_gemm_type<T>) {
    row_unit = detail::gemm_blocking<T>::MR;
    col_unit = detail::gemm_blocking<T>::NR;
  }
  // (k > 8: products as small as matmul_static's keep the chains, and so its results.)
  const bool narrow = detail::simd_gemm_type<T> && n <= detail::narrow_max && k > 8;
  if (narrow) col_unit = 0;  // narrow products split rows only
  const std::size_t row_tiles = (m + row_unit - 1) / row_unit;
  const std::size_t col_tiles = col_unit ? (n + col_unit - 1) / col_unit : 1;
  threads = std::max<std::size_t>(1, std::min(threads, std::max(row_tiles, col_tiles)));
  if (threads == 1) {
    detail::gemm_dispatch(a, lda, b, ldb, c, ldc, m, n, k, narrow, order, finish);
    return;
  }
  const auto busiest = [&](std::size_t tiles) { return (tiles + threads - 1) / threads; };
  if (col_unit == 0 || busiest(row_tiles) <= busiest(col_tiles)) {
    parallel_for(row_tiles, threads, [&](std::size_t begin, std::size_t end) {
      const std::size_t r0 = begin * row_unit, r1 = std::min(m, end * row_unit);
      detail::gemm_dispatch(a + (order.a_transposed ? r0 : r0 * lda), lda, b, ldb, c + r0 * ldc, ldc, r1 - r0, n, k,
                            narrow, order, finish);
    });
  } else {
    parallel_for(col_tiles, threads, [&](std::size_t begin, std::size_t end) {
      const std::size_t c0 = begin * col_unit, c1 = std::min(n, end * col_unit);
      const T* const b0 = b + (order.b_transposed ? c0 * ldb : c0);
      if constexpr (std::is_same<Finish, detail::no_finish>::value) {
        detail::gemm_dispatch(a, lda, b0, ldb, c + c0, ldc, m, c1 - c0, k, false, order);
      } else {  // (a share's columns start at column c0 of C)
        const auto shifted = [&](T* p, std::size_t rows, std::size_t ld, std::size_t col0, std::size_t cols) {
          finish(p, rows, ld, c0 + col0, cols);
        };
        detail::gemm_dispatch(a, lda, b0, ldb, c + c0, ldc, m, c1 - c0, k, false, order,
                              detail::block_finish<T>::of(shifted));
      }
    });
  }
}

}  // namespace staticflow::cpu

STATICFLOW_DETAIL_INTRINSICS_END
