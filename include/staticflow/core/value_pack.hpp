// staticflow/core/value_pack.hpp -- a minimal heterogeneous list of values, for the walks over a
// graph that concatenate many small lists (one per node) into one: the planner's slots, the
// adjoints of backprop's accumulation points.
//
// std::tuple is what the plan hands out, but building it by std::tuple_cat at every node made each
// intermediate list a std::tuple type of its own, and every std::tuple type and construction
// instantiates libstdc++'s constructor constraints (std::__and_ of is_constructible, ... per
// element): in clang's -ftime-trace of a gradient test, half of the planner's instantiation time.
// A value_pack is an aggregate (no constructors, nothing to resolve); the walk concatenates
// value_packs and the plan makes one std::tuple at the end. A call's views and extents, a loop's
// state and the kernels' cursors are value_packs for the same reason (docs/architecture.md,
// "What a call site costs the compiler").
#pragma once

#include <array>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace staticflow::detail {

/// Whether T is a std::tuple: a function's several results, a tuple of gradients or loop values.
template <class T> struct is_tuple : std::false_type {};
template <class... T> struct is_tuple<std::tuple<T...>> : std::true_type {};

/// One value or a std::tuple of them (what a branch or body returned, the gradients of one or
/// several sources) as a std::tuple.
template <class R>
constexpr auto as_tuple(R&& r) {
  if constexpr (is_tuple<std::remove_cvref_t<R>>::value) return std::forward<R>(r);
  else return std::tuple<std::remove_cvref_t<R>>{std::forward<R>(r)};
}

template <std::size_t I, class T>
struct pack_leaf {
  [[no_unique_address]] T value;  // (a kernel's unused_cursor takes no room)
};
template <class Indices, class... T>
struct pack_storage;
template <std::size_t... I, class... T>
struct pack_storage<std::index_sequence<I...>, T...> : pack_leaf<I, T>... {};

/// Values of types T..., element I read with pack_get<I>.
template <class... T>
struct value_pack {
  using storage_type = pack_storage<std::index_sequence_for<T...>, T...>;
  static constexpr std::size_t size = sizeof...(T);
  storage_type storage;
};

template <std::size_t I, class T>
constexpr const T& pack_get(const pack_leaf<I, T>& leaf) {
  return leaf.value;
}
template <std::size_t I, class T>
constexpr T& pack_get(pack_leaf<I, T>& leaf) {
  return leaf.value;
}
// (decltype(auto) here and in get below: an element that is a reference stays T&, as std::get's)
template <std::size_t I, class... T>
constexpr decltype(auto) pack_get(const value_pack<T...>& p) {
  return pack_get<I>(p.storage);
}
template <std::size_t I, class... T>
constexpr auto& pack_get(value_pack<T...>& p) {
  return pack_get<I>(p.storage);
}

/// A value_pack of the values (what `std::tuple{v...}` gives, without std::tuple's constructor
/// overloads and their constraints: the fused loops' cursors, built once per kernel).
template <class... T>
constexpr value_pack<T...> pack_values(T... v) {
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    return value_pack<T...>{{pack_leaf<I, T>{v}...}};
  }(std::index_sequence_for<T...>{});
}

/// f(values...): std::apply for a value_pack.
template <class F, class... T>
constexpr decltype(auto) pack_apply(F&& f, const value_pack<T...>& p) {
  return [&]<std::size_t... I>(std::index_sequence<I...>) -> decltype(auto) {
    return std::forward<F>(f)(pack_get<I>(p)...);
  }(std::index_sequence_for<T...>{});
}
template <class F, class... T>
constexpr decltype(auto) pack_apply(F&& f, value_pack<T...>& p) {
  return [&]<std::size_t... I>(std::index_sequence<I...>) -> decltype(auto) {
    return std::forward<F>(f)(pack_get<I>(p)...);
  }(std::index_sequence_for<T...>{});
}

template <class T>
constexpr value_pack<T> pack_of(const T& value) {
  return {{pack_leaf<0, T>{value}}};
}

