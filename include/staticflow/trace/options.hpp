// staticflow/trace/options.hpp -- what sf::function<...>(fn, ...) can be told.
//
// Template arguments (types, fixed at compile time):
//   sf::spec<T, D...>...            the input signature, one spec per argument (tf.function's
//                                   input_signature): one graph serves every call, mismatches are
//                                   compile errors or sf::signature_error
//   sf::specialize<V...>            shape specializations: fully (or partly) static variants that
//                                   run-time shapes are dispatched to when they match
//   sf::dtypes<T...>, sf::ranks<R...>  the variants compiled for arguments of run-time dtype
//                                   (sf::tensor) and rank (xt::xarray, sf::tensor)
// Function arguments (values):
//   sf::backend::cpu / eager / thrust, sf::arg_names("x", "y"), sf::function_name("f"), sf::cache_capacity(n)
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>

#include "staticflow/backend/backend.hpp"
#include "staticflow/core/dtype.hpp"
#include "staticflow/core/shape.hpp"
#include "staticflow/core/spec.hpp"

namespace staticflow {

/// One shape per argument, for a specialization of a function of several arguments:
/// `sf::specialize<sf::shapes<sf::shape<4>, sf::shape<4>>>`.
template <class... Shapes>
struct shapes {
  static_assert((detail::is_shape<Shapes>::value && ...),
                "staticflow: sf::shapes<...> takes one sf::shape<...> per argument");
};

/// Shape specializations. Each V is an `sf::shape<D...>` (every argument with run-time dimensions
/// has this shape) or an `sf::shapes<S...>` (one shape per argument); `sf::dyn` dims stay free.
/// A call whose run-time shapes match a specialization runs its static variant; the most
/// specific match (most static dimensions) wins, else the general variant runs.
template <class... V>
struct specialize {};

/// The dtypes compiled for arguments whose dtype is known only at run time (sf::tensor).
/// Default: float and double.
template <class... T>
struct dtypes {
  static_assert((dtype<T> && ...), "staticflow: sf::dtypes<...> takes bool, int32_t, int64_t, float or double");
};

/// The ranks compiled for arguments whose rank is known only at run time. Default: 0 to 4.
template <std::size_t... R>
struct ranks {
  static_assert(((R <= 8) && ...), "staticflow: sf::ranks<...> supports ranks 0 to 8");
};

/// Parameter names for signatures and messages: `sf::arg_names("x", "y")` (else arg0, arg1, ...).
template <std::size_t N>
struct arg_names_t {
  std::array<std::string, N> names;
};
template <class... S>
arg_names_t<sizeof...(S)> arg_names(const S&... names) {
  return {{std::string(names)...}};
}

/// The name used in log messages (else the lambda's type).
struct function_name {
  explicit function_name(std::string n) : value(std::move(n)) {}
  std::string value;
};

/// The most concrete functions one polymorphic function may hold (default 256). A call that
/// would trace one more throws sf::signature_error; clear_cache() empties the cache.
struct cache_capacity {
  explicit cache_capacity(std::size_t n) : value(n) {}
  std::size_t value;
};

namespace detail {
template <class T> struct is_specialize : std::false_type {};
template <class... V> struct is_specialize<specialize<V...>> : std::true_type {};
template <class T> struct is_dtypes : std::false_type {};
template <class... T> struct is_dtypes<dtypes<T...>> : std::true_type {};
template <class T> struct is_ranks : std::false_type {};
template <std::size_t... R> struct is_ranks<ranks<R...>> : std::true_type {};
template <class T> struct is_shapes : std::false_type {};
template <class... S> struct is_shapes<shapes<S...>> : std::true_type {};
template <class T> struct is_arg_names : std::false_type {};
template <std::size_t N> struct is_arg_names<arg_names_t<N>> : std::true_type {};

template <class T>
inline constexpr bool is_backend_v = std::is_same<T, backend::cpu_t>::value || std::is_same<T, backend::eager_t>::value ||
                                    std::is_same<T, backend::thrust_t>::value;

template <class X>
struct checked_template_option {
  static constexpr bool ok = is_spec<X>::value || is_specialize<X>::value || is_dtypes<X>::value || is_ranks<X>::value;
  static_assert(ok,
                "staticflow: sf::function<...> takes sf::spec<...> (the input signature), "
                "sf::specialize<...>, sf::dtypes<...> and sf::ranks<...>");
};

template <class X>
using spec_or_nothing = std::conditional_t<is_spec<X>::value, std::tuple<X>, std::tuple<>>;

template <class X>
struct specializations_of {
  using type = std::tuple<>;
};
template <class... V>
struct specializations_of<specialize<V...>> {
  using type = std::tuple<V...>;
};

template <class Default, class... X>
struct last_matching;  // the last X that is a dtypes<> / ranks<> like Default, else Default
template <class Default>
struct last_matching<Default> {
  using type = Default;
};
template <class Default, class X, class... Rest>
struct last_matching<Default, X, Rest...> {
  using rest = typename last_matching<Default, Rest...>::type;
  static constexpr bool rest_found = !std::is_same<rest, Default>::value;
  static constexpr bool matches = (is_dtypes<Default>::value && is_dtypes<X>::value) ||
                                  (is_ranks<Default>::value && is_ranks<X>::value);
  using type = std::conditional_t<rest_found, rest, std::conditional_t<matches, X, Default>>;
};

// A dtypes<> list naming a type that is no dtype has been reported (dtypes' static_assert); the
// default list stands in for it so no spec<T, ...> of that type adds errors after the one.
template <class D>
struct usable_dtypes {
  using type = D;
};
template <class... T>
  requires(!(dtype<T> && ...))
struct usable_dtypes<dtypes<T...>> {
  static_assert(sizeof(dtypes<T...>) != 0);  // instantiates dtypes<T...>, whose assertion reports
  using type = dtypes<float, double>;
};

/// The template arguments of sf::function<...>, sorted out.
template <class... X>
struct function_config {
  static constexpr bool options_ok = (checked_template_option<X>::ok && ...);  // each reports its own
  /// The input signature: a std::tuple of specs (empty when none was given).
  using signature = decltype(std::tuple_cat(spec_or_nothing<X>{}...));
  static constexpr bool has_signature = std::tuple_size<signature>::value > 0;
  using specializations = decltype(std::tuple_cat(typename specializations_of<X>::type{}...));
  static constexpr std::size_t specialization_count = std::tuple_size<specializations>::value;
  using dtype_list = typename usable_dtypes<typename last_matching<dtypes<float, double>, X...>::type>::type;
  using rank_list = typename last_matching<ranks<0, 1, 2, 3, 4>, X...>::type;
};

/// The backend among the run-time options (default: cpu).
template <class... O>
struct backend_of {
  using type = backend::cpu_t;
};
template <class O, class... Rest>
struct backend_of<O, Rest...> {
  using type = std::conditional_t<is_backend_v<O>, O, typename backend_of<Rest...>::type>;
};

/// How many names the options give (0 when sf::arg_names is not among them).
template <class... O>
inline constexpr std::size_t arg_name_count = 0;
template <class O, class... Rest>
inline constexpr std::size_t arg_name_count<O, Rest...> = [] {
  if constexpr (is_arg_names<O>::value) return std::tuple_size<decltype(O::names)>::value;
  else return arg_name_count<Rest...>;
}();

template <class O>
struct checked_run_time_option {
  static constexpr bool ok = is_backend_v<O> || is_arg_names<O>::value || std::is_same<O, function_name>::value ||
                             std::is_same<O, cache_capacity>::value;
  static_assert(ok,
                "staticflow: sf::function(fn, ...) takes a backend (sf::backend::cpu, sf::backend::eager), "
                "sf::arg_names(...), sf::function_name(...) and sf::cache_capacity(n)");
};
}  // namespace detail
}  // namespace staticflow
