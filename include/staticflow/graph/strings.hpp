// staticflow/graph/strings.hpp -- the ops on string tensors, as tf.strings names them:
// sf::strings::length, upper, lower, substr, join, as_string, to_number<T> and reduce_join
// (regex_full_match is in graph/strings_regex.hpp: <regex> costs every translation unit that
// includes it about 50 MB of compiler memory, so it is opt-in) (`+`, ==, != and sf::where work on strings as on numbers: graph/operators.hpp).
//
// Every op is elementwise (fused into the scalar loop of its consumer) except reduce_join, which
// is materialized like any reduction. The strings an op makes go to the calling thread's string
// pool (core/string.hpp), released when the call ends. Values an op cannot take (a number that
// does not parse, a substr position out of range) throw
// sf::invalid_argument_error, as TensorFlow raises InvalidArgumentError.
#pragma once

#include <array>
#include <cctype>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/core/axes.hpp"
#include "staticflow/core/errors.hpp"
#include "staticflow/core/string.hpp"
#include "staticflow/graph/child_refs.hpp"
#include "staticflow/graph/elementwise.hpp"
#include "staticflow/graph/operators.hpp"
#include "staticflow/graph/reduce.hpp"

namespace staticflow {
namespace detail {
// `b'text'`, as TensorFlow quotes a string in its messages.
inline std::string bytes_literal(string s) { return "b'" + s.str() + "'"; }
}  // namespace detail

namespace op {

/// tf.strings.length (unit BYTE): the number of bytes, int32.
struct string_length : elementwise_op<string_length, operands::text> {
  static constexpr std::string_view name = "string_length";
  static constexpr bool takes_strings = true;
  template <class T>
  using result = std::int32_t;
  static std::int32_t apply(string s) { return static_cast<std::int32_t>(s.size()); }
};

/// tf.strings.upper / lower: ASCII letters changed, every other byte kept.
template <bool Upper>
struct change_case : elementwise_op<change_case<Upper>, operands::text> {
  static constexpr std::string_view name = Upper ? "string_upper" : "string_lower";
  static constexpr bool takes_strings = true;
  static string apply(string s) {
    if (s.empty()) return s;
    char* out = staticflow::detail::string_pool::local().allocate(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
      const auto c = static_cast<unsigned char>(s.data()[i]);
      out[i] = static_cast<char>(Upper ? std::toupper(c) : std::tolower(c));
    }
    return {out, s.size()};
  }
};
using string_upper = change_case<true>;
using string_lower = change_case<false>;

/// tf.strings.as_string with its defaults: integers in decimal, floats as printf's "%f"
/// (`1.5` -> "1.500000"), bools as "true" / "false".
struct as_string : elementwise_op<as_string, operands::any> {
  static constexpr std::string_view name = "as_string";
  template <class T>
  using result = string;
  template <class T>
  static string apply(T v) {
    char buffer[64];
    int n = 0;
    if constexpr (std::is_same<T, bool>::value) return string(std::string_view(v ? "true" : "false"));
    else if constexpr (std::is_integral<T>::value) n = std::snprintf(buffer, sizeof buffer, "%lld", static_cast<long long>(v));
    else n = std::snprintf(buffer, sizeof buffer, "%f", static_cast<double>(v));
    if (n >= static_cast<int>(sizeof buffer)) {  // a double of 1e62 or more: every digit of "%f"
      std::string big(static_cast<std::size_t>(n), '\0');
      std::snprintf(big.data(), big.size() + 1, "%f", static_cast<double>(v));
      return staticflow::detail::pooled_string(std::string_view(big));
    }
    return staticflow::detail::pooled_string(std::string_view(buffer, static_cast<std::size_t>(n)));
  }
};

/// tf.strings.to_number: the whole string (spaces around it allowed) as a number of dtype T.
template <class T>
struct to_number : elementwise_op<to_number<T>, operands::text> {
  static constexpr std::string_view name = "string_to_number";
  static constexpr bool takes_strings = true;
  template <class U>
  using result = T;
  // (C's isspace, without a call into the C library per byte)
  static constexpr bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
  static T apply(string s) {
    std::string_view v = s.view();
    while (!v.empty() && is_space(v.front())) v.remove_prefix(1);
    while (!v.empty() && is_space(v.back())) v.remove_suffix(1);
    if (v.size() > 1 && v.front() == '+' && v[1] != '-') v.remove_prefix(1);  // from_chars takes no '+'
    T out{};
    const auto [end, error] = std::from_chars(v.data(), v.data() + v.size(), out);
    if (v.empty() || error != std::errc{} || end != v.data() + v.size())
      throw invalid_argument_error("to_number: cannot convert " + staticflow::detail::bytes_literal(s) + " to " +
                                   std::string(dtype_name<T>));
    return out;
  }
};

/// The two steps of tf.strings.substr (unit BYTE), each a binary op of a string and an integer:
/// drop the first `pos` bytes (pos < 0 counts from the end; beyond either end throws), then keep
/// at most `len` (len < 0 or past the end keeps the rest).
struct substr_from : elementwise_op<substr_from, operands::text> {
  static constexpr std::string_view name = "substr_from";
  static constexpr bool takes_strings = true;
  static constexpr bool mixed_operands = true;
  static string apply(string s, std::int64_t pos) {
    const auto size = static_cast<std::int64_t>(s.size());
    const std::int64_t at = pos < 0 ? pos + size : pos;
    if (at < 0 || at > size)
      throw invalid_argument_error("substr: pos " + std::to_string(pos) + " out of range for string " +
                                   staticflow::detail::bytes_literal(s));
    return {s.data() + at, static_cast<std::size_t>(size - at)};
  }
};
struct substr_length : elementwise_op<substr_length, operands::text> {
  static constexpr std::string_view name = "substr_length";
  static constexpr bool takes_strings = true;
  static constexpr bool mixed_operands = true;
  static string apply(string s, std::int64_t len) {
    if (len < 0 || static_cast<std::size_t>(len) >= s.size()) return s;
    return {s.data(), static_cast<std::size_t>(len)};
  }
};
}  // namespace op

namespace graph {
/// reduce_join of A over Axes: the strings of each reduced group joined in row-major order, with
/// `separator` between them (tf.strings.reduce_join).
template <class A, class Axes, bool Keep>
struct string_reduce_join : node<string_reduce_join<A, Axes, Keep>> {
  static_assert(string_dtype<typename A::value_type>, "staticflow: sf::strings::reduce_join needs a string tensor");
  static constexpr bool materialized = true;
  using value_type = string;
  using shape_type = typename detail::reduced_shape<typename A::shape_type, Axes, Keep>::type;
  A a;
  Axes axes;
  std::shared_ptr<const std::string> separator;
  string_reduce_join(A a_, Axes ax, std::shared_ptr<const std::string> sep)
      : a(a_), axes(ax), separator(std::move(sep)) {}

