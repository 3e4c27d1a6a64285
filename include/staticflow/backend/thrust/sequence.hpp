// staticflow/backend/thrust/sequence.hpp -- range and linspace (graph/creation.hpp) on the device:
// one thread per value, the CPU kernel's formula.
#pragma once

#include <cstddef>

#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>

#include "staticflow/backend/thrust/system.hpp"
#include "staticflow/core/config.hpp"
#include "staticflow/graph/creation.hpp"

namespace staticflow::thrust_backend {
namespace detail {
template <class Node, class T>
struct write_sequence {
  Node node;
  T* out;
  STATICFLOW_HD void operator()(std::size_t i) const { out[i] = node.at(i); }
};
}  // namespace detail

template <class Kind, class T, class S, std::size_t Axis, class Views, std::size_t R>
void materialize(const graph::sequence<Kind, T, S, Axis>& n, const Views&, const extents<R>&, T* out) {
  if (n.count == 0) return;
  ::thrust::for_each_n(async_policy(), ::thrust::counting_iterator<std::size_t>(0), n.count,
                       detail::write_sequence<graph::sequence<Kind, T, S, Axis>, T>{n, out});
}

}  // namespace staticflow::thrust_backend
