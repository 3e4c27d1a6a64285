// staticflow/backend/cpu/kernel.hpp -- the fused loop that evaluates an elementwise graph into
// one output buffer: no temporaries, xsimd batches unrolled four times, a vector remainder and a
// scalar tail.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <utility>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/backend/cpu/cursor.hpp"
#include "staticflow/backend/cpu/parallel.hpp"
#include "staticflow/backend/cpu/scalar_eval.hpp"
#include "staticflow/backend/cpu/simd_eval.hpp"
#include "staticflow/core/config.hpp"
#include "staticflow/core/spec.hpp"
#include "staticflow/graph/traversal.hpp"
#include "staticflow/interop/xtensor.hpp"
#include "staticflow/plan/arena.hpp"

STATICFLOW_DETAIL_INTRINSICS_BEGIN

namespace staticflow::cpu {

/// Which loop a graph compiles to; tests assert it (`kernel_kind_v<Graph> == kernel_kind::simd`).
enum class kernel_kind { simd, scalar };

template <class Graph>
inline constexpr kernel_kind kernel_kind_v =
    detail::takes_simd_path<Graph> ? kernel_kind::simd : kernel_kind::scalar;

namespace detail {

/// One batch of L lanes at j when at least L elements are left (L below the loop's batch width,
/// with the instruction set's batch of exactly L lanes: an AVX2 or SSE register under AVX-512).
template <std::size_t L, class N, class Cursors, class T>
STATICFLOW_INLINE void narrow_step(const N& n, const Cursors& c, T* out, std::size_t& j, std::size_t size) {
  if constexpr (L >= 2) {
    using NB = xsimd::make_sized_batch_t<T, L>;
    if constexpr (!std::is_void<NB>::value) {
      if (size - j >= L) {
        simd_at<NB>(n, c, j).store_unaligned(out + j);
        j += L;
      }
    }
  }
}

/// out[j] = graph at j, for j in [first, last), reading the arguments through the cursors.
/// SIMD graphs run four batches per iteration, then single batches, then one half-width and one
/// quarter-width batch (so a call on 4 or 8 floats is one short-vector operation, not a scalar
/// loop), then the last few elements one by one. (An AVX-512 masked batch for the remainder was
/// tried: masked stores made a 4-float call of run-time size 2-3x slower on Zen 4.)
template <class N, class Cursors, class T>
STATICFLOW_INLINE void run_loop_body(const N& n, const Cursors& c, T* out, std::size_t first, std::size_t last) {
  std::size_t j = first;
  const std::size_t size = last;
  if constexpr (takes_simd_path<N>) {
    using B = batch_t<T>;
    constexpr std::size_t W = B::size;
    // Laid out as the branch not taken: a run-time size below one batch (a call on a few
    // elements, where the call's overhead is what counts) then runs straight through, while a
    // large one pays one taken branch per call.
    if (__builtin_expect(size - j >= W, 0)) {
      if constexpr (STATICFLOW_LOOP_VARIANTS) {
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
      }
      for (; j + W <= size; j += W) simd_at<B>(n, c, j).store_unaligned(out + j);
    }
    if constexpr (STATICFLOW_LOOP_VARIANTS) {
      narrow_step<W / 2>(n, c, out, j, size);
      narrow_step<W / 4>(n, c, out, j, size);
      if constexpr (W >= 8 && !std::is_void<xsimd::make_sized_batch_t<T, W / 4>>::value) {
        // fewer than W / 4 elements are left: a bounded loop the compiler does not vectorize again
        for (std::size_t k = 0; k + 1 < W / 4 && j < size; ++k, ++j) out[j] = static_cast<T>(scalar_at(n, c, j));
        return;
      }
    }
  }
  for (; j < size; ++j) out[j] = static_cast<T>(scalar_at(n, c, j));
}

/// The loop of a graph with a costly batch function (sin, exp, erf, ...; backend/cpu/simd_ops.hpp)
/// as a function of its own whose every call is inlined. Inlined into a call's one large
/// function, g++ 12 calls xsimd's long functions out of line once per batch (the batch through
/// memory, their constants reloaded): sin over 1M floats took 1.3-1.5x the time of a hand-written
/// xsimd loop. One call per loop here costs nothing next to them.
template <class N, class Cursors, class T>
STATICFLOW_FLATTEN void run_costly_loop(const N& n, const Cursors& c, T* out, std::size_t first, std::size_t last) {
  run_loop_body(n, c, out, first, last);
}

/// out[j] = graph at j for j in [first, last).
template <class N, class Cursors, class T>
STATICFLOW_INLINE void run_loop(const N& n, const Cursors& c, T* out, std::size_t first, std::size_t last) {
  if constexpr (takes_simd_path<N> && has_costly_batch<N>::value) run_costly_loop(n, c, out, first, last);
  else run_loop_body(n, c, out, first, last);
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
  [[maybe_unused]] auto one = [&]<std::size_t K>(std::integral_constant<std::size_t, K>) STATICFLOW_LAMBDA_INLINE {
    using entry = std::tuple_element_t<K, Sig>;
    if constexpr (!graph::uses_argument<K, N>) return unused_cursor{};
    else if constexpr (is_static_scalar<entry>()) return broadcast_cursor<typename entry::value_type>{*staticflow::detail::get<K>(v).data};
    else return contiguous_cursor<typename entry::value_type>{staticflow::detail::get<K>(v).data};
  };
  return staticflow::detail::pack_values(one(std::integral_constant<std::size_t, I>{})...);
}

/// Whether the flat loop applies: every argument read has the result's size, or is a static
/// scalar. (Same size plus valid broadcasting implies the same row-major layout.)
template <class Sig, class N, class Views, std::size_t... I>
STATICFLOW_INLINE bool fits_flat(const Views& v, std::size_t out_size, std::index_sequence<I...>) {
  [[maybe_unused]] auto one = [&]<std::size_t K>(std::integral_constant<std::size_t, K>) STATICFLOW_LAMBDA_INLINE {
    if constexpr (!graph::uses_argument<K, N> || is_static_scalar<std::tuple_element_t<K, Sig>>()) return true;
    else return staticflow::detail::flat_with_size(staticflow::detail::get<K>(v), out_size);
  };
  return (one(std::integral_constant<std::size_t, I>{}) && ...);
}

/// Graphs of elementwise nodes only (arguments, literals, unary, binary, select, cast): when
/// every argument read has the same extents, so has the result.
template <class N> struct is_elementwise_graph : std::false_type {};
template <std::size_t I, class T, class S> struct is_elementwise_graph<graph::argument<I, T, S>> : std::true_type {};
template <class V> struct is_elementwise_graph<graph::literal<V>> : std::true_type {};
template <class V, auto X> struct is_elementwise_graph<graph::static_literal<V, X>> : std::true_type {};
template <class Op, class A> struct is_elementwise_graph<graph::unary<Op, A>> : is_elementwise_graph<A> {};
template <class U, class A> struct is_elementwise_graph<graph::cast<U, A>> : is_elementwise_graph<A> {};
template <class Op, class A, class B>
struct is_elementwise_graph<graph::binary<Op, A, B>>
    : std::bool_constant<is_elementwise_graph<A>::value && is_elementwise_graph<B>::value> {};
template <class C, class A, class B>
struct is_elementwise_graph<graph::select<C, A, B>>
    : std::bool_constant<is_elementwise_graph<C>::value && is_elementwise_graph<A>::value &&
                         is_elementwise_graph<B>::value> {};
template <class A, class R>
struct is_elementwise_graph<graph::broadcast_as<A, R>>
    : std::bool_constant<is_elementwise_graph<A>::value && is_elementwise_graph<R>::value> {};

/// Whether graph N over arguments Sig may take the equal-extents path: an elementwise graph with
/// a run-time shape whose arguments (other than static scalars) all have the result's rank.
template <class Sig, class N>
inline constexpr bool equal_extents_candidate = [] {
  constexpr std::size_t R = N::shape_type::rank;
  if constexpr (N::shape_type::is_static || R == 0 || !is_elementwise_graph<N>::value) {
    return false;
  } else {
    return []<std::size_t... I>(std::index_sequence<I...>) {
      return ([] {
        using entry = std::tuple_element_t<I, Sig>;
        if constexpr (!graph::uses_argument<I, N> || is_static_scalar<entry>()) return true;
        else if constexpr (spec_type<entry>) return entry::shape_type::rank == R;
        else return false;
      }() && ...);
    }(std::make_index_sequence<std::tuple_size<Sig>::value>{});
  }
}();

/// Whether every argument the graph reads (other than a static scalar) has extents `ext`.
template <class Sig, class N, class Views, std::size_t R>
STATICFLOW_INLINE bool all_arguments_have(const Views& v, const extents<R>& ext) {
  return [&]<std::size_t... I>(std::index_sequence<I...>) STATICFLOW_LAMBDA_INLINE {
    return ([&]() STATICFLOW_LAMBDA_INLINE {
      if constexpr (!graph::uses_argument<I, N> || is_static_scalar<std::tuple_element_t<I, Sig>>()) return true;
      else return staticflow::detail::same_extents(staticflow::detail::get<I>(v).ext, ext);
    }() && ...);
  }(std::make_index_sequence<std::tuple_size<Views>::value>{});
}

/// Strided cursors for the row loop: per result axis, the argument's stride or 0 where it
/// broadcasts (its extent is 1 or it has fewer axes). A strided view (a slot that is a slice of
/// its operand, plan/slot_views.hpp) has its strides; any other view is row-major.
template <class N, std::size_t R, class Views, std::size_t... I>
auto row_cursors(const Views& v, std::index_sequence<I...>) {
  auto one = [&]<std::size_t K>(std::integral_constant<std::size_t, K>) STATICFLOW_LAMBDA_INLINE {
    if constexpr (!graph::uses_argument<K, N>) {
      return unused_cursor{};
    } else {
      const auto& view = staticflow::detail::get<K>(v);
      using T = std::remove_cv_t<std::remove_pointer_t<decltype(view.data)>>;
      constexpr std::size_t VR = std::tuple_size<decltype(view.ext)>::value;
      strided_cursor<T, R> c{view.data, {}};
      std::size_t stride = 1;
      for (std::size_t k = 0; k < VR; ++k) {  // the view's axes, from the right
        const std::size_t extent = view.ext[VR - 1 - k];
        if constexpr (staticflow::detail::is_strided_view<std::remove_cvref_t<decltype(view)>>::value)
          stride = view.strides[VR - 1 - k];
        c.strides[R - 1 - k] = extent == 1 ? 0 : stride;
        stride *= extent;
      }
      c.step = R ? c.strides[R - 1] : 0;
      c.row = view.data;
      return c;
    }
  };
  return staticflow::detail::pack_values(one(std::integral_constant<std::size_t, I>{})...);
}

/// The exact overlap test behind output_aliases_input (out of the hot path).
template <class N, class Views, class T, std::size_t... I>
[[gnu::noinline]] bool overlap_unsafe(const Views views, const T* out, std::size_t size, std::index_sequence<I...>) {
  const auto* lo = reinterpret_cast<const unsigned char*>(out);
  const auto* hi = reinterpret_cast<const unsigned char*>(out + size);
  bool unsafe = false;
  ([&] {
    if constexpr (graph::uses_argument<I, N>) {
      const auto& v = staticflow::detail::get<I>(views);
      const auto* vlo = reinterpret_cast<const unsigned char*>(v.data);
      const auto* vhi = reinterpret_cast<const unsigned char*>(v.data + staticflow::detail::memory_size(v));
      const bool overlap = vlo < hi && lo < vhi;
      const bool same_positions = static_cast<const void*>(v.data) == static_cast<const void*>(out) &&
                                  v.size() == size && sizeof(*v.data) == sizeof(T);
      if (overlap && !same_positions) unsafe = true;
    }
  }(), ...);
  return unsafe;
}

/// Whether graph N reads a strided view (plan/slot_views.hpp): the flat loop then needs a check
/// per call that its elements are consecutive.
template <class N, class Views>
inline constexpr bool reads_strided_view = []<std::size_t... I>(std::index_sequence<I...>) {
  return ((graph::uses_argument<I, N> && staticflow::detail::is_strided_view<std::remove_cvref_t<std::tuple_element_t<I, Views>>>::value) || ...);
}(std::make_index_sequence<std::tuple_size<Views>::value>{});

template <class Cursors, std::size_t R>
void seek_all(Cursors& cursors, const std::array<std::size_t, R>& index) {
  staticflow::detail::pack_apply([&](auto&... c) STATICFLOW_LAMBDA_INLINE {
    ([&]() STATICFLOW_LAMBDA_INLINE {
      if constexpr (!std::is_same<std::remove_cvref_t<decltype(c)>, unused_cursor>::value) c.seek(index);
    }(), ...);
  }, cursors);
}
}  // namespace detail

namespace detail {
/// The elements of one iteration of run_loop_body's unrolled loop, for T.
template <class T>
inline constexpr std::size_t unrolled_step = [] {
  if constexpr (std::is_arithmetic<T>::value) return 4 * batch_t<std::conditional_t<std::is_same<T, bool>::value, char, T>>::size;
  else return std::size_t{4};  // strings: one element per step
}();

/// The flat loop split across `threads` threads. Chunks start at multiples of the unrolled
/// step, so every element takes the same path (vector body, remainder or tail) as in a
/// single-threaded run.
template <class Sig, class N, class Views, class T>
[[gnu::noinline]] void run_flat_parallel(const N& n, const Views views, T* out, std::size_t size, std::size_t threads) {
  const auto cursors = flat_cursors<Sig, N>(views, std::make_index_sequence<std::tuple_size<Views>::value>{});
  constexpr std::size_t step = unrolled_step<T>;
  parallel_for((size + step - 1) / step, threads, [&](std::size_t b0, std::size_t b1) {
    run_loop(n, cursors, out, b0 * step, std::min(size, b1 * step));
  });
}

/// The row loop (some argument broadcasts): the last axis of the result per index of the outer
/// axes, rows split across threads above the grain.
template <class N, class Cursors, class T, std::size_t R>
STATICFLOW_INLINE void run_rows_with(const N& n, const Cursors& all_cursors, const extents<R>& ext, T* out, std::size_t size) {
  constexpr bool small_static = N::shape_type::is_static && N::shape_type::size < parallel_grain;
  const std::size_t inner = ext[R - 1];
  const std::size_t rows = size / inner;
  auto run = [&](std::size_t first_row, std::size_t last_row) {
    auto cursors = all_cursors;  // each chunk moves its own cursors
    std::array<std::size_t, R> index{};
    for (std::size_t d = R - 1, r = first_row; d-- > 0;) index[d] = r % ext[d], r /= ext[d];
    for (std::size_t row = first_row; row < last_row; ++row) {
      seek_all(cursors, index);
      run_loop(n, cursors, out + row * inner, 0, inner);
      for (std::size_t d = R - 1; d-- > 0;) {  // next row: odometer over the outer axes
        if (++index[d] < ext[d]) break;
        index[d] = 0;
      }
    }
  };
  // (a graph that makes strings runs on the calling thread: their bytes go to its string pool)
  const std::size_t threads = small_static || graph::mentions_strings_v<N> ? 1 : threads_for(size);
  if (small_static || threads <= 1 || rows < 2) run(0, rows);
  else parallel_for(rows, threads, run);
}

/// Whether every cursor moves by 1 along the row (none broadcasts there).
template <class Cursors>
bool unit_steps(const Cursors& cursors) {
  return staticflow::detail::pack_apply([](const auto&... c) {
    return ([&] {
      if constexpr (requires { c.step; }) return c.step == 1;
      else return true;
    }() && ...);
  }, cursors);
}
template <class C>
STATICFLOW_INLINE auto with_unit_step(const C& c) {
  if constexpr (requires { c.step; }) return unit_step_cursor<std::remove_cvref_t<decltype(*c.base)>, std::tuple_size<decltype(c.strides)>::value>{c};
  else return c;
}

template <class Sig, class N, class Views, class T, std::size_t R>
STATICFLOW_INLINE void run_rows(const N& n, const Views& views, const extents<R>& ext, T* out, std::size_t size) {
  if (ext[R - 1] == 0 || size == 0) return;  // no rows: an outer extent of 0 must not reach `r % ext[d]`
  const auto cursors = row_cursors<N, R>(views, std::make_index_sequence<std::tuple_size<Views>::value>{});
  // A stencil of strided views (plan/slot_views.hpp) reads every argument along its rows: a
  // loop with no test of the step per batch (the 2-D five-point step on a 66 x 66 grid: 1.76 ->
  // 1.52 us).
  if constexpr (reads_strided_view<N, Views>) {
    if (unit_steps(cursors)) {
      run_rows_with(n, staticflow::detail::pack_apply([](const auto&... c) {
        return staticflow::detail::pack_values(with_unit_step(c)...);
      }, cursors), ext, out, size);
      return;
    }
  }
  run_rows_with(n, cursors, ext, out, size);
}

/// run_rows out of line: graphs with run-time shapes, so that the flat path, inlined into the
/// call, keeps its views and extents in registers (they are passed by value: a reference would
/// make the caller keep them in memory on every path).
template <class Sig, class N, class Views, class T, std::size_t R>
[[gnu::noinline]] void run_rows_outlined(const N& n, const Views views, const extents<R> ext, T* out, std::size_t size) {
  run_rows<Sig>(n, views, ext, out, size);
}

/// Whether every argument graph N reads (other than a static scalar) is a 1-D tensor_view: the
/// views run_flat_spread can spread.
template <class V>
inline constexpr bool is_1d_tensor_view = false;
template <class E>
inline constexpr bool is_1d_tensor_view<tensor_view<E, 1>> = true;
template <class Sig, class N, class Views>
inline constexpr bool spreadable_views = []<std::size_t... I>(std::index_sequence<I...>) {
  return ((!graph::uses_argument<I, N> || is_static_scalar<std::tuple_element_t<I, Sig>>() ||
           is_1d_tensor_view<std::remove_cvref_t<std::tuple_element_t<I, Views>>>) && ...);
}(std::make_index_sequence<std::tuple_size<Views>::value>{});

/// The flat loop of a 1-D result that an argument of one element broadcasts (its extent 1 known
/// only at run time): in chunks of spread_chunk elements, that argument read from a chunk's worth
/// of copies of its value made once per call. A 1-D graph of run-time shape then compiles one
/// loop (the flat loop's run_loop, the same instantiation), not also the row loop's strided copy
/// of the whole graph: a fifth of bench/compile_time.sh's 50-node chain. The chunks are fixed, so
/// each element takes the same path (vector body or tail) whatever the thread count. The shape
/// check before the call makes every argument's size the result's or 1. Where no argument
/// broadcasts, it is the threaded flat loop (contiguous ranges, as run_flat_parallel's) with the
/// same instantiation of the loop: one out-of-line copy of the graph per 1-D graph, not two
/// (bench/compile_time.sh's 50-node chain: its object 5 % smaller, its gradient's 9 %).
inline constexpr std::size_t spread_chunk = 256;  // a multiple of every unrolled step (4 batches of 64 int8)
template <class Sig, class N, class Views, class T>
[[gnu::noinline]] void run_flat_spread(const N& n, const Views views, std::size_t size, T* out) {
  if (size == 0) return;
  constexpr auto args = std::make_index_sequence<std::tuple_size<Views>::value>{};
  const std::size_t copies = std::min(size, spread_chunk);
  plan::arena_scope scratch;
  Views spread = views;
  std::array<bool, std::tuple_size<Views>::value> moves{};  // the arguments read at the chunk's offset
  moves.fill(true);
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    ([&] {
      if constexpr (graph::uses_argument<I, N> && !is_static_scalar<std::tuple_element_t<I, Sig>>()) {
        auto& v = staticflow::detail::get<I>(spread);
        moves[I] = v.size() == size;
        if (!moves[I]) {
          using E = std::remove_cv_t<std::remove_pointer_t<decltype(v.data)>>;
          E* copy = static_cast<E*>(scratch.get().allocate(sizeof(E) * copies));
          std::fill_n(copy, copies, *v.data);
          v = {copy, extents<1>{copies}};
        }
      }
    }(), ...);
  }(args);
  // Chunks of spread_chunk elements where an argument is spread; otherwise (the threaded flat
  // loop of evaluate_flat_into) one chunk a thread, a multiple of the unrolled step long. One
  // loop either way: each copy of it is the whole graph, inlined.
  const std::size_t threads = size < parallel_grain || graph::mentions_strings_v<N> ? 1 : threads_for(size);
  std::size_t chunk = spread_chunk;
  if (std::find(moves.begin(), moves.end(), false) == moves.end()) {
    constexpr std::size_t step = unrolled_step<T>;
    chunk = ((size + threads - 1) / threads + step - 1) / step * step;
  }
  const auto run_chunks = [&](std::size_t first_chunk, std::size_t last_chunk) {
    for (std::size_t c = first_chunk; c < last_chunk; ++c) {
      const std::size_t first = c * chunk, count = std::min(chunk, size - first);
      Views at = spread;
      [&]<std::size_t... I>(std::index_sequence<I...>) {
        ([&] {
          if constexpr (graph::uses_argument<I, N> && !is_static_scalar<std::tuple_element_t<I, Sig>>())
            if (moves[I]) staticflow::detail::get<I>(at).data += first;
        }(), ...);
      }(args);
      run_loop(n, flat_cursors<Sig, N>(at, args), out + first, 0, count);
    }
  };
  const std::size_t chunks = (size + chunk - 1) / chunk;
  if (threads <= 1) run_chunks(0, chunks);
  else parallel_for(chunks, threads, run_chunks);
}
}  // namespace detail

