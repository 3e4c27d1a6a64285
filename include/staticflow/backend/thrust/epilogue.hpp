// staticflow/backend/thrust/epilogue.hpp -- a producer's epilogue (graph/epilogue.hpp,
// plan/epilogues.hpp) on a Thrust device system: the producer's kernel, then the epilogue's
// function over its result in place as one elementwise kernel (evaluate_into), the result read as
// [pixels, O] and each operand as [1, its size]. One thread per element computes a whole sum here,
// so there is no tile to finish while it is in cache: the epilogue saves the slot's buffer only.
#pragma once

#include <cstddef>
#include <tuple>
#include <utility>

#include "staticflow/backend/thrust/arena.hpp"
#include "staticflow/backend/thrust/kernel.hpp"
#include "staticflow/backend/thrust/operand.hpp"
#include "staticflow/core/value_pack.hpp"
#include "staticflow/graph/epilogue.hpp"
#include "staticflow/interop/xtensor.hpp"

namespace staticflow::thrust_backend::detail {

/// Epilogue n into out (extents out_ext); produce(y, producer_extents) runs the producer's
/// kernel. Where an operand of run-time extent k broadcasts a result of one channel, the
/// producer's values go to scratch and the function reads them broadcast.
template <class P, class Fn, class... Q, class Views, std::size_t R, class T, class Produce>
void run_epilogue(const graph::epilogue<P, Fn, Q...>& n, const Views& views, const extents<R>& out_ext, T* out,
                  const Produce& produce) {
  const std::size_t size = staticflow::detail::product(out_ext), channels = out_ext[R - 1];
  if (size == 0) return;
  const auto ext_views = staticflow::detail::extents_of_views(views);
  const auto producer_ext = graph::node_extents(n.producer, ext_views);
  const std::size_t o = producer_ext[R - 1], pixels = size / channels;
  T* y = o == channels ? out : static_cast<T*>(device_arena::local().allocate(sizeof(T) * pixels));
  produce(y, producer_ext);
  const auto operand = [&](const auto& q) {
    const auto qe = graph::node_extents(q, ext_views);
    return tensor_view<T, 2>{contiguous_operand<T>(q, views, qe), extents<2>{1, staticflow::detail::product(qe)}};
  };
  const auto fn_views = [&]<std::size_t... I>(std::index_sequence<I...>) {
    return std::tuple{tensor_view<T, 2>{y, extents<2>{pixels, o}}, operand(staticflow::detail::pack_get<I>(n.operands))...};
  }(std::index_sequence_for<Q...>{});
  evaluate_into(n.fn, fn_views, extents<2>{pixels, channels}, out);
}

}  // namespace staticflow::thrust_backend::detail
