// staticflow/backend/cpu/epilogue.hpp -- a producer's epilogue (graph/epilogue.hpp,
// plan/epilogues.hpp) on the CPU: the elementwise function run by the fused loop's run_loop over
// each block of the result the producer's kernel hands it, in place, while the block is in
// cache. The producers (backend/cpu/conv.hpp, conv3d.hpp, linalg.hpp) call their kernel with it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <utility>

#include "staticflow/backend/cpu/matmul.hpp"
#include "staticflow/backend/cpu/cursor.hpp"
#include "staticflow/backend/cpu/kernel.hpp"
#include "staticflow/backend/cpu/operand.hpp"
#include "staticflow/core/config.hpp"
#include "staticflow/core/value_pack.hpp"
#include "staticflow/graph/epilogue.hpp"
#include "staticflow/plan/arena.hpp"

namespace staticflow::cpu::detail {

/// An operand's cursor for the columns from col0 on.
template <class T>
STATICFLOW_INLINE contiguous_cursor<T> from_column(const contiguous_cursor<T>& c, std::size_t col0) {
  return {c.data + col0};
}
template <class T>
STATICFLOW_INLINE broadcast_cursor<T> from_column(const broadcast_cursor<T>& c, std::size_t) {
  return c;
}

/// What a producer's kernel calls (through a block_finish, matmul.hpp) for each block of its
/// result whose values are complete: the epilogue's function over the block, argument 0 read
/// where the kernel wrote it and written back in place, each operand a per-channel cursor
/// (contiguous along the last axis) or a broadcast value. finish(c, rows, ldc, col0, cols): rows
/// of `cols` values `ldc` apart, starting at channel col0.
template <class T, class Fn, class Cursors>
struct epilogue_finish {
  const Fn& fn;
  Cursors operands;  // a value_pack, one cursor per operand
  static constexpr bool per_channel = []<std::size_t... I>(std::index_sequence<I...>) {
    return (!std::is_same<std::remove_cvref_t<decltype(staticflow::detail::pack_get<I>(std::declval<const Cursors&>()))>,
                            broadcast_cursor<T>>::value || ...);
  }(std::make_index_sequence<Cursors::size>{});
  void run(T* first, std::size_t count, std::size_t col0) const {
    const auto cursors = staticflow::detail::pack_apply(
        [&](const auto&... q) { return staticflow::detail::pack_values(contiguous_cursor<T>{first}, from_column(q, col0)...); },
        operands);
    run_loop(fn, cursors, first, 0, count);
  }
  void operator()(T* c, std::size_t rows, std::size_t ldc, std::size_t col0, std::size_t cols) const {
    if (!per_channel && ldc == cols) {
      run(c, rows * cols, 0);  // nothing varies along the channels: one loop over the block
    } else {
      for (std::size_t r = 0; r < rows; ++r) run(c + r * ldc, cols, col0);
    }
  }
};

/// An operand of an epilogue as a cursor: a static single value broadcast, anything else read
/// per channel (a run-time single value spread over the `channels` first).
template <class T, class Sig, class Q, class Views, class ExtViews>
auto epilogue_operand(const Q& q, const Views& views, const ExtViews& ext_views, std::size_t channels) {
  const auto ext = graph::node_extents(q, ext_views);
  const T* data = contiguous_operand<T, Sig>(q, views, ext);
  if constexpr (Q::shape_type::is_static && Q::shape_type::size == 1) {
    return broadcast_cursor<T>{*data};
  } else {
    if (staticflow::detail::product(ext) == channels) return contiguous_cursor<T>{data};
    T* spread = static_cast<T*>(plan::arena::local().allocate(sizeof(T) * channels));
    std::fill_n(spread, channels, *data);
    return contiguous_cursor<T>{spread};
  }
}

/// Epilogue n into out (extents ext), given the producer's forward pass forward(y, finish) over
/// `pixels` output pixels (rows of the result's last axis) of `o` channels: finish a no_finish or a
/// block_finish<T>, so that the producer's kernel is instantiated twice per dtype at most, however
/// many epilogues a program has. Where an operand of run-time extent k broadcasts a
/// result of one channel (ext's channels k, o 1), the producer's values are computed into scratch
/// and spread over the k channels first.
template <class Sig, class P, class Fn, class... Q, class Views, std::size_t R, class T, class Forward>
void run_epilogue(const graph::epilogue<P, Fn, Q...>& n, const Views& views, const extents<R>& ext, T* out,
                  std::size_t pixels, std::size_t o, const Forward& forward) {
  const auto ext_views = staticflow::detail::extents_of_views(views);
  const std::size_t channels = ext[R - 1];
  const auto operands = [&]<std::size_t... I>(std::index_sequence<I...>) {
    return staticflow::detail::pack_values(
        epilogue_operand<T, Sig>(staticflow::detail::pack_get<I>(n.operands), views, ext_views, channels)...);
  }(std::index_sequence_for<Q...>{});
  const epilogue_finish<T, Fn, std::remove_cvref_t<decltype(operands)>> finish{n.fn, operands};
  if (channels == o) {
    forward(out, block_finish<T>::of(finish));
  } else if (pixels * channels > 0) {
    T* y = static_cast<T*>(plan::arena::local().allocate(sizeof(T) * pixels));
    forward(y, no_finish{});
    for (std::size_t p = 0; p < pixels; ++p) std::fill_n(out + p * channels, channels, y[p]);
    finish(out, pixels, channels, 0, channels);
  }
}

}  // namespace staticflow::cpu::detail