/// a's values, then b's.
template <class... A, class... B>
constexpr value_pack<A..., B...> pack_concat(const value_pack<A...>& a, const value_pack<B...>& b) {
  if constexpr (sizeof...(B) == 0) {
    return a;
  } else if constexpr (sizeof...(A) == 0) {
    return b;
  } else {
    return [&]<std::size_t... I, std::size_t... J>(std::index_sequence<I...>, std::index_sequence<J...>) {
      return value_pack<A..., B...>{{pack_leaf<I, A>{pack_get<I>(a)}..., pack_leaf<sizeof...(A) + J, B>{pack_get<J>(b)}...}};
    }(std::index_sequence_for<A...>{}, std::index_sequence_for<B...>{});
  }
}
constexpr value_pack<> pack_concat() { return {}; }
template <class... A>
constexpr value_pack<A...> pack_concat(const value_pack<A...>& a) {
  return a;
}
template <class P, class Q, class R, class... Rest>
constexpr auto pack_concat(const P& a, const Q& b, const R& c, const Rest&... rest) {
  return pack_concat(pack_concat(a, b), c, rest...);
}

/// The type of element I (a declaration only: the base class is deduced, no recursion).
template <std::size_t I, class T>
T pack_leaf_type(const pack_leaf<I, T>&);

/// detail::get<I>(x): element I of a value_pack or a std::tuple, for code that reads both (called
/// qualified: argument-dependent lookup over a graph's types walks every namespace they name).
template <std::size_t I, class... T>
constexpr decltype(auto) get(const value_pack<T...>& p) {
  return pack_get<I>(p.storage);
}
template <std::size_t I, class... T>
constexpr auto& get(value_pack<T...>& p) {
  return pack_get<I>(p.storage);
}
template <std::size_t I, class... T>
constexpr decltype(auto) get(const std::tuple<T...>& t) {
  return std::get<I>(t);
}
template <std::size_t I, class... T>
constexpr decltype(auto) get(std::tuple<T...>& t) {
  return std::get<I>(t);
}

template <std::size_t I, class T, std::size_t N>
constexpr const T& get(const std::array<T, N>& a) {
  return a[I];
}
template <std::size_t I, class T, std::size_t N>
constexpr T& get(std::array<T, N>& a) {
  return a[I];
}

/// f(elements...) of a value_pack, std::tuple or std::array, each passed as an lvalue (std::apply
/// without its invoke and noexcept machinery, which costs the compiler per tuple type).
template <class F, class T>
constexpr decltype(auto) apply(F&& f, T&& t) {
  return [&]<std::size_t... I>(std::index_sequence<I...>) -> decltype(auto) {
    return static_cast<F&&>(f)(detail::get<I>(t)...);
  }(std::make_index_sequence<std::tuple_size<std::remove_cvref_t<T>>::value>{});
}

/// The elements of a and b (each a value_pack or a std::tuple) as one value_pack.
template <class A, class B>
constexpr auto values_concat(const A& a, const B& b) {
  return [&]<std::size_t... I, std::size_t... J>(std::index_sequence<I...>, std::index_sequence<J...>) {
    return value_pack<std::tuple_element_t<I, A>..., std::tuple_element_t<J, B>...>{
        {{detail::get<I>(a)}..., {detail::get<J>(b)}...}};
  }(std::make_index_sequence<std::tuple_size<A>::value>{}, std::make_index_sequence<std::tuple_size<B>::value>{});
}

/// The values as a std::tuple (one construction).
template <class... T>
constexpr std::tuple<T...> pack_to_tuple(const value_pack<T...>& p) {
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    return std::tuple<T...>(pack_get<I>(p)...);
  }(std::index_sequence_for<T...>{});
}

/// std::tuple<A..., B..., ...> from std::tuple<A...>, std::tuple<B...>, ... (types only: no tuple
/// is instantiated).
template <class... Tuples>
struct concat_tuple_types {
  using type = std::tuple<>;
};
template <class... A>
struct concat_tuple_types<std::tuple<A...>> {
  using type = std::tuple<A...>;
};
template <class... A, class... B, class... Rest>
struct concat_tuple_types<std::tuple<A...>, std::tuple<B...>, Rest...> : concat_tuple_types<std::tuple<A..., B...>, Rest...> {};

}  // namespace staticflow::detail

// value_pack is tuple-like to the type traits (std::tuple_size_v, std::tuple_element_t), so that a
// plan's slots read the same whichever of the two holds them.
template <class... T>
struct std::tuple_size<staticflow::detail::value_pack<T...>> : std::integral_constant<std::size_t, sizeof...(T)> {};
template <std::size_t I, class... T>
struct std::tuple_element<I, staticflow::detail::value_pack<T...>> {
  using type = decltype(staticflow::detail::pack_leaf_type<I>(std::declval<const typename staticflow::detail::value_pack<T...>::storage_type&>()));
};
