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
  if constexpr (std::is_same<T, bool>::value) return V ? "Literal[True]" : "Literal[False]";
  else return "Literal[" + std::to_string(V) + "]";
}
}  // namespace detail

namespace literals {
/// `2_c` is `sf::static_value<2>{}` (an int, or a long long when it does not fit): a constant
/// known to the compiler, as in `m / 2_c` or `3_c * m + 1_c`. Plain C++ literals in a traced
/// function are run-time values of the graph, so one graph serves every value.
/// (consteval, except for clang before 15, which emits an undefined call to a consteval literal
/// operator used in a generic lambda that is instantiated later, as a traced function is: the
/// program then fails to link. Its value is a type either way, so constexpr loses nothing.)
#if defined(__clang__) && __clang_major__ < 15
#define STATICFLOW_LITERAL_OPERATOR constexpr
#else
#define STATICFLOW_LITERAL_OPERATOR consteval
#endif
template <char... C>
STATICFLOW_LITERAL_OPERATOR auto operator""_c() {
  constexpr char digits[] = {C...};
  static_assert(((C == '\'' || (C >= '0' && C <= '9')) && ...) && (digits[0] != '0' || sizeof...(C) == 1),
                "staticflow: _c takes a decimal integer such as 2_c (no point, exponent, prefix or leading 0)");
  constexpr unsigned long long limit = 9223372036854775807ULL;  // the largest long long
  constexpr unsigned long long v = [] {
    unsigned long long r = 0;
    for (const char c : {C...}) {
      if (c == '\'') continue;
      const auto d = static_cast<unsigned long long>(c - '0');
      r = r > (limit - d) / 10 ? limit + 1 : r * 10 + d;  // saturates above the limit
    }
    return r;
  }();
  static_assert(v <= limit, "staticflow: _c: the value does not fit a long long");
  if constexpr (v <= 2147483647ULL) return std::integral_constant<int, static_cast<int>(v)>{};
  else return std::integral_constant<long long, static_cast<long long>(v)>{};
}
#undef STATICFLOW_LITERAL_OPERATOR

/// `-1_c` is `sf::static_value<-1>{}`: a negated static value stays one (std::integral_constant
/// would convert to a plain, run-time int first), so `sf::reduce_sum(x, -1_c)` is a static axis.
template <class T, T V>
  requires(std::is_signed<T>::value && !std::is_same<T, bool>::value)
constexpr std::integral_constant<T, -V> operator-(std::integral_constant<T, V>) {
  return {};
}
}  // namespace literals
}  // namespace staticflow