/// The flat loop of evaluate_into, for a caller that knows every argument read has the result's
/// size or is a static scalar (fits_flat).
template <class Sig, class N, class Views, class T>
STATICFLOW_INLINE void evaluate_flat_into(const N& n, const Views& views, std::size_t size, T* out) {
  constexpr auto args = std::make_index_sequence<std::tuple_size<Views>::value>{};
  // A small static result never goes near the thread pool, decided at compile time: the threaded
  // loop is not even instantiated (each copy of the loop is the whole graph, inlined). Otherwise
  // one inlined loop serves both the small and the single-thread case.
  constexpr bool small_static = N::shape_type::is_static && N::shape_type::size < parallel_grain;
  if constexpr (small_static) {
    detail::run_loop(n, detail::flat_cursors<Sig, N>(views, args), out, 0, size);
  } else {
    const std::size_t threads = size < parallel_grain || graph::mentions_strings_v<N> ? 1 : threads_for(size);
    if (threads <= 1) [[likely]] detail::run_loop(n, detail::flat_cursors<Sig, N>(views, args), out, 0, size);
    // (a 1-D graph of run-time shape has run_flat_spread's loop anyway: the same one, threaded)
    else if constexpr (!N::shape_type::is_static && N::shape_type::rank == 1 && detail::spreadable_views<Sig, N, Views>)
      detail::run_flat_spread<Sig>(n, views, size, out);
    else detail::run_flat_parallel<Sig>(n, views, out, size, threads);
  }
}

