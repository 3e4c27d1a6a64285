// staticflow/backend/cpu/kernel.hpp -- the fused loop that evaluates an elementwise graph into
// one output buffer: no temporaries, xsimd batches unrolled four times, a vector remainder and a
// scalar tail.
#pragma once

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <utility>

#include "staticflow/backend/cpu/cursor.hpp"
#include "staticflow/backend/cpu/parallel.hpp"
#include "staticflow/backend/cpu/scalar_eval.hpp"
#include "staticflow/backend/cpu/simd_eval.hpp"
#include "staticflow/core/config.hpp"
#include "staticflow/core/spec.hpp"
#include "staticflow/graph/traversal.hpp"
#include "staticflow/interop/xtensor.hpp"

namespace staticflow::cpu {

/// Which loop a graph compiles to; tests assert it (`kernel_kind_v<Graph> == kernel_kind::simd`).
enum class kernel_kind { simd, scalar };

template <class Graph>
inline constexpr kernel_kind kernel_kind_v =
    detail::takes_simd_path<Graph> ? kernel_kind::simd : kernel_kind::scalar;

namespace detail {

/// out[j] = graph at j, for j in [first, last), reading the arguments through the cursors.
template <class N, class Cursors, class T>
STATICFLOW_INLINE void run_loop(const N& n, const Cursors& c, T* out, std::size_t first, std::size_t last) {
  std::size_t j = first;
  const std::size_t size = last;
  if constexpr (takes_simd_path<N>) {
    using B = batch_t<T>;
    constexpr std::size_t W = B::size;
    for (; j + 4 * W <= size; j += 4 * W) {
      const B v0 = simd_at<B>(n, c, j);
      const B v1 = simd_at<B>(n, c, j + W);
      const B v2 = simd_at<B>(n, c, j + 2 * W);
      const B v3 = simd_at<B>(n, c, j + 3 * W);
      v0.store_unaligned(out + j);
      v1.store_unaligned(out + j + W);
      v2.store_unaligned(out + j + 2 * W);
      v3.store_unaligned(out + j + 3 * W);
    }
    for (; j + W <= size; j += W) simd_at<B>(n, c, j).store_unaligned(out + j);
  }
  for (; j < size; ++j) out[j] = static_cast<T>(scalar_at(n, c, j));
}

/// True when argument I is a static tensor with exactly one element (a broadcast scalar).
template <class Entry>
constexpr bool is_static_scalar() {
  if constexpr (spec_type<Entry>) return Entry::shape_type::is_static && Entry::shape_type::size == 1;
  else return false;
}

/// Cursors for the flat loop, where every argument has the result's size or one element.
template <class Sig, class N, class Views, std::size_t... I>
STATICFLOW_INLINE auto flat_cursors(const Views& v, std::index_sequence<I...>) {
  auto one = [&]<std::size_t K>(std::integral_constant<std::size_t, K>) STATICFLOW_LAMBDA_INLINE {
    using entry = std::tuple_element_t<K, Sig>;
    if constexpr (!graph::uses_argument<K, N>()) return unused_cursor{};
    else if constexpr (is_static_scalar<entry>()) return broadcast_cursor<typename entry::value_type>{*std::get<K>(v).data};
    else return contiguous_cursor<typename entry::value_type>{std::get<K>(v).data};
  };
  return std::tuple{one(std::integral_constant<std::size_t, I>{})...};
}

/// Whether the flat loop applies: every argument read has the result's size, or is a static
/// scalar. (Same size plus valid broadcasting implies the same row-major layout.)
template <class Sig, class N, class Views, std::size_t... I>
STATICFLOW_INLINE bool fits_flat(const Views& v, std::size_t out_size, std::index_sequence<I...>) {
  auto one = [&]<std::size_t K>(std::integral_constant<std::size_t, K>) STATICFLOW_LAMBDA_INLINE {
    if constexpr (!graph::uses_argument<K, N>() || is_static_scalar<std::tuple_element_t<K, Sig>>()) return true;
    else return std::get<K>(v).size() == out_size;
  };
  return (one(std::integral_constant<std::size_t, I>{}) && ...);
}

/// Strided cursors for the row loop: per result axis, the argument's stride or 0 where it
/// broadcasts (its extent is 1 or it has fewer axes).
template <class N, std::size_t R, class Views, std::size_t... I>
auto row_cursors(const Views& v, std::index_sequence<I...>) {
  auto one = [&]<std::size_t K>(std::integral_constant<std::size_t, K>) STATICFLOW_LAMBDA_INLINE {
    if constexpr (!graph::uses_argument<K, N>()) {
      return unused_cursor{};
    } else {
      const auto& view = std::get<K>(v);
      using T = std::remove_cv_t<std::remove_pointer_t<decltype(view.data)>>;
      constexpr std::size_t VR = std::tuple_size_v<decltype(view.ext)>;
      strided_cursor<T, R> c{view.data, {}};
      std::size_t stride = 1;
      for (std::size_t k = 0; k < VR; ++k) {  // the view's axes, from the right
        const std::size_t extent = view.ext[VR - 1 - k];
        c.strides[R - 1 - k] = extent == 1 ? 0 : stride;
        stride *= extent;
      }
      c.step = R ? c.strides[R - 1] : 0;
      c.row = view.data;
      return c;
    }
  };
  return std::tuple{one(std::integral_constant<std::size_t, I>{})...};
}

template <class Cursors, std::size_t R>
void seek_all(Cursors& cursors, const std::array<std::size_t, R>& index) {
  std::apply([&](auto&... c) STATICFLOW_LAMBDA_INLINE {
    ([&]() STATICFLOW_LAMBDA_INLINE {
      if constexpr (!std::is_same_v<std::remove_cvref_t<decltype(c)>, unused_cursor>) c.seek(index);
    }(), ...);
  }, cursors);
}
}  // namespace detail

/// Evaluates graph n into out (row-major, with extents ext), reading arguments from views.
/// `Sig` is the tuple of the arguments' signature entries. Nothing is allocated. Above
/// cpu::parallel_grain elements the loop is split across sf::num_threads() threads; each element
/// is computed the same way whichever thread runs it, so results do not depend on the split.
template <class Sig, class N, class Views, class T, std::size_t R>
STATICFLOW_INLINE void evaluate_into(const N& n, const Views& views, const extents<R>& ext, T* out) {
  constexpr auto args = std::make_index_sequence<std::tuple_size_v<Views>>{};
  const std::size_t size = staticflow::detail::product(ext);
  // a small static result never goes near the thread pool (decided at compile time)
  constexpr bool small_static = N::shape_type::is_static && N::shape_type::size < parallel_grain;
  const std::size_t threads = small_static ? 1 : threads_for(size);
  if (detail::fits_flat<Sig, N>(views, size, args)) {
    const auto cursors = detail::flat_cursors<Sig, N>(views, args);
    if (small_static || threads <= 1) {
      detail::run_loop(n, cursors, out, 0, size);
    } else {
      // chunks start at multiples of the unrolled step, so every element takes the same path
      // (vector body, remainder or tail) as in a single-threaded run
      constexpr std::size_t step = 4 * detail::batch_t<std::conditional_t<std::is_same_v<T, bool>, char, T>>::size;
      const std::size_t blocks = (size + step - 1) / step;
      parallel_for(blocks, threads, [&](std::size_t b0, std::size_t b1) {
        detail::run_loop(n, cursors, out, b0 * step, std::min(size, b1 * step));
      });
    }
    return;
  }
  if constexpr (R > 0) {
    const std::size_t inner = ext[R - 1];
    if (inner == 0) return;
    const std::size_t rows = size / inner;
    const auto all_cursors = detail::row_cursors<N, R>(views, args);
    auto run_rows = [&](std::size_t first_row, std::size_t last_row) {
      auto cursors = all_cursors;  // each chunk moves its own cursors
      std::array<std::size_t, R> index{};
      for (std::size_t d = R - 1, r = first_row; d-- > 0;) index[d] = r % ext[d], r /= ext[d];
      for (std::size_t row = first_row; row < last_row; ++row) {
        detail::seek_all(cursors, index);
        detail::run_loop(n, cursors, out + row * inner, 0, inner);
        for (std::size_t d = R - 1; d-- > 0;) {  // next row: odometer over the outer axes
          if (++index[d] < ext[d]) break;
          index[d] = 0;
        }
      }
    };
    if (small_static || threads <= 1 || rows < 2) run_rows(0, rows);
    else parallel_for(rows, threads, run_rows);
  }
}

/// Whether writing `size` elements at `out` could overwrite an argument before it is read: any
/// overlap except an argument that is exactly the output, read at the same positions.
template <class N, class Views, class T>
STATICFLOW_INLINE bool output_aliases_input(const N&, const Views& views, const T* out, std::size_t size) {
  const auto* lo = reinterpret_cast<const unsigned char*>(out);
  const auto* hi = reinterpret_cast<const unsigned char*>(out + size);
  bool unsafe = false;
  [&]<std::size_t... I>(std::index_sequence<I...>) STATICFLOW_LAMBDA_INLINE {
    ([&]() STATICFLOW_LAMBDA_INLINE {
      if constexpr (graph::uses_argument<I, N>()) {
        const auto& v = std::get<I>(views);
        const auto* vlo = reinterpret_cast<const unsigned char*>(v.data);
        const auto* vhi = reinterpret_cast<const unsigned char*>(v.data + v.size());
        const bool overlap = vlo < hi && lo < vhi;
        const bool same_positions = static_cast<const void*>(v.data) == static_cast<const void*>(out) &&
                                    v.size() == size && sizeof(*v.data) == sizeof(T);
        if (overlap && !same_positions) unsafe = true;
      }
    }(), ...);
  }(std::make_index_sequence<std::tuple_size_v<Views>>{});
  return unsafe;
}

}  // namespace staticflow::cpu
