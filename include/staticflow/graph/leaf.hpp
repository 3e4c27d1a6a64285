// staticflow/graph/leaf.hpp -- the leaves of a graph: function arguments and literals.
#pragma once

#include <cstddef>

#include "staticflow/core/shape.hpp"
#include "staticflow/graph/node.hpp"

namespace staticflow::graph {

/// The I-th argument of the traced function: a symbolic tensor of dtype T and shape S.
template <std::size_t I, class T, class S>
struct argument : node<argument<I, T, S>> {
  static constexpr std::size_t index = I;
  using value_type = T;
  using shape_type = S;
};

/// A 0-d constant. Its value is a run-time member, so a new value never instantiates new code.
template <class T>
struct literal : node<literal<T>> {
  using value_type = T;
  using shape_type = shape<>;
  T value;
  constexpr explicit literal(T v) : value(v) {}
};

}  // namespace staticflow::graph