namespace detail {
/// Which loop evaluate_into takes, when the signature alone decides it (N and every argument it
/// reads have static shapes): the other loop is then not instantiated, since each copy of a loop
/// is the whole graph, inlined. `runtime`: decided per call by fits_flat.
enum class loop_choice { flat, rows, runtime };

/// How argument I of Sig meets the loop of N, known from the signature: flat (it has N's static
/// size, or one element, or N does not read it), rows (a static shape that broadcasts), or
/// runtime (its shape is known only at run time).
template <class Sig, class N, std::size_t I>
constexpr loop_choice argument_loop_choice() {
  using entry = std::tuple_element_t<I, Sig>;
  if constexpr (!graph::uses_argument<I, N> || is_static_scalar<entry>()) return loop_choice::flat;
  else if constexpr (!spec_type<entry>) return loop_choice::runtime;
  else if constexpr (!entry::shape_type::is_static) return loop_choice::runtime;
  else return entry::shape_type::size == N::shape_type::size ? loop_choice::flat : loop_choice::rows;
}

template <class Sig, class N>
inline constexpr loop_choice static_loop_choice = [] {
  if constexpr (!N::shape_type::is_static) {
    return loop_choice::runtime;
  } else {
    return []<std::size_t... I>(std::index_sequence<I...>) {
      constexpr loop_choice each[] = {loop_choice::flat, argument_loop_choice<Sig, N, I>()...};
      loop_choice choice = loop_choice::flat;
      for (const loop_choice c : each) {
        if (c == loop_choice::runtime) return loop_choice::runtime;
        if (c == loop_choice::rows) choice = loop_choice::rows;
      }
      return choice;
    }(std::make_index_sequence<std::tuple_size<Sig>::value>{});
  }
}();
}  // namespace detail

