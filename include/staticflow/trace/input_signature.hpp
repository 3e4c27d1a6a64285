// staticflow/trace/input_signature.hpp -- checking a call against an input signature
// (sf::function<sf::spec<float, sf::dyn>>): statically where the argument types tell, at run time
// where only the values do.
//
// A static mismatch is a compile error whose text names the argument, the expected and the actual
// spec. A static_assert message must be a string literal in C++20, so the computed message is
// the template argument of `input_signature_mismatch<...>`, which GCC and Clang print in the
// instantiation context next to the `staticflow:` static assertion:
//
//   In instantiation of 'struct staticflow::detail::input_signature_mismatch<staticflow::detail::
//     ct_string<256>{"staticflow: argument 0 is int32[None], the input signature expects
//     float32[None] (dtype int32 is not float32)"}>'
//   error: static assertion failed: staticflow: a call does not match the input signature ...
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>

#include "staticflow/core/dtype.hpp"
#include "staticflow/core/errors.hpp"
#include "staticflow/core/shape.hpp"
#include "staticflow/core/spec.hpp"
#include "staticflow/core/static_value.hpp"

namespace staticflow::detail {

/// A string built at compile time, usable as a template argument (so diagnostics print it).
template <std::size_t N>
struct ct_string {
  char text[N]{};

