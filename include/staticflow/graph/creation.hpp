// staticflow/graph/creation.hpp -- tensors made inside a trace: zeros, ones, fill (static shapes)
// and zeros_like, ones_like, full_like (the shape of another tensor, run-time extents included).
//
// None of them is a buffer: each is a constant broadcast inside the fused loop that reads it
// (`zeros_like(x) + y` is one loop over y, nothing stored). zeros_like(x) reads only x's extents.
#pragma once

#include <type_traits>

#include "staticflow/core/shape.hpp"
#include "staticflow/graph/leaf.hpp"
#include "staticflow/graph/operators.hpp"
#include "staticflow/graph/shape_ops.hpp"

namespace staticflow {
namespace detail {
template <class Shape>
constexpr void check_creation_shape() {
  static_assert(is_shape<Shape>::value && Shape::is_static,
                "staticflow: zeros / ones / fill need a static sf::shape<...> (use zeros_like(x) for a "
                "run-time shape)");
}

template <class T, class Like>
constexpr auto constant_like(const Like& like, T value) {
  const auto ref = as_node<void>(like);
  using R = std::remove_cvref_t<decltype(ref)>;
  if constexpr (R::shape_type::is_static)
    return graph::broadcast<typename R::shape_type, graph::literal<T>>(graph::literal<T>(value));
  else
    return graph::broadcast_as<graph::literal<T>, R>(graph::literal<T>(value), ref);
}

template <class Like>
using like_dtype = typename decltype(as_node<void>(std::declval<const Like&>()))::value_type;
}  // namespace detail

/// tf.fill(shape, value): a tensor of Shape holding value (dtype T, by default value's own).
template <class T = void, class Shape, class V>
  requires std::is_arithmetic_v<V>
constexpr auto fill(Shape, V value) {
  detail::check_creation_shape<Shape>();
  using U = std::conditional_t<std::is_void_v<T>, canonical_dtype_t<V>, T>;
  static_assert(dtype<U>, "staticflow: fill: unsupported dtype (use bool, int32_t, int64_t, float or double)");
  return graph::broadcast<Shape, graph::literal<U>>(graph::literal<U>(static_cast<U>(value)));
}

/// tf.zeros(shape, dtype) / tf.ones(shape, dtype): float32 unless T says otherwise.
template <class T = float, class Shape>
constexpr auto zeros(Shape s) {
  return fill<T>(s, 0);
}
template <class T = float, class Shape>
constexpr auto ones(Shape s) {
  return fill<T>(s, 1);
}

/// tf.zeros_like / tf.ones_like / tf.experimental.numpy.full_like: x's shape, dtype T (x's by
/// default).
template <class T = void, detail::tensor_operand A>
constexpr auto zeros_like(const A& x) {
  using U = std::conditional_t<std::is_void_v<T>, detail::like_dtype<A>, T>;
  return detail::constant_like<U>(x, U(0));
}
template <class T = void, detail::tensor_operand A>
constexpr auto ones_like(const A& x) {
  using U = std::conditional_t<std::is_void_v<T>, detail::like_dtype<A>, T>;
  return detail::constant_like<U>(x, U(1));
}
template <class T = void, detail::tensor_operand A, class V>
  requires std::is_arithmetic_v<V>
constexpr auto full_like(const A& x, V value) {
  using U = std::conditional_t<std::is_void_v<T>, detail::like_dtype<A>, T>;
  return detail::constant_like<U>(x, static_cast<U>(value));
}

}  // namespace staticflow
