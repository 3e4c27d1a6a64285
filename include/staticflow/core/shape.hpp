// staticflow/core/shape.hpp -- static shapes with optional run-time dimensions (sf::dyn).
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include "staticflow/core/config.hpp"

namespace staticflow {

/// A dimension known only at run time (TensorFlow's `None`).
inline constexpr std::size_t dyn = static_cast<std::size_t>(-1);

/// A shape whose rank is static; each dimension is static or `dyn`.
template <std::size_t... Dims>
struct shape {
  static constexpr std::size_t rank = sizeof...(Dims);
  static constexpr std::array<std::size_t, rank> dims{Dims...};
  static constexpr bool is_static = ((Dims != dyn) && ...);
  /// Number of elements; only meaningful when `is_static`.
  static constexpr std::size_t size = is_static ? (std::size_t{1} * ... * Dims) : dyn;
};

/// Run-time extents of a tensor of rank N.
template <std::size_t N>
using extents = std::array<std::size_t, N>;

namespace detail {
template <class T> struct is_shape : std::false_type {};
template <std::size_t... D> struct is_shape<shape<D...>> : std::true_type {};

/// open + the dimensions (None for dyn) joined by separator + close. One non-template function
/// builds every shape's text: a fold of string temporaries per shape inlined kilobytes of code
/// into each signature that prints one.
inline std::string dims_text(const std::size_t* dims, std::size_t rank, std::string_view open,
                             std::string_view separator, std::string_view close) {
  std::string out(open);
  for (std::size_t i = 0; i < rank; ++i) {
    if (i) out += separator;
    out += dims[i] == dyn ? std::string("None") : std::to_string(dims[i]);
  }
  return out += close;
}

/// TensorFlow's spelling of a shape: (), (2,), (2, None).
template <std::size_t... D>
std::string shape_string(shape<D...>) {
  static constexpr std::size_t dims[] = {D..., 0};
  return dims_text(dims, sizeof...(D), "(", ", ", sizeof...(D) == 1 ? ",)" : ")");
}

template <std::size_t N>
std::string extents_string(const extents<N>& e) {
  return dims_text(e.data(), N, "(", ", ", N == 1 ? ",)" : ")");
}

// The two below are on every call's path: forced inline, as in a translation unit with many
// functions GCC stops inlining small functions (it called std::array's operator==, and through
// it memcmp, on every call of a dispatched function: 7 -> 20 ns).
template <std::size_t N>
STATICFLOW_INLINE constexpr std::size_t product(const extents<N>& e) {
  std::size_t n = 1;
  for (std::size_t d : e) n *= d;
  return n;
}

/// a == b, element by element (no memcmp).
template <std::size_t N>
STATICFLOW_INLINE constexpr bool same_extents(const extents<N>& a, const extents<N>& b) {
  for (std::size_t d = 0; d < N; ++d)
    if (a[d] != b[d]) return false;
  return true;
}

/// What an op with an axis known only at run time (a plain int) does to its operand's shape S:
/// inserts an axis of extent 1, removes one, or sets one to 1 (a reduction keeping its axis).
enum class runtime_axis_change { insert, remove, set_one };

/// The result's shape: a dim is static where every axis the call might name gives it the same
/// static extent (the 1s of S, and the 1 put in, survive), sf::dyn elsewhere.
template <runtime_axis_change C, class S>
struct runtime_axis_shape {
  static constexpr std::size_t rank = C == runtime_axis_change::insert   ? S::rank + 1
                                      : C == runtime_axis_change::remove ? S::rank - 1
                                                                         : S::rank;
  static constexpr std::size_t dim(std::size_t i) {
    const auto same = [](std::size_t a, std::size_t b) { return a == b ? a : dyn; };
    if constexpr (C == runtime_axis_change::insert) {
      std::size_t d = 1;  // the axis inserted at i
      if (i > 0) d = same(d, S::dims[i - 1]);
      if (i < S::rank) d = same(d, S::dims[i]);
      return d;
    } else if constexpr (C == runtime_axis_change::remove) {
      return same(S::dims[i], S::dims[i + 1]);
    } else {
      return same(S::dims[i], 1);
    }
  }
  template <class I>
  struct of;
  template <std::size_t... I>
  struct of<std::index_sequence<I...>> {
    using type = shape<dim(I)...>;
  };
  using type = typename of<std::make_index_sequence<rank>>::type;
};
}  // namespace detail
}  // namespace staticflow
