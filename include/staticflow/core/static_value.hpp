// staticflow/core/static_value.hpp -- the analog of a Python argument: a value that is part of the
// signature, so each distinct value traces its own graph.
#pragma once

#include <string>
#include <type_traits>

namespace staticflow {

/// `sf::static_value<3>` is `std::integral_constant<int, 3>`; any integral_constant works the same.
template <auto V>
using static_value = std::integral_constant<decltype(V), V>;

namespace detail {
template <class T> struct is_static_value : std::false_type {};
template <class T, T V> struct is_static_value<std::integral_constant<T, V>> : std::true_type {};
}  // namespace detail

template <class T>
concept static_value_type = detail::is_static_value<std::remove_cvref_t<T>>::value;

namespace detail {
/// `Literal[3]` / `Literal[True]`, as TensorFlow prints a Python argument in a signature.
template <class T, T V>
std::string static_value_string(std::integral_constant<T, V>) {
  if constexpr (std::is_same_v<T, bool>) return V ? "Literal[True]" : "Literal[False]";
  else return "Literal[" + std::to_string(V) + "]";
}
}  // namespace detail
}  // namespace staticflow
