// staticflow/backend/cpu/reduce.hpp -- reductions, with their elementwise input fused into the
// reduction loop (sum(a * b) reads a and b once and writes nothing but the sum).
//
// Order of a float sum, documented because it fixes the rounding: the input is cut into blocks
// of 4096 elements; inside a block, four xsimd accumulators of W lanes take elements j, j+W,
// j+2W, j+3W of each 4W-wide step, then (acc0 + acc1) + (acc2 + acc3) is summed across lanes, then
// the block's scalar tail is added in order; block sums are combined pairwise (a binary tree), so
// the error grows like log(n) blocks, not like n. Reductions over leading axes add whole rows in
// order, 64 rows to a partial row, partial rows in order. Scratch buffers come from the call's
// arena (plan/arena.hpp), so a steady stream of calls allocates nothing.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <tuple>

#include "staticflow/backend/cpu/kernel.hpp"
#include "staticflow/core/errors.hpp"
#include "staticflow/core/shape.hpp"
#include "staticflow/graph/reduce.hpp"
#include "staticflow/plan/arena.hpp"

namespace staticflow::cpu {
namespace detail {

/// Elementwise graph N read at flat positions through cursors: a reduction's input.
template <class N, class Cursors>
struct fused_source {
  using value_type = typename N::value_type;
  static constexpr bool simd = takes_simd_path<N>;
  const N& node;
  Cursors cursors;
  STATICFLOW_INLINE value_type scalar(std::size_t j) const { return static_cast<value_type>(scalar_at(node, cursors, j)); }
  template <class B>
  STATICFLOW_INLINE B batch(std::size_t j) const { return simd_at<B>(node, cursors, j); }
};

/// The batch form of a reduction's combine, where there is one.
template <class Op, class T>
struct simd_combine {
  static constexpr bool supported = false;
};
template <class T>
struct simd_combine<op::reduce_sum, T> {
  static constexpr bool supported = true;
  template <class B> STATICFLOW_INLINE static B apply(const B& a, const B& b) { return a + b; }
};
template <class T>
struct simd_combine<op::reduce_mean, T> : simd_combine<op::reduce_sum, T> {};
template <class T>
struct simd_combine<op::reduce_prod, T> {
  static constexpr bool supported = true;
  template <class B> STATICFLOW_INLINE static B apply(const B& a, const B& b) { return a * b; }
};
template <class T>
struct simd_combine<op::reduce_max, T> {
  static constexpr bool supported = simd_op<op::maximum, T>::supported;
  template <class B> STATICFLOW_INLINE static B apply(const B& a, const B& b) { return simd_op<op::maximum, T>::apply(a, b); }
};
template <class T>
struct simd_combine<op::reduce_min, T> {
  static constexpr bool supported = simd_op<op::minimum, T>::supported;
  template <class B> STATICFLOW_INLINE static B apply(const B& a, const B& b) { return simd_op<op::minimum, T>::apply(a, b); }
};

template <class Op, class Source>
inline constexpr bool vector_reduction =
    Source::simd && simd_combine<Op, typename Source::value_type>::supported;

/// Combines `count` elements of src starting at `first` (one block, see the order above).
template <class Op, class Source>
typename Source::value_type reduce_block(const Source& src, std::size_t first, std::size_t count) {
  using T = typename Source::value_type;
  T total = Op::template identity<T>();
  std::size_t j = 0;
  if constexpr (vector_reduction<Op, Source>) {
    using B = batch_t<T>;
    using C = simd_combine<Op, T>;
    constexpr std::size_t W = B::size;
    if (count >= 4 * W) {
      B acc0 = src.template batch<B>(first), acc1 = src.template batch<B>(first + W);
      B acc2 = src.template batch<B>(first + 2 * W), acc3 = src.template batch<B>(first + 3 * W);
      for (j = 4 * W; j + 4 * W <= count; j += 4 * W) {
        acc0 = C::apply(acc0, src.template batch<B>(first + j));
        acc1 = C::apply(acc1, src.template batch<B>(first + j + W));
        acc2 = C::apply(acc2, src.template batch<B>(first + j + 2 * W));
        acc3 = C::apply(acc3, src.template batch<B>(first + j + 3 * W));
      }
      const B acc = C::apply(C::apply(acc0, acc1), C::apply(acc2, acc3));
      alignas(64) T lanes[W];
      acc.store_aligned(lanes);
      total = lanes[0];
      for (std::size_t l = 1; l < W; ++l) total = Op::combine(total, lanes[l]);
    }
  }
  for (; j < count; ++j) total = Op::combine(total, src.scalar(first + j));
  return total;
}

/// The elements a reduction's block holds (the unit of the order above and of its threads).
inline constexpr std::size_t reduction_block = 4096;

/// Combines block_value(b) for b < blocks pairwise (a binary counter of partial results: the
/// order of reduce_range). The blocks may be computed on several threads; they are combined in
/// the same order either way, so the result does not depend on the thread count.
template <class Op, class T, class BlockValue>
T combine_blocks_pairwise(std::size_t blocks, std::size_t threads, const BlockValue& block_value) {
  T* sums = nullptr;
  if (threads > 1) {
    sums = static_cast<T*>(plan::arena::local().allocate(sizeof(T) * blocks));
    parallel_for(blocks, threads, [&](std::size_t b0, std::size_t b1) {
      for (std::size_t b = b0; b < b1; ++b) sums[b] = block_value(b);
    });
  }
  // level[i] holds the combination of 2^i blocks
  std::array<T, 64> level{};
  std::array<bool, 64> full{};
  for (std::size_t b = 0; b < blocks; ++b) {
    T carry = sums ? sums[b] : block_value(b);
    std::size_t i = 0;
    for (; full[i]; ++i) {
      carry = Op::combine(level[i], carry);
      full[i] = false;
    }
    level[i] = carry;
    full[i] = true;
  }
  T total = Op::template identity<T>();
  bool started = false;
  for (std::size_t i = 0; i < 64; ++i)
    if (full[i]) {
      total = started ? Op::combine(level[i], total) : level[i];
      started = true;
    }
  return total;
}

/// Reduces [first, first + count): blocks of 4096 combined pairwise, possibly on several threads
/// (the result does not depend on their number).
template <class Op, class Source>
typename Source::value_type reduce_range(const Source& src, std::size_t first, std::size_t count,
                                         std::size_t threads = 1) {
  using T = typename Source::value_type;
  constexpr std::size_t block = reduction_block;
  if (count <= block) return reduce_block<Op>(src, first, count);
  return combine_blocks_pairwise<Op, T>((count + block - 1) / block, threads, [&](std::size_t b) {
    return reduce_block<Op>(src, first + b * block, std::min(block, count - b * block));
  });
}

/// out[j] (j < width) = combine over rows p < rows of src[p * width + j].
template <class Op, class Source, class T>
void reduce_rows(const Source& src, std::size_t rows, std::size_t width, T* out) {
  constexpr std::size_t group = 64;
  T* partial = static_cast<T*>(plan::arena::local().allocate(sizeof(T) * width));
  for (std::size_t j = 0; j < width; ++j) out[j] = Op::template identity<T>();
  for (std::size_t p0 = 0; p0 < rows; p0 += group) {
    for (std::size_t j = 0; j < width; ++j) partial[j] = Op::template identity<T>();
    for (std::size_t p = p0; p < std::min(rows, p0 + group); ++p) {
      std::size_t j = 0;
      if constexpr (vector_reduction<Op, Source>) {
        using B = batch_t<T>;
        for (; j + B::size <= width; j += B::size) {
          const B acc = simd_combine<Op, T>::apply(B::load_unaligned(partial + j), src.template batch<B>(p * width + j));
          acc.store_unaligned(partial + j);
        }
      }
      for (; j < width; ++j) partial[j] = Op::combine(partial[j], src.scalar(p * width + j));
    }
    for (std::size_t j = 0; j < width; ++j) out[j] = Op::combine(out[j], partial[j]);
  }
}

/// Input rows [first / inner, (first + n) / inner) of broadcasting graph `input` (extents ext,
/// inner = ext[R - 1]) into buf: each row by the row loop from its start, as evaluate_into
/// computes it, so the values are bit for bit those of evaluate_into. Out of line: one copy of
/// the loop per graph, shared by the blocks below and the temporary of with_flat_source.
template <class N, class Cursors, std::size_t R, class T>
[[gnu::noinline]] void evaluate_rows(const N& input, Cursors cursors, const extents<R> ext, std::size_t first,
                                     std::size_t n, T* buf) {
  const std::size_t inner = ext[R - 1];
  std::array<std::size_t, R> index{};
  for (std::size_t d = R - 1, r = first / inner; d-- > 0;) index[d] = r % ext[d], r /= ext[d];
  for (std::size_t done = 0; done < n; done += inner) {
    seek_all(cursors, index);
    run_loop(input, cursors, buf + done, 0, inner);
    for (std::size_t d = R - 1; d-- > 0;) {  // next row: odometer over the outer axes
      if (++index[d] < ext[d]) break;
      index[d] = 0;
    }
  }
}

/// Whether a reduction's input that does not fit the flat loop may be read through
/// evaluate_rows: a numeric graph with axes, whose loop is not the flat one by its signature.
template <class Sig, class N, std::size_t R>
inline constexpr bool reads_by_rows = R > 0 && std::is_arithmetic<typename N::value_type>::value &&
                                      !graph::mentions_strings_v<N> &&
                                      static_loop_choice<Sig, N> != loop_choice::flat;

/// Runs f with a flat source for graph `input`: fused when its arguments allow a flat loop,
/// otherwise over a temporary holding the evaluated input.
template <class Sig, class N, class Views, std::size_t R, class F>
void with_flat_source(const N& input, const Views& views, const extents<R>& ext, F&& f) {
  constexpr auto args = std::make_index_sequence<std::tuple_size<Views>::value>{};
  const std::size_t size = staticflow::detail::product(ext);
  if (fits_flat<Sig, N>(views, size, args)) {
    f(fused_source<N, decltype(flat_cursors<Sig, N>(views, args))>{input, flat_cursors<Sig, N>(views, args)});
  } else {
    using T = typename N::value_type;
    T* tmp = static_cast<T*>(plan::arena::local().allocate(sizeof(T) * size));
    if constexpr (reads_by_rows<Sig, N, R>) {
      // the row loop alone (fits_flat said no: evaluate_into's flat loops would be dead code),
      // rows split across threads as evaluate_into splits them
      const std::size_t inner = ext[R - 1];
      if (inner != 0 && size != 0) {
        const auto cursors = row_cursors<N, R>(views, args);
        const std::size_t rows = size / inner;
        const std::size_t threads = N::shape_type::is_static && size < parallel_grain ? 1 : threads_for(size);
        if (threads <= 1 || rows < 2) {
          evaluate_rows(input, cursors, ext, 0, size, tmp);
        } else {
          parallel_for(rows, threads, [&](std::size_t r0, std::size_t r1) {
            evaluate_rows(input, cursors, ext, r0 * inner, (r1 - r0) * inner, tmp + r0 * inner);
          });
        }
      }
    } else {
      evaluate_into<Sig>(input, views, ext, tmp);
    }
    using arg = graph::argument<0, T, typename N::shape_type>;
    static const arg node{};
    f(fused_source<arg, std::tuple<contiguous_cursor<T>>>{node, {contiguous_cursor<T>{tmp}}});
  }
}

/// Whether every block reduce_range forms over an output's span of `count` input elements (4096
/// from the span's start) is whole rows of extent `inner`. A span is whole rows unless the last
/// axis is kept and the reduced axes all have extent 1 (count 1).
inline bool blocks_hold_whole_rows(std::size_t count, std::size_t inner) {
  return inner != 0 && count != 0 && count % inner == 0 && (count <= reduction_block || reduction_block % inner == 0);
}

/// A reduction of trailing axes (each output element combines `count` consecutive input
/// elements) whose input broadcasts: each block of reduce_range's order is evaluated into a
/// buffer of at most 4096 elements and reduced from there, so the input is never written out
/// whole (a gradient's `reduce_sum(dy * (x - mean), -1)` read 4 MB back from memory for 1024x1024
/// floats). Same blocks, same order, same values as the temporary of with_flat_source.
template <class Sig, class Op, class N, class Views, std::size_t R, class T>
void reduce_broadcast_rows(const N& input, const Views& views, const extents<R>& ext, std::size_t out_size,
                           std::size_t count, T* out) {
  using V = typename N::value_type;
  constexpr std::size_t block = reduction_block;
  const auto cursors = row_cursors<N, R>(views, std::make_index_sequence<std::tuple_size<Views>::value>{});
  auto block_value = [&](std::size_t first, std::size_t length) {
    alignas(64) V buf[block];
    evaluate_rows(input, cursors, ext, first, length, buf);
    using arg = graph::argument<0, V, shape<dyn>>;
    const arg node{};
    return reduce_block<Op>(fused_source<arg, std::tuple<contiguous_cursor<V>>>{node, {contiguous_cursor<V>{buf}}}, 0, length);
  };
  auto span_value = [&](std::size_t o, std::size_t threads) {
    if (count <= block) return block_value(o * count, count);
    return combine_blocks_pairwise<Op, V>((count + block - 1) / block, threads, [&](std::size_t b) {
      return block_value(o * count + b * block, std::min(block, count - b * block));
    });
  };
  const std::size_t threads = threads_for(out_size * count);
  if (out_size == 1) {
    out[0] = Op::finish(span_value(0, threads), count);
  } else if (threads > 1) {  // one output element per task: the same order as one thread
    parallel_for(out_size, threads, [&](std::size_t o0, std::size_t o1) {
      for (std::size_t o = o0; o < o1; ++o) out[o] = Op::finish(span_value(o, 1), count);
    });
  } else {
    for (std::size_t o = 0; o < out_size; ++o) out[o] = Op::finish(span_value(o, 1), count);
  }
}

/// A reduction whose input extents, axes and argument sizes are all in its type, small enough
/// that its order is plain: each output element combines `count` consecutive elements in
/// sequence from the identity (the suffix pattern below with count < 4W, one block, one thread:
/// what reduce_block computes then). Its layout is constant, so the call is the loop alone, which
/// the compiler unrolls; a [2, 3] mean cost 20 ns of run-time pattern search and out-of-line
/// calls before (issue 20 item 11).
template <class Sig, class Op, class A, class Axes>
struct static_reduction {
  static constexpr bool axes_static = !std::is_same<Axes, runtime_axis>::value;
  static constexpr std::size_t rank = A::shape_type::rank;
  static constexpr std::size_t total = A::shape_type::is_static ? A::shape_type::size : 0;
  // kept axes before reduced ones (axes of extent 1 fit either), as materialize tests at run time
  static constexpr bool suffix = [] {
    if constexpr (!axes_static || !A::shape_type::is_static) {
      return false;
    } else {
      constexpr auto mask = graph::detail::reduced_axes<Axes, rank>::mask;
      std::size_t first_reduced = rank, last_kept_plus_one = 0;
      for (std::size_t i = 0; i < rank; ++i) {
        if (A::shape_type::dims[i] == 1) continue;
        if (mask[i]) first_reduced = std::min(first_reduced, i);
        else last_kept_plus_one = i + 1;
      }
      return last_kept_plus_one <= first_reduced;
    }
  }();
  static constexpr std::size_t out_size = [] {
    if constexpr (!axes_static || !A::shape_type::is_static) {
      return std::size_t{0};
    } else {
      constexpr auto mask = graph::detail::reduced_axes<Axes, rank>::mask;
      std::size_t kept = 1;
      for (std::size_t i = 0; i < rank; ++i)
        if (!mask[i]) kept *= A::shape_type::dims[i];
      return kept;
    }
  }();
  static constexpr std::size_t count = out_size ? total / out_size : 0;
  // every argument A reads is a static scalar or holds `total` elements: the flat loop, always
  static constexpr bool flat = []<std::size_t... K>(std::index_sequence<K...>) {
    return ([] {
      using entry = std::tuple_element_t<K, Sig>;
      if constexpr (!graph::uses_argument<K, A> || is_static_scalar<entry>()) return true;
      else if constexpr (spec_type<entry>) return entry::shape_type::is_static && entry::shape_type::size == total;
      else return false;
    }() && ...);
  }(std::make_index_sequence<std::tuple_size<Sig>::value>{});
  static constexpr bool sequential = [] {
    if constexpr (!flat || !suffix) return false;
    else if constexpr (vector_reduction<Op, fused_source<A, std::tuple<>>>)  // (simd: a property of A)
      return count < 4 * batch_t<typename A::value_type>::size;
    else return count <= reduction_block;
  }();
  static constexpr bool applies = std::is_arithmetic<typename A::value_type>::value && sequential &&
                                  total < parallel_grain;
};

/// Reduction of A laid out as Layout (a static_reduction that applies): each output element
/// combines its `count` elements in sequence.
template <class Sig, class Op, class Layout, class A, class Views, class T>
STATICFLOW_INLINE void reduce_static_layout(const A& a, const Views& views, T* out) {
  constexpr auto args = std::make_index_sequence<std::tuple_size<Views>::value>{};
  const auto src = fused_source<A, decltype(flat_cursors<Sig, A>(views, args))>{a, flat_cursors<Sig, A>(views, args)};
  using V = typename A::value_type;  // (the type reduce_block combines in)
  for (std::size_t o = 0; o < Layout::out_size; ++o) {
    V total = Op::template identity<V>();
    for (std::size_t j = 0; j < Layout::count; ++j) total = Op::combine(total, src.scalar(o * Layout::count + j));
    out[o] = Op::finish(total, Layout::count);
  }
}

/// A reduction by the general kernel: the pattern of its axes found at run time (out of line;
/// materialize below runs the static layouts inline and calls this for the rest).
template <class Sig, class Op, class A, class Axes, bool Keep, class Views, std::size_t R, class T>
void reduce_general(const graph::reduce<Op, A, Axes, Keep>& n, const Views& views, const extents<R>& out_ext, T* out) {
  constexpr std::size_t RI = A::shape_type::rank;
  const auto in_ext = graph::node_extents(n.a, staticflow::detail::extents_of_views(views));
  const auto mask = n.mask();
  // kept axes first, reduced axes last (a suffix), or the other way round (a prefix)?
  std::size_t first_reduced = RI, last_kept_plus_one = 0, first_kept = RI, last_reduced_plus_one = 0;
  for (std::size_t i = 0; i < RI; ++i) {
    if (in_ext[i] == 1) continue;  // an axis of extent 1 fits either pattern
    if (mask[i]) first_reduced = std::min(first_reduced, i), last_reduced_plus_one = i + 1;
    else first_kept = std::min(first_kept, i), last_kept_plus_one = i + 1;
  }
  const std::size_t total = staticflow::detail::product(in_ext);
  const std::size_t out_size = staticflow::detail::product(out_ext);
  const std::size_t count = out_size ? total / out_size : 0;
  if constexpr (detail::reads_by_rows<Sig, A, RI>) {
    if (last_kept_plus_one <= first_reduced && detail::blocks_hold_whole_rows(count, in_ext[RI - 1]) &&
        !detail::fits_flat<Sig, A>(views, total, std::make_index_sequence<std::tuple_size<Views>::value>{})) {
      detail::reduce_broadcast_rows<Sig, Op>(n.a, views, in_ext, out_size, count, out);
      return;
    }
  }
  detail::with_flat_source<Sig>(n.a, views, in_ext, [&](const auto& src) {
    if (last_kept_plus_one <= first_reduced) {  // reduce a contiguous block per output element
      const std::size_t threads = threads_for(total);
      if (out_size == 1) {
        out[0] = Op::finish(detail::reduce_range<Op>(src, 0, count, threads), count);
      } else if (threads > 1) {  // one output element per task: the same order as one thread
        parallel_for(out_size, threads, [&](std::size_t o0, std::size_t o1) {
          for (std::size_t o = o0; o < o1; ++o) out[o] = Op::finish(detail::reduce_range<Op>(src, o * count, count), count);
        });
      } else {
        for (std::size_t o = 0; o < out_size; ++o)
          out[o] = Op::finish(detail::reduce_range<Op>(src, o * count, count), count);
      }
    } else if (last_reduced_plus_one <= first_kept) {  // reduce whole rows into one row
      detail::reduce_rows<Op>(src, count, out_size, out);
      for (std::size_t o = 0; o < out_size; ++o) out[o] = Op::finish(out[o], count);
    } else {  // interleaved axes: walk the input once, accumulating into the output
      std::array<std::size_t, RI> out_stride{};
      for (std::size_t i = RI, s = 1; i-- > 0;)
        if (!mask[i]) out_stride[i] = s, s *= in_ext[i];
      for (std::size_t o = 0; o < out_size; ++o) out[o] = Op::template identity<T>();
      std::array<std::size_t, RI> index{};
      for (std::size_t j = 0; j < total; ++j) {
        std::size_t o = 0;
        for (std::size_t i = 0; i < RI; ++i) o += index[i] * out_stride[i];
        out[o] = Op::combine(out[o], src.scalar(j));
        for (std::size_t i = RI; i-- > 0;) {
          if (++index[i] < in_ext[i]) break;
          index[i] = 0;
        }
      }
      for (std::size_t o = 0; o < out_size; ++o) out[o] = Op::finish(out[o], count);
    }
  });
}
}  // namespace detail

/// Materializes a reduction into out (extents out_ext). A static layout (and a plain int axis
/// over a static shape that has one) is inlined into the caller: out of line, behind the general
/// kernel's frame, a [2, 3] mean by int axis cost 3x the same loop by `sf::axes` (issue 20 item 11).
template <class Sig, class Op, class A, class Axes, bool Keep, class Views, std::size_t R, class T>
STATICFLOW_INLINE void materialize(const graph::reduce<Op, A, Axes, Keep>& n, const Views& views, const extents<R>& out_ext,
                                   T* out) {
  constexpr std::size_t RI = A::shape_type::rank;
  if constexpr (detail::static_reduction<Sig, Op, A, Axes>::applies) {
    detail::reduce_static_layout<Sig, Op, detail::static_reduction<Sig, Op, A, Axes>>(n.a, views, out);
    return;
  } else if constexpr (std::is_same<Axes, runtime_axis>::value && A::shape_type::is_static) {
    // a plain int axis over a static shape: the static loop of that axis, where it has one
    const std::size_t axis = staticflow::detail::checked_axis(n.axes.axis, RI);
    const bool done = [&]<std::size_t... K>(std::index_sequence<K...>) STATICFLOW_LAMBDA_INLINE {
      return ([&]() STATICFLOW_LAMBDA_INLINE {
        using layout = detail::static_reduction<Sig, Op, A, axes<static_cast<int>(K)>>;
        if constexpr (layout::applies) {
          if (axis != K) return false;
          detail::reduce_static_layout<Sig, Op, layout>(n.a, views, out);
          return true;
        } else {
          return false;
        }
      }() || ...);
    }(std::make_index_sequence<RI>{});
    if (!done) detail::reduce_general<Sig>(n, views, out_ext, out);
  } else {
    detail::reduce_general<Sig>(n, views, out_ext, out);
  }
}

/// argmax / argmin over an axis of extent 0 has no answer (TF: InvalidArgumentError).
template <class Op, std::size_t R>
[[noreturn]] void throw_empty_arg_axis(std::size_t axis, const extents<R>& ext) {
  throw shape_error(std::string(Op::name) + ": axis " + std::to_string(axis) + " is empty in shape " +
                    staticflow::detail::extents_string(ext));
}

/// Materializes argmax / argmin into out.
template <class Sig, class Op, class A, class Axis, class Views, std::size_t R>
void materialize(const graph::arg_reduce<Op, A, Axis>& n, const Views& views, const extents<R>& out_ext,
                 std::int64_t* out) {
  const auto in_ext = graph::node_extents(n.a, staticflow::detail::extents_of_views(views));
  constexpr std::size_t RI = A::shape_type::rank;
  const std::size_t ax = n.axis(RI);
  std::size_t outer = 1, inner = 1;
  for (std::size_t i = 0; i < ax; ++i) outer *= in_ext[i];
  for (std::size_t i = ax + 1; i < RI; ++i) inner *= in_ext[i];
  const std::size_t len = in_ext[ax];
  (void)out_ext;
  if (len == 0) throw_empty_arg_axis<Op>(ax, in_ext);
  detail::with_flat_source<Sig>(n.a, views, in_ext, [&](const auto& src) {
    for (std::size_t o = 0; o < outer; ++o)
      for (std::size_t i = 0; i < inner; ++i) {
        std::size_t best = 0;
        auto best_value = len ? src.scalar(o * len * inner + i) : typename std::remove_cvref_t<decltype(src)>::value_type{};
        for (std::size_t k = 1; k < len; ++k) {
          const auto v = src.scalar((o * len + k) * inner + i);
          if (Op::better(v, best_value)) best = k, best_value = v;
        }
        out[o * inner + i] = static_cast<std::int64_t>(best);
      }
  });
}

}  // namespace staticflow::cpu

// softmax / log_softmax are row reductions followed by an elementwise pass over the same row;
// their kernel is declared with the reductions so that every plan runner that sees
// cpu::materialize for reductions sees it as well.
#include "staticflow/backend/cpu/softmax.hpp"
