// staticflow/graph/strings_regex.hpp -- sf::strings::regex_full_match (tf.strings.regex_full_match),
// opt-in: `#include <staticflow/graph/strings_regex.hpp>` after <staticflow/staticflow.hpp>.
// <regex> costs every translation unit that includes it about 50 MB of compiler memory and half a
// second (g++ 12), which staticflow.hpp does not impose on programs without regular expressions.
#pragma once

#include <regex>
#include <string>

#include "staticflow/core/errors.hpp"
#include "staticflow/core/string.hpp"
#include "staticflow/graph/elementwise.hpp"
#include "staticflow/graph/strings.hpp"

namespace staticflow {
namespace op {

/// tf.strings.regex_full_match: whether the whole string matches the pattern (ECMAScript syntax,
/// std::regex; TensorFlow uses RE2, whose syntax agrees on the common constructs). The last
/// pattern compiled is kept per thread, so a constant pattern compiles once.
struct regex_full_match : comparison_op<regex_full_match, operands::text> {
  static constexpr std::string_view name = "regex_full_match";
  static constexpr bool takes_strings = true;
  static bool apply(string s, string pattern) {
    struct compiled {
      std::string text;
      std::regex regex;
      bool valid = false;
    };
    thread_local compiled last;
    if (!last.valid || last.text != pattern.view()) {
      last.valid = false;
      try {
        last.regex = std::regex(pattern.data(), pattern.size());
      } catch (const std::regex_error& e) {
        throw invalid_argument_error("regex_full_match: invalid pattern " + staticflow::detail::bytes_literal(pattern) + ": " +
                                     e.what());
      }
      last.text = pattern.str();
      last.valid = true;
    }
    return std::regex_match(s.data(), s.data() + s.size(), last.regex);
  }
};

}  // namespace op

namespace strings {

/// Whether each whole string matches `pattern` (tf.strings.regex_full_match); the pattern is a
/// string tensor too, usually a literal (`"[a-z]+"`), broadcast against x.
template <class X, class P>
  requires staticflow::detail::operand<X> && staticflow::detail::operand<P>
constexpr auto regex_full_match(const X& x, const P& pattern) {
  const auto n = detail::string_node(x);
  const auto p = detail::string_node(pattern);
  return graph::binary<op::regex_full_match, decltype(n), decltype(p)>(n, p);
}
}  // namespace strings
}  // namespace staticflow
