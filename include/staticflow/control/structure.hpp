// staticflow/control/structure.hpp -- what the combinators share: turning the values a branch or
// body returns into a tuple of nodes, checking that two such tuples agree spec by spec, and the
// compile-time messages that name the position and both specs.
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticflow/core/spec.hpp"
#include "staticflow/core/value_pack.hpp"
#include "staticflow/graph/leaf.hpp"
#include "staticflow/graph/node.hpp"
#include "staticflow/graph/operators.hpp"
#include "staticflow/trace/input_signature.hpp"

namespace staticflow {
namespace detail {

/// Instantiated only for misuse of a control-flow combinator; the message is its template argument
/// (a static_assert message must be a literal in C++20), printed by GCC and Clang in the
/// instantiation context next to the assertion.
template <message_string Message>
struct control_flow_error {
  static_assert(never_ok<Message>,
                "staticflow: control flow misuse (the message, with the position and the specs, is the "
                "template argument of control_flow_error in the instantiation above)");
};

/// Fails to compile with `Message` unless Ok.
template <bool Ok, message_string Message>
constexpr void control_flow_check() {
  if constexpr (!Ok) (void)sizeof(control_flow_error<Message>);
}

/// A value a branch or body may return or a loop may start from: a symbolic tensor, or a C++
/// number (a literal of its canonical dtype).
template <class V>
constexpr auto to_node(const V& v) {
  if constexpr (symbolic<V>) {
    return v;
  } else {
    static_assert(std::is_arithmetic<V>::value || static_value_type<V> || is_text_v<V>,
                  "staticflow: a control-flow value must be a symbolic tensor, a C++ number or C++ text");
    return as_node<void>(v);
  }
}

/// The same, with a C++ number taking its dtype from Spec (a weakly typed literal, as `x * 2`
/// keeps x's dtype): a body may return `0` for an int64 variable.
template <class Spec, class V>
constexpr auto to_node_as(const V& v) {
  if constexpr (symbolic<V>) {
    return v;
  } else {
    using T = typename Spec::value_type;
    if constexpr (string_dtype<T>) return graph::literal<T>(std::string_view(v));
    else return graph::literal<T>(static_cast<T>(literal_value(v)));
  }
}

template <class Specs, class... V>
constexpr auto to_nodes_as(const std::tuple<V...>& values) {
  return [&]<std::size_t... K>(std::index_sequence<K...>) {
    return std::tuple{to_node_as<std::tuple_element_t<K, Specs>>(staticflow::detail::get<K>(values))...};
  }(std::index_sequence_for<V...>{});
}

template <class... V>
constexpr auto to_nodes(const std::tuple<V...>& values) {
  return staticflow::detail::apply([](const auto&... v) { return std::tuple{to_node(v)...}; }, values);
}

template <class Nodes>
struct specs_of_nodes;
template <class... N>
struct specs_of_nodes<std::tuple<N...>> {
  using type = std::tuple<spec_of_node_t<N>...>;
};
template <class Nodes>
using specs_of_nodes_t = typename specs_of_nodes<Nodes>::type;

/// One result, or a tuple of them, as the combinators hand them back.
template <class Tuple>
constexpr auto unwrap_single(Tuple&& t) {
  if constexpr (std::tuple_size<std::remove_cvref_t<Tuple>>::value == 1) return std::get<0>(std::forward<Tuple>(t));
  else return std::forward<Tuple>(t);
}

template <class Spec>
constexpr void append_spec_of(message_string& s) {
  append_spec(s, Spec{});
}

/// `staticflow: <what> <position> is <a> <in_a> and <b> <in_b>`: for a spec mismatch at Position.
template <class A, class B, std::size_t Position>
constexpr message_string spec_mismatch_message(std::string_view what, std::string_view in_a, std::string_view in_b,
                                               std::string_view hint) {
  message_string s;
  s += "staticflow: ";
  s += what;
  s += " ";
  s += Position;
  s += " is ";
  append_spec(s, A{});
  s += " ";
  s += in_a;
  s += " and ";
  append_spec(s, B{});
  s += " ";
  s += in_b;
  s += hint;
  return s;
}

}  // namespace detail
}  // namespace staticflow
