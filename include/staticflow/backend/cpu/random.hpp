// staticflow/backend/cpu/random.hpp -- random values (graph/random.hpp) on the CPU: the seed read
// once, then Philox blocks split across threads. Block k's values depend on k alone, so any
// thread count gives the same numbers.
#pragma once

#include <cstddef>
#include <cstdint>

#include "staticflow/backend/cpu/operand.hpp"
#include "staticflow/backend/cpu/parallel.hpp"
#include "staticflow/graph/random.hpp"

namespace staticflow::cpu {

template <class Sig, class Dist, class T, class S, class Seed, class Like, class Views, std::size_t R>
void materialize(const graph::random_values<Dist, T, S, Seed, Like>& n, const Views& views, const extents<R>& out_ext, T* out) {
  using N = graph::random_values<Dist, T, S, Seed, Like>;
  const std::size_t count = staticflow::detail::product(out_ext);
  if (count == 0) return;
  const philox::key_counter start = [&] {
    if constexpr (N::seed_is_node) {
      using J = typename Seed::value_type;
      constexpr std::size_t words = N::seed_words;
      return graph::detail::start_of<words>(detail::contiguous_operand<J, Sig>(n.seed, views, extents<1>{words}));
    } else {
      return n.seed.start;
    }
  }();
  const std::size_t blocks = (count + N::per_block - 1) / N::per_block;
  parallel_for(blocks, threads_for(count), [&](std::size_t begin, std::size_t end) {
    for (std::size_t k = begin; k < end; ++k) N::write_block(n.dist, start, k, out, count);
  });
}

template <class Sig, class State, class S, class Like, class Views, std::size_t R>
void materialize(const graph::generator_skip<State, S, Like>& n, const Views& views, const extents<R>&, std::int64_t* out) {
  const std::size_t count = n.count_of(staticflow::detail::extents_of_views(views));
  const std::int64_t* before = detail::contiguous_operand<std::int64_t, Sig>(n.state, views, extents<1>{3});
  graph::generator_skip<State, S, Like>::compute(before, count, out);
}

}  // namespace staticflow::cpu