/// Evaluates graph n into out (row-major, with extents ext), reading arguments from views.
/// `Sig` is the tuple of the arguments' signature entries. Nothing is allocated (but for a 1-D
/// result of run-time shape that an argument of one element broadcasts: run_flat_spread's
/// scratch, from the thread's arena). Above cpu::parallel_grain elements the loop is split across
/// sf::num_threads() threads; each element is computed the same way whichever thread runs it, so
/// results do not depend on the split.
///
/// The call inlines only the common case: a flat loop (no broadcasting) below the grain. The
/// threaded flat loop and, for run-time shapes, the row loop are separate functions.
template <class Sig, class N, class Views, class T, std::size_t R>
STATICFLOW_INLINE void evaluate_into(const N& n, const Views& views, const extents<R>& ext, T* out) {
  constexpr auto args = std::make_index_sequence<std::tuple_size<Views>::value>{};
  constexpr detail::loop_choice choice = detail::reads_strided_view<N, Views> && detail::static_loop_choice<Sig, N> == detail::loop_choice::flat
                                             ? detail::loop_choice::runtime
                                             : detail::static_loop_choice<Sig, N>;
  const std::size_t size = staticflow::detail::product(ext);
  if constexpr (choice != detail::loop_choice::rows) {
    if (choice == detail::loop_choice::flat || detail::fits_flat<Sig, N>(views, size, args)) [[likely]] {
      evaluate_flat_into<Sig>(n, views, size, out);
      return;
    }
  }
  if constexpr (R > 0 && choice != detail::loop_choice::flat) {
    if constexpr (N::shape_type::is_static) detail::run_rows<Sig>(n, views, ext, out, size);
    else if constexpr (R == 1 && detail::spreadable_views<Sig, N, Views>) detail::run_flat_spread<Sig>(n, views, size, out);
    else detail::run_rows_outlined<Sig>(n, views, ext, out, size);
  }
}

