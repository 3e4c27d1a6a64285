// staticflow/backend/cpu/sequence.hpp -- range and linspace (graph/creation.hpp) on the CPU: value
// i is a function of i alone, so the loop vectorizes and any split across threads gives the same
// values.
#pragma once

#include <cstddef>
#include <cstdint>

#include "staticflow/backend/cpu/parallel.hpp"
#include "staticflow/graph/creation.hpp"

namespace staticflow::cpu {

template <class Sig, class Kind, class T, class S, std::size_t Axis, class Views, std::size_t R>
void materialize(const graph::sequence<Kind, T, S, Axis>& n, const Views&, const extents<R>&, T* out) {
  parallel_for(n.count, threads_for(n.count), [&](std::size_t begin, std::size_t end) {
    if (end <= std::size_t{INT32_MAX}) {  // a 32-bit index: the loop vectorizes
      for (auto i = static_cast<std::int32_t>(begin); i < static_cast<std::int32_t>(end); ++i) out[i] = n.at(i);
    } else {
      for (std::size_t i = begin; i < end; ++i) out[i] = n.at(i);
    }
  });
}

}  // namespace staticflow::cpu
