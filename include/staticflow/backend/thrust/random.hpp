// staticflow/backend/thrust/random.hpp -- random values (graph/random.hpp) on the device: one
// thread per Philox block, the CPU kernel's numbers. A seed tensor is read by each thread (its
// key and counter cost one more Philox call per block, not a copy back to the host); with CUDA,
// normals may differ from the CPU's in the last bits (the device's log, sin and cos), uniforms
// and integers do not.
#pragma once

#include <cstddef>
#include <cstdint>

#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>

#include "staticflow/backend/thrust/operand.hpp"
#include "staticflow/backend/thrust/system.hpp"
#include "staticflow/core/config.hpp"
#include "staticflow/graph/random.hpp"

namespace staticflow::thrust_backend {
namespace detail {
template <class N, class J, std::size_t Words>
struct write_random_block {
  typename N::distribution dist;
  philox::key_counter start;  // a fixed seed's
  const J* seed;              // a seed tensor's values, null for a fixed seed
  typename N::value_type* out;
  std::size_t count;
  STATICFLOW_HD void operator()(std::size_t k) const {
    N::write_block(dist, seed ? graph::detail::start_of<Words>(seed) : start, k, out, count);
  }
};

template <class State, class S, class Like>
struct write_skipped_state {
  const std::int64_t* before;
  std::size_t count;
  std::int64_t* out;
  STATICFLOW_HD void operator()(std::size_t) const { graph::generator_skip<State, S, Like>::compute(before, count, out); }
};
}  // namespace detail

template <class Dist, class T, class S, class Seed, class Like, class Views, std::size_t R>
void materialize(const graph::random_values<Dist, T, S, Seed, Like>& n, const Views& views, const extents<R>& out_ext, T* out) {
  using N = graph::random_values<Dist, T, S, Seed, Like>;
  const std::size_t count = staticflow::detail::product(out_ext);
  if (count == 0) return;
  const std::size_t blocks = (count + N::per_block - 1) / N::per_block;
  if constexpr (N::seed_is_node) {
    using J = typename Seed::value_type;
    constexpr std::size_t words = N::seed_words;
    const J* seed = detail::contiguous_operand<J>(n.seed, views, extents<1>{words});
    ::thrust::for_each_n(async_policy(), ::thrust::counting_iterator<std::size_t>(0), blocks,
                         detail::write_random_block<N, J, words>{n.dist, {}, seed, out, count});
  } else {
    ::thrust::for_each_n(async_policy(), ::thrust::counting_iterator<std::size_t>(0), blocks,
                         detail::write_random_block<N, std::int64_t, 2>{n.dist, n.seed.start, nullptr, out, count});
  }
}

template <class State, class S, class Like, class Views, std::size_t R>
void materialize(const graph::generator_skip<State, S, Like>& n, const Views& views, const extents<R>&, std::int64_t* out) {
  const std::size_t count = n.count_of(staticflow::detail::extents_of_views(views));
  const std::int64_t* before = detail::contiguous_operand<std::int64_t>(n.state, views, extents<1>{3});
  ::thrust::for_each_n(async_policy(), ::thrust::counting_iterator<std::size_t>(0), 1,
                       detail::write_skipped_state<State, S, Like>{before, count, out});
}

}  // namespace staticflow::thrust_backend