/// Whether writing `size` elements at `out` could overwrite an argument before it is read: any
/// overlap except an argument that is exactly the output, read at the same positions. The common
/// case (no argument's bytes meet the output's) costs one subtract, add and compare per argument;
/// only a possible overlap goes on to the exact test. EqualSizes: the caller knows that every
/// argument the graph reads has `size` elements.
template <class N, class Views, class T, bool EqualSizes = false>
STATICFLOW_INLINE bool output_aliases_input(const N&, const Views& views, const T* out, std::size_t size,
                                            std::bool_constant<EqualSizes> = {}) {
  constexpr auto args = std::make_index_sequence<std::tuple_size<Views>::value>{};
  const auto o = reinterpret_cast<std::uintptr_t>(out);
  const std::size_t obytes = size * sizeof(T);
  bool maybe = false;
  [&]<std::size_t... I>(std::index_sequence<I...>) STATICFLOW_LAMBDA_INLINE {
    ([&]() STATICFLOW_LAMBDA_INLINE {
      if constexpr (graph::uses_argument<I, N>) {
        const auto& v = staticflow::detail::get<I>(views);
        const auto a = reinterpret_cast<std::uintptr_t>(v.data);
        // (every argument has `size` elements when the caller says so: one product for all)
        const std::size_t abytes = (EqualSizes ? size : staticflow::detail::memory_size(v)) * sizeof(*v.data);
        // non-empty [a, a + abytes) and [o, o + obytes) meet iff a - o + abytes - 1 < abytes + obytes - 1
        // (unsigned); an empty range may report a meeting, which the exact test below clears
        maybe |= a - o + abytes - 1 < abytes + obytes - 1;
      }
    }(), ...);
  }(args);
  if (!maybe) [[likely]] return false;
  return detail::overlap_unsafe<N>(views, out, size, args);
}

}  // namespace staticflow::cpu

STATICFLOW_DETAIL_INTRINSICS_END
