// staticflow/graph/leaf.hpp -- the leaves of a graph: function arguments and literals.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

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

/// A string constant keeps its own copy of the bytes (shared by the copies of the graph), so a
/// literal made from a temporary std::string at trace time stays valid on every later call.
template <>
struct literal<string> : node<literal<string>> {
  using value_type = string;
  using shape_type = shape<>;
  std::shared_ptr<const std::string> text;
  string value;
  explicit literal(std::string_view s) : text(std::make_shared<const std::string>(s)), value(*text) {}
  explicit literal(string s) : literal(s.view()) {}
};

/// A 0-d constant whose value is also part of its type: what a static value (`sf::static_value<2>`,
/// `2_c`) becomes. The fused loops read `V`, so the compiler sees the constant (`m / 2_c` is a
/// shift, `3_c * m` an lea, as in a hand-written loop); everywhere else (printing, folding,
/// equality, the Thrust and eager backends) it is the literal it derives from. `V` is the static
/// value as written (`3` in `x * 2.5f * sf::static_value<3>{}`), converted to T in `constant`:
/// a floating-point template argument is what clang before 18 cannot compile.
template <class T, auto V>
struct static_literal : literal<T> {
  static constexpr T constant = static_cast<T>(V);
  constexpr static_literal() : literal<T>(constant) {}
};

}  // namespace staticflow::graph
