// staticflow/trace/signature.hpp -- the signature of a call: one entry per argument, a spec for a
// tensor or the static value itself. Each signature is a type, so the compiler is the cache of
// concrete functions; the symbolic arguments a trace hands to the lambda come from it.
#pragma once

#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticflow/core/spec.hpp"
#include "staticflow/core/static_value.hpp"
#include "staticflow/graph/leaf.hpp"
#include "staticflow/interop/xtensor.hpp"

namespace staticflow {

/// A spec handed where an argument goes (get_concrete_function) stands for itself.
template <class T, std::size_t... D>
struct argument_traits<spec<T, D...>> {
  static constexpr bool supported = true;
  using signature_type = spec<T, D...>;
};

namespace detail {

template <class A>
struct checked_argument {
  static_assert(argument_traits<std::remove_cvref_t<A>>::supported,
                "staticflow: unsupported argument type: pass a row-major xt::xtensor_fixed, xt::xtensor "
                "or xt::adapt view of bool, int32_t, int64_t, float or double, a C++ scalar, an "
                "sf::static_value or (to get_concrete_function) an sf::spec");
  using type = signature_entry_t<A>;
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

template <class Entry>
std::string entry_string() {
  if constexpr (spec_type<Entry>) return tensor_spec_string<Entry>();
  else return static_value_string(Entry{});
}

/// The "Input Parameters" lines of TensorFlow's pretty-printed signature.
template <class Sig>
std::string input_parameters_string() {
  std::string s;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    ((s += "  arg" + std::to_string(I) + " (POSITIONAL_ONLY): " + entry_string<std::tuple_element_t<I, Sig>>() + "\n"), ...);
  }(std::make_index_sequence<std::tuple_size_v<Sig>>{});
  return s;
}

/// One unique address per type: the key of a signature in a function's cache.
template <class T>
inline constexpr char type_key = 0;

}  // namespace detail
}  // namespace staticflow
