// staticflow/core/dtype.hpp -- element types (dtypes), their TensorFlow names and promotion rules.
#pragma once

#include <cstdint>
#include <string_view>
#include <type_traits>

#include "staticflow/core/string.hpp"

namespace staticflow {

/// The element types a tensor may hold, named as TensorFlow prints them.
template <class T>
struct dtype_traits;  // undefined for every other type

template <> struct dtype_traits<bool>         { static constexpr std::string_view name = "bool"; };
template <> struct dtype_traits<std::int32_t> { static constexpr std::string_view name = "int32"; };
template <> struct dtype_traits<std::int64_t> { static constexpr std::string_view name = "int64"; };
template <> struct dtype_traits<float>        { static constexpr std::string_view name = "float32"; };
template <> struct dtype_traits<double>       { static constexpr std::string_view name = "float64"; };
template <> struct dtype_traits<string>       { static constexpr std::string_view name = "string"; };

template <class T>
concept dtype = requires { dtype_traits<T>::name; };

template <dtype T>
inline constexpr std::string_view dtype_name = dtype_traits<T>::name;

template <class T>
concept numeric_dtype = dtype<T> && std::is_arithmetic<T>::value && !std::is_same<T, bool>::value;

/// The string dtype (core/string.hpp): elementwise ops on the scalar path only.
template <class T>
concept string_dtype = std::is_same<T, string>::value;

template <class T>
concept floating_dtype = std::is_same<T, float>::value || std::is_same<T, double>::value;

template <class T>
concept integer_dtype = std::is_same<T, std::int32_t>::value || std::is_same<T, std::int64_t>::value;

namespace detail {
template <class T>
inline constexpr bool always_false = false;

// C++ text: std::string, std::string_view, a character array or pointer (a string scalar).
template <class U>
inline constexpr bool is_text_v =
    std::is_same<U, std::string>::value || std::is_same<U, std::string_view>::value || std::is_same<U, const char*>::value ||
    std::is_same<U, char*>::value || std::is_same<U, string>::value ||
    (std::is_array<U>::value && std::is_same<std::remove_cv_t<std::remove_extent_t<U>>, char>::value);

/// A 0-d result or output as a plain C++ value: a number, or an sf::string element.
template <class T>
inline constexpr bool is_scalar_value_v = std::is_arithmetic<T>::value || std::is_same<T, string>::value;

// The dtype a C++ arithmetic type stands for: `long long` and `long` both mean int64 on LP64.
template <class T>
constexpr auto canonical_dtype_of() {
  using U = std::remove_cvref_t<T>;
  if constexpr (is_text_v<U>) return string{};
  else if constexpr (std::is_same<U, bool>::value) return bool{};
  else if constexpr (std::is_floating_point<U>::value && sizeof(U) == 4) return float{};
  else if constexpr (std::is_floating_point<U>::value && sizeof(U) == 8) return double{};
  else if constexpr (std::is_integral<U>::value && std::is_signed<U>::value && sizeof(U) == 4) return std::int32_t{};
  else if constexpr (std::is_integral<U>::value && std::is_signed<U>::value && sizeof(U) == 8) return std::int64_t{};
  else return static_cast<void>(0);
}
}  // namespace detail

/// `int` -> int32_t, `long long` -> int64_t, ...; `void` when the type is no dtype.
template <class T>
using canonical_dtype_t = decltype(detail::canonical_dtype_of<T>());

namespace detail {
// Rank in the promotion lattice bool < int32 < int64 < float32 < float64.
template <class T> inline constexpr int dtype_rank = -1;
template <> inline constexpr int dtype_rank<bool> = 0;
template <> inline constexpr int dtype_rank<std::int32_t> = 1;
template <> inline constexpr int dtype_rank<std::int64_t> = 2;
template <> inline constexpr int dtype_rank<float> = 3;
template <> inline constexpr int dtype_rank<double> = 4;

template <class A, class B>
struct promote {
  static_assert(string_dtype<A> == string_dtype<B>,
                "staticflow: a string tensor does not mix with numbers (use sf::strings::to_number<T> or "
                "sf::strings::as_string)");
  // JAX's rule: an integer meeting a float takes the float's type (int64 + float32 -> float32).
  using type = std::conditional_t<(floating_dtype<A> && !floating_dtype<B>), A,
               std::conditional_t<(floating_dtype<B> && !floating_dtype<A>), B,
               std::conditional_t<(dtype_rank<A> >= dtype_rank<B>), A, B>>>;
};

// The dtype a weakly typed C++ literal takes next to a tensor of dtype T (as in JAX and TF):
// `x * 2` keeps x's dtype; a floating literal next to an integer or bool tensor makes float32.
template <class T, class Literal>
struct weak_literal_dtype {
  using L = canonical_dtype_t<Literal>;
  using type = std::conditional_t<floating_dtype<L> && !floating_dtype<T>, float,
               std::conditional_t<integer_dtype<L> && std::is_same<T, bool>::value, std::int32_t, T>>;
};
}  // namespace detail

/// The dtype of `a op b` for tensors of dtypes A and B.
template <dtype A, dtype B>
using promote_t = typename detail::promote<A, B>::type;

}  // namespace staticflow