  constexpr child_refs<const A&> children() const { return {a}; }
  template <class C>
  auto with_children(const C& c) const { return string_reduce_join<C, Axes, Keep>(c, axes, separator); }
  bool same_parameters(const string_reduce_join& o) const {
    if constexpr (std::is_same<Axes, runtime_axis>::value)
      if (axes.axis != o.axes.axis) return false;
    return *separator == *o.separator;
  }
  std::string name() const {
    return "reduce_join" + detail::axes_string<A::shape_type::rank>(axes) + " separator='" + *separator + "'" +
           (Keep ? " keepdims=True]" : "]");
  }
  std::array<bool, A::shape_type::rank> mask() const { return detail::runtime_mask<A::shape_type::rank>(axes); }
  extents<shape_type::rank> result_extents(const extents<A::shape_type::rank>& in) const {
    return detail::reduced_extents<shape_type::rank, Keep>(mask(), in);
  }
};
}  // namespace graph

namespace strings {
namespace detail {
using staticflow::detail::as_node;
using staticflow::detail::tensor_operand;

template <class X>
constexpr auto string_node(const X& x) {
  const auto n = as_node<void>(x);
  static_assert(string_dtype<typename decltype(n)::value_type>,
                "staticflow: this sf::strings op needs a string tensor (sf::strings::as_string makes one)");
  return n;
}
template <class X>
constexpr auto integer_node(const X& x) {
  const auto n = as_node<void>(x);
  static_assert(integer_dtype<typename decltype(n)::value_type>,
                "staticflow: sf::strings::substr takes int32 or int64 positions and lengths");
  return n;
}
}  // namespace detail

/// The number of bytes of each string (tf.strings.length), int32.
template <class X>
  requires staticflow::detail::operand<X>
constexpr auto length(const X& x) {
  return staticflow::detail::make_unary<op::string_length>(x);
}
/// ASCII letters in upper / lower case (tf.strings.upper / lower).
template <class X>
  requires staticflow::detail::operand<X>
constexpr auto upper(const X& x) {
  return staticflow::detail::make_unary<op::string_upper>(x);
}
template <class X>
  requires staticflow::detail::operand<X>
constexpr auto lower(const X& x) {
  return staticflow::detail::make_unary<op::string_lower>(x);
}
/// Numbers (or bools) as strings (tf.strings.as_string with its defaults).
template <class X>
  requires staticflow::detail::operand<X>
constexpr auto as_string(const X& x) {
  const auto n = staticflow::detail::as_node<void>(x);
  static_assert(!string_dtype<typename decltype(n)::value_type>,
                "staticflow: sf::strings::as_string takes numbers or bools; this is a string tensor already");
  return graph::unary<op::as_string, decltype(n)>(n);
}
/// Each string parsed as a number of dtype T (tf.strings.to_number; T is float by default).
template <class T = float, class X>
  requires staticflow::detail::operand<X>
constexpr auto to_number(const X& x) {
  static_assert(numeric_dtype<T>, "staticflow: sf::strings::to_number<T> needs T = int32_t, int64_t, float or double");
  return graph::unary<op::to_number<T>, decltype(detail::string_node(x))>(detail::string_node(x));
}
/// `len` bytes of each string from byte `pos` (tf.strings.substr, unit BYTE): pos < 0 counts from
/// the end and a position beyond either end throws sf::invalid_argument_error; a substring past
/// the end is cut there. pos and len are integer tensors or C++ integers, broadcast against x.
template <class X, class Pos, class Len>
  requires staticflow::detail::operand<X> && staticflow::detail::operand<Pos> && staticflow::detail::operand<Len>
constexpr auto substr(const X& x, const Pos& pos, const Len& len) {
  const auto n = detail::string_node(x);
  const auto p = detail::integer_node(pos);
  const auto l = detail::integer_node(len);
  const auto from = graph::binary<op::substr_from, decltype(n), decltype(p)>(n, p);
  return graph::binary<op::substr_length, decltype(from), decltype(l)>(from, l);
}
namespace detail {
template <class Acc>
auto join_rest(const Acc& acc, const graph::literal<string>&) {
  return acc;
}
template <class Acc, class Y, class... Rest>
auto join_rest(const Acc& acc, const graph::literal<string>& separator, const Y& y, const Rest&... rest) {
  return join_rest(acc + separator + string_node(y), separator, rest...);
}
template <bool Keep, class X, class Axes>
auto reduce_join_of(const X& x, Axes axes, std::string_view separator) {
  const auto n = string_node(x);
  return graph::string_reduce_join<decltype(n), Axes, Keep>(n, axes, std::make_shared<const std::string>(separator));
}
}  // namespace detail

/// The strings of `inputs` (a std::tuple of string tensors or C++ text), elementwise, with
/// `separator` between them (tf.strings.join); inputs broadcast against each other.
template <class X, class... Rest>
  requires(staticflow::detail::operand<X> && (staticflow::detail::operand<Rest> && ...))
auto join(const std::tuple<X, Rest...>& inputs, std::string_view separator = "") {
  return staticflow::detail::apply([&](const auto& first, const auto&... rest) {
    return detail::join_rest(detail::string_node(first), graph::literal<string>(separator), rest...);
  }, inputs);
}

/// The strings of x joined along axes (all of them by default) in row-major order, with
/// `separator` between them (tf.strings.reduce_join); sf::keepdims keeps the reduced axes.
template <class X>
  requires staticflow::detail::tensor_operand<X>
auto reduce_join(const X& x, std::string_view separator = "") {
  return detail::reduce_join_of<false>(x, all_axes{}, separator);
}
template <class X>
  requires staticflow::detail::tensor_operand<X>
auto reduce_join(const X& x, keepdims_t, std::string_view separator = "") {
  return detail::reduce_join_of<true>(x, all_axes{}, separator);
}
template <class X, int... A>
  requires staticflow::detail::tensor_operand<X>
auto reduce_join(const X& x, axes<A...> ax, std::string_view separator = "") {
  return detail::reduce_join_of<false>(x, ax, separator);
}
template <class X, int... A>
  requires staticflow::detail::tensor_operand<X>
auto reduce_join(const X& x, axes<A...> ax, keepdims_t, std::string_view separator = "") {
  return detail::reduce_join_of<true>(x, ax, separator);
}
template <class X>
  requires staticflow::detail::tensor_operand<X>
auto reduce_join(const X& x, int axis, std::string_view separator = "") {
  return detail::reduce_join_of<false>(x, runtime_axis{axis}, separator);
}
template <class X>
  requires staticflow::detail::tensor_operand<X>
auto reduce_join(const X& x, int axis, keepdims_t, std::string_view separator = "") {
  return detail::reduce_join_of<true>(x, runtime_axis{axis}, separator);
}
}  // namespace strings
}  // namespace staticflow