  constexpr std::size_t size() const {
    std::size_t n = 0;
    while (n < N && text[n] != '\0') ++n;
    return n;
  }
  constexpr ct_string& operator+=(std::string_view s) {
    std::size_t n = size();
    for (char c : s)
      if (n + 1 < N) text[n++] = c;
    return *this;
  }
  constexpr ct_string& operator+=(std::size_t v) {
    char digits[24]{};
    std::size_t k = 0;
    do {
      digits[k++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v != 0);
    char out[24]{};
    for (std::size_t i = 0; i < k; ++i) out[i] = digits[k - 1 - i];
    return *this += std::string_view(out, k);
  }
  constexpr ct_string& append_signed(long long v) {
    if (v < 0) {
      *this += "-";
      return *this += static_cast<std::size_t>(-(v + 1)) + 1;
    }
    return *this += static_cast<std::size_t>(v);
  }
};

using message_string = ct_string<256>;

/// Instantiated only for a call that does not match the input signature; the message is its
/// template argument.
template <message_string Message>
inline constexpr bool never_ok = false;

template <message_string Message>
struct input_signature_mismatch {
  static_assert(never_ok<Message>,
                "staticflow: a call does not match the input signature (the message, with the argument, "
                "the expected and the actual spec, is the template argument of input_signature_mismatch "
                "in the instantiation above)");
};

/// `float32[None,3]` at compile time (the short form of core/spec.hpp).
template <class T, std::size_t... D>
constexpr void append_spec(message_string& s, spec<T, D...>) {
  s += dtype_name<T>;
  s += "[";
  std::size_t i = 0;
  ((s += (i++ ? "," : ""), D == dyn ? (s += "None", 0) : (s += D, 0)), ...);
  s += "]";
}
template <class T, T V>
constexpr void append_entry(message_string& s, std::integral_constant<T, V>) {
  s += "Literal[";
  if constexpr (std::is_same<T, bool>::value) s += V ? "True" : "False";
  else if constexpr (std::is_signed<T>::value) s.append_signed(static_cast<long long>(V));
  else s += static_cast<std::size_t>(V);
  s += "]";
}
template <class T, std::size_t... D>
constexpr void append_entry(message_string& s, spec<T, D...> e) {
  append_spec(s, e);
}

/// How an argument whose signature entry is `Actual` (a spec, or a static value) compares with
/// the input signature's spec `Expected`: fine, fine if its run-time dims agree, or a mismatch.
enum class entry_match { ok, check_dims, value, dtype, rank, dim };

template <class Expected, class Actual>
constexpr entry_match match_entry() {
  if constexpr (!spec_type<Actual>) {
    return entry_match::value;
  } else if constexpr (!std::is_same<typename Expected::value_type, typename Actual::value_type>::value) {
    return entry_match::dtype;
  } else if constexpr (Expected::rank != Actual::rank) {
    return entry_match::rank;
  } else {
    bool runtime = false;
    for (std::size_t d = 0; d < Expected::rank; ++d) {
      const std::size_t e = Expected::shape_type::dims[d], a = Actual::shape_type::dims[d];
      if (e == dyn) continue;
      if (a == dyn) runtime = true;
      else if (a != e) return entry_match::dim;
    }
    return runtime ? entry_match::check_dims : entry_match::ok;
  }
}

template <std::size_t I, class Expected, class Actual>
constexpr message_string entry_mismatch_message() {
  message_string s;
  s += "staticflow: argument ";
  s += I;
  s += " is ";
  append_entry(s, Actual{});
  s += ", the input signature expects ";
  append_spec(s, Expected{});
  constexpr entry_match m = match_entry<Expected, Actual>();
  if constexpr (m == entry_match::value) {
    s += " (an input signature takes tensors, not static values)";
  } else if constexpr (m == entry_match::dtype) {
    s += " (dtype ";
    s += dtype_name<typename Actual::value_type>;
    s += " is not ";
    s += dtype_name<typename Expected::value_type>;
    s += ")";
  } else if constexpr (m == entry_match::rank) {
    s += " (rank ";
    s += Actual::rank;
    s += " is not ";
    s += Expected::rank;
    s += ")";
  } else {
    for (std::size_t d = 0; d < Expected::rank; ++d) {
      const std::size_t e = Expected::shape_type::dims[d], a = Actual::shape_type::dims[d];
      if (e != dyn && a != dyn && a != e) {
        s += " (dimension ";
        s += d;
        s += " is ";
        s += a;
        s += ", not ";
        s += e;
        s += ")";
        break;
      }
    }
  }
  return s;
}

/// An argument of run-time rank (xt::xarray) has a static dtype: checked here, its rank at run time.
template <std::size_t I, class Expected, class T>
constexpr message_string runtime_rank_mismatch_message() {
  message_string s;
  s += "staticflow: argument ";
  s += I;
  s += " is an xt::xarray of ";
  s += dtype_name<T>;
  s += ", the input signature expects ";
  append_spec(s, Expected{});
  s += " (dtype ";
  s += dtype_name<T>;
  s += " is not ";
  s += dtype_name<typename Expected::value_type>;
  s += ")";
  return s;
}

template <std::size_t Passed, std::size_t Expected>
constexpr message_string arity_message() {
  message_string s;
  s += "staticflow: the call passes ";
  s += Passed;
  s += Passed == 1 ? " argument" : " arguments";
  s += ", the input signature has ";
  s += Expected;
  return s;
}

template <std::size_t Given, std::size_t Expected>
constexpr message_string arg_names_message() {
  message_string s;
  s += "staticflow: sf::arg_names gives ";
  s += Given;
  s += Given == 1 ? " name" : " names";
  s += ", the input signature has ";
  s += Expected;
  s += Expected == 1 ? " argument" : " arguments";
  return s;
}

/// Instantiated only for an sf::function<...> declaration that cannot work; the message is its
/// template argument.
template <message_string Message>
struct invalid_function_declaration {
  static_assert(never_ok<Message>,
                "staticflow: this sf::function declaration is invalid (the message is the template "
                "argument of invalid_function_declaration in the instantiation above)");
};

/// Fails to compile, with Message, when Ok is false; true otherwise.
template <bool Ok, message_string Message>
constexpr bool require() {
  if constexpr (!Ok) (void)input_signature_mismatch<Message>{};
  return Ok;
}
template <bool Ok, message_string Message>
constexpr bool require_declaration() {
  if constexpr (!Ok) (void)invalid_function_declaration<Message>{};
  return Ok;
}

// ---- run-time messages ------------------------------------------------------------------

/// `argument 0` or `argument 0 (x)`.
inline std::string argument_label(std::size_t i, const std::string* names, std::size_t name_count) {
  std::string s = "argument " + std::to_string(i);
  if (i < name_count && !names[i].empty()) s += " (" + names[i] + ")";
  return s;
}

/// `float32[2,3]`: a dtype and run-time extents (`None` for a dimension a spec leaves free).
template <class Extents>
std::string runtime_spec_string(std::string_view dtype, const Extents& ext, std::size_t rank) {
  std::string s = std::string(dtype) + "[";
  for (std::size_t d = 0; d < rank; ++d) {
    s += d ? "," : "";
    s += ext[d] == dyn ? std::string("None") : std::to_string(ext[d]);
  }
  return s + "]";
}

/// `(2, 3)` / `(None, 3)`, TensorFlow's spelling of a shape.
template <class Extents>
std::string runtime_shape_string(const Extents& ext, std::size_t rank) {
  std::string s = "(";
  for (std::size_t d = 0; d < rank; ++d) {
    s += d ? ", " : "";
    s += ext[d] == dyn ? std::string("None") : std::to_string(ext[d]);
  }
  if (rank == 1) s += ",";
  return s + ")";
}

}  // namespace staticflow::detail
