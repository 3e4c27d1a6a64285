// staticflow/trace/signature.hpp -- the signature of a call: one entry per argument, a spec for a
// tensor or the static value itself. Each signature is a type, so the compiler is the cache of
// concrete functions; the symbolic arguments a trace hands to the lambda come from it.
#pragma once

#include <concepts>
#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "staticflow/core/spec.hpp"
#include "staticflow/core/static_value.hpp"
#include "staticflow/graph/external.hpp"
#include "staticflow/graph/leaf.hpp"
#include "staticflow/interop/xtensor.hpp"

namespace staticflow {

/// A spec handed where an argument goes (get_concrete_function) stands for itself.
template <class T, std::size_t... D>
struct argument_traits<spec<T, D...>> {
  static constexpr bool supported = true;
  using value_type = T;
  using signature_type = spec<T, D...>;
};

namespace detail {

template <class A>
struct signature_entry_of {
  using type = signature_entry_t<A>;
};

template <class A>
struct checked_argument {
  static constexpr bool ok = argument_traits<std::remove_cvref_t<A>>::supported;
  static_assert(ok,
                "staticflow: unsupported argument type: pass a row-major xt::xtensor_fixed, xt::xtensor "
                "or xt::adapt view (or an xt::xarray or sf::tensor) of bool, int32_t, int64_t, float or "
                "double (xtensor containers also of std::string), a C++ scalar or C++ text, an "
                "sf::static_value or (to get_concrete_function) an sf::spec");
  // After the report, a stand-in entry: naming the missing one would be a second error.
  using type = typename std::conditional_t<ok, signature_entry_of<A>, std::type_identity<spec<float>>>::type;
};

/// The signature of a call with arguments Args: a std::tuple of entries.
template <class... Args>
using signature_of_t = std::tuple<typename checked_argument<Args>::type...>;

/// What the traced lambda receives for entry I: a symbolic argument, or the static value itself.
template <std::size_t I, class Entry>
constexpr auto symbolic_argument() {
  if constexpr (spec_type<Entry>) return graph::argument<I, typename Entry::value_type, typename Entry::shape_type>{};
  else return Entry{};
}

/// What the lambda receives for entry I, Entry, in an eager call: an eager value over the
/// argument's data (graph/external.hpp), or the static value itself.
template <std::size_t I, class Entry>
constexpr auto eager_argument(const graph::external_source* source) {
  if constexpr (spec_type<Entry>) return graph::eager_argument_value<typename Entry::value_type, typename Entry::shape_type, I>(source);
  else return Entry{};
}

/// What the lambda returns when traced with signature Sig: the graph's type.
template <class Fn, class Sig, std::size_t... I>
auto traced_result_of(std::index_sequence<I...>)
    -> decltype(std::declval<Fn&>()(symbolic_argument<I, std::tuple_element_t<I, Sig>>()...));
/// Whether a traced lambda's result is a graph: a symbolic tensor, a tuple of them, or nothing.
template <class Result>
inline constexpr bool returns_tensors = symbolic<Result> || std::is_void<Result>::value;
template <class... N>
inline constexpr bool returns_tensors<std::tuple<N...>> = (symbolic<N> && ...);

template <class Result>
struct checked_result {
  static constexpr bool ok = returns_tensors<Result>;
  static_assert(ok,
                "staticflow: a traced function must return a symbolic tensor, a std::tuple of them, or "
                "nothing; it returned a plain C++ value (tensors come from the arguments and ops)");
};

/// The graph's type; void after a lambda that returned a plain C++ value has been reported, so
/// nothing is planned over it (one error line, not one per planning pass).
template <class Fn, class Sig>
struct traced_result {
  using returned = decltype(traced_result_of<Fn, Sig>(std::make_index_sequence<std::tuple_size<Sig>::value>{}));
  static constexpr bool ok = checked_result<returned>::ok;
  using type = std::conditional_t<ok, returned, void>;
};

/// What a call returns after its static check reported a mistake (an unsupported argument, a
/// signature mismatch): every use of it compiles, so the report stays the one error line (with a
/// `void` result, `auto y = f(x);` would add "'void y' has incomplete type").
struct reported_call {
  template <class... A>
  constexpr reported_call operator()(const A&...) const { return {}; }
  template <class A>
  constexpr reported_call operator[](const A&) const { return {}; }
  template <class T>
    requires std::default_initializable<T>
  constexpr operator T() const { return T{}; }
};
/// One for the calls that return a reference (`auto& c = f.get_concrete_function(...)`).
inline reported_call& reported_call_object() {
  static reported_call r;
  return r;
}

template <class Entry>
std::string entry_string() {
  if constexpr (spec_type<Entry>) return tensor_spec_string<Entry>();
  else return static_value_string(Entry{});
}

/// The "Input Parameters" lines from each entry's text.
inline std::string input_parameters_lines(const std::string* entries, std::size_t count) {
  std::string s;
  for (std::size_t i = 0; i < count; ++i) {
    s += "  arg";
    s += std::to_string(i);
    s += " (POSITIONAL_ONLY): ";
    s += entries[i];
    s += '\n';
  }
  return s;
}

/// The "Input Parameters" lines of TensorFlow's pretty-printed signature. Each entry's text, then
/// one loop shared by every signature: a fold of string temporaries here inlined about 30 KB of
/// code per signature (bench/compile_time.sh's 50-node chain: 190 -> 155 KB of object code).
template <class Sig>
std::string input_parameters_string() {
  return []<std::size_t... I>(std::index_sequence<I...>) {
    if constexpr (sizeof...(I) == 0) {
      return std::string{};
    } else {
      const std::string entries[] = {entry_string<std::tuple_element_t<I, Sig>>()...};
      return input_parameters_lines(entries, sizeof...(I));
    }
  }(std::make_index_sequence<std::tuple_size<Sig>::value>{});
}

/// Replaces the default parameter names (arg0, arg1, ...) of a pretty-printed signature with
/// the given ones.
inline std::string rename_parameters(std::string s, const std::vector<std::string>& names) {
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string from = "\n  arg" + std::to_string(i) + " (POSITIONAL_ONLY): ";
    const std::string to = "\n  " + names[i] + " (POSITIONAL_ONLY): ";
    if (const auto at = s.find(from); at != std::string::npos) s.replace(at, from.size(), to);
  }
  return s;
}

/// One entry of a signature as run-time data, to compare signatures (explain_miss).
struct entry_description {
  bool is_tensor = true;
  std::string dtype;               // "float32"; empty for a static value
  std::vector<std::size_t> dims;   // `dyn` for a free dimension
  std::string text;                // "float32[None,3]" or "Literal[2]"
};
using signature_description = std::vector<entry_description>;

template <class Entry>
entry_description describe_entry() {
  if constexpr (spec_type<Entry>) {
    const auto& dims = Entry::shape_type::dims;
    return {true, std::string(dtype_name<typename Entry::value_type>), std::vector<std::size_t>(dims.begin(), dims.end()),
            short_spec_string(Entry{})};
  } else {
    return {false, {}, {}, static_value_string(Entry{})};
  }
}

template <class Sig>
signature_description describe_signature() {
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    return signature_description{describe_entry<std::tuple_element_t<I, Sig>>()...};
  }(std::make_index_sequence<std::tuple_size<Sig>::value>{});
}

/// `(float32[None], Literal[2])`.
inline std::string signature_text(const signature_description& d) {
  std::string s = "(";
  for (std::size_t i = 0; i < d.size(); ++i) s += i ? ", " : "", s += d[i].text;
  return s + ")";
}

/// One unique address per type: the key of a signature in a function's cache.
template <class T>
inline constexpr char type_key = 0;

}  // namespace detail
}  // namespace staticflow
