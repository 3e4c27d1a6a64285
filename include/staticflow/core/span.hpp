// staticflow/core/span.hpp -- Python's slices (start:stop:step) as TF users write `x[1:-1]`,
// `x[::-1]`, `x[:, ::2]`: negative positions count from the end, omitted ones (sf::none) mean the
// whole axis in the step's direction, and everything is resolved against the extent when the
// function runs (a run-time extent included), never against the extent seen when it was traced.
#pragma once

#include <concepts>
#include <cstddef>
#include <limits>
#include <string>
#include <type_traits>

#include "staticflow/core/errors.hpp"

namespace staticflow {

/// An omitted start or stop (Python's None): `sf::span(sf::none, sf::none, -1)` is `::-1`.
struct open_bound {};
inline constexpr open_bound none{};

/// The value an omitted bound has in a static span (`sf::static_span<1, sf::open_index>`); a bound
/// of exactly this value (the most negative ptrdiff_t) is taken as omitted.
inline constexpr std::ptrdiff_t open_index = std::numeric_limits<std::ptrdiff_t>::min();

/// The extent of the axis being sliced, as a bound (MATLAB's `end`; Eigen's `placeholders::end`,
/// in a namespace of its own for the same reason as here: a variable named `end` in namespace
/// staticflow would make -Wshadow flag every local named `end` in code inside it or using it):
/// `sf::span(sf::placeholders::end - 3, sf::placeholders::end)` is Python's `-3:`, resolved against
/// the extent when the function runs. `end - k` is Python's `-k` (clipped at the start the same
/// way), `end + k` clips to the end. `using namespace sf::placeholders;` makes it `end`.
struct end_bound {
  std::ptrdiff_t offset = 0;
  friend constexpr end_bound operator-(end_bound e, std::ptrdiff_t k) { return {e.offset - k}; }
  friend constexpr end_bound operator+(end_bound e, std::ptrdiff_t k) { return {e.offset + k}; }
};
namespace placeholders {
inline constexpr end_bound end{};
}  // namespace placeholders

namespace detail {
/// The stored form of `placeholders::end` (and of `end + k`): one past the most negative ptrdiff_t,
/// which no Python index reaches (sf::open_index is the most negative).
inline constexpr std::ptrdiff_t end_index = std::numeric_limits<std::ptrdiff_t>::min() + 1;
}  // namespace detail

/// Where one slice of an axis starts, its step and its length, once the extent is known.
struct resolved_span {
  std::ptrdiff_t start = 0, step = 1;
  std::size_t length = 0;
};

/// start:stop:step with run-time values: `sf::span(1, -1)`, `sf::span(sf::none, sf::none, 2)`.
struct span {
  std::ptrdiff_t start = open_index, stop = open_index, step = 1;

  constexpr span() = default;
  constexpr span(open_bound) {}
  /// (no one-argument form: Python's slice(3) is a stop, x[3:] a start; write sf::span(3, sf::none))
  template <class A, class B>
    requires((std::integral<A> || std::same_as<A, open_bound> || std::same_as<A, end_bound>) &&
             (std::integral<B> || std::same_as<B, open_bound> || std::same_as<B, end_bound>))
  constexpr span(A start_, B stop_, std::ptrdiff_t step_ = 1)
      : start(bound_of(start_)), stop(bound_of(stop_)), step(step_) {}

  bool operator==(const span&) const = default;

  /// Python's slice.indices(n): the start, step and length of this slice of an axis of extent n.
  constexpr resolved_span resolve(std::size_t n) const {
    if (step == 0) throw shape_error("strided_slice: the step must not be 0");
    const auto sn = static_cast<std::ptrdiff_t>(n);
    const auto clamp = [&](std::ptrdiff_t v, std::ptrdiff_t lo, std::ptrdiff_t hi) {
      if (v == detail::end_index) v = sn;
      else if (v < 0) v += sn;
      return v < lo ? lo : v > hi ? hi : v;
    };
    if (step > 0) {
      const std::ptrdiff_t b = start == open_index ? 0 : clamp(start, 0, sn);
      const std::ptrdiff_t e = stop == open_index ? sn : clamp(stop, 0, sn);
      return {b, step, e > b ? static_cast<std::size_t>((e - b - 1) / step) + 1 : 0};
    }
    const std::ptrdiff_t b = start == open_index ? sn - 1 : clamp(start, -1, sn - 1);
    const std::ptrdiff_t e = stop == open_index ? -1 : clamp(stop, -1, sn - 1);
    // |step| in unsigned arithmetic: -step overflows for the most negative step
    const std::size_t magnitude = std::size_t{0} - static_cast<std::size_t>(step);
    return {b, step, b > e ? static_cast<std::size_t>(b - e - 1) / magnitude + 1 : 0};
  }

  /// As Python prints a slice's bounds: "1:-1", "::-1", ":".
  std::string text() const {
    const auto bound = [](std::ptrdiff_t v) {
      return v == open_index ? std::string() : v == detail::end_index ? std::string("end") : std::to_string(v);
    };
    std::string s = bound(start) + ":" + bound(stop);
    return step == 1 ? s : s + ":" + std::to_string(step);
  }

 private:
  template <class V>
  static constexpr std::ptrdiff_t bound_of(V v) {
    if constexpr (std::is_same<V, open_bound>::value) return open_index;
    else if constexpr (std::is_same<V, end_bound>::value) return v.offset < 0 ? v.offset : detail::end_index;  // end - k is -k
    else return static_cast<std::ptrdiff_t>(v);
  }
};

/// start:stop:step known to the compiler (sf::open_index where omitted): a static extent wherever
/// the axis has one, `sf::static_span<1, -1>{}`. A step of 0 is a compile error.
template <std::ptrdiff_t Start, std::ptrdiff_t Stop = open_index, std::ptrdiff_t Step = 1>
struct static_span : span {
  static_assert(Step != 0, "staticflow: strided_slice: the step must not be 0");
  constexpr static_span() : span() { start = Start, stop = Stop, step = Step == 0 ? 1 : Step; }
};

/// The whole axis (Python's `:`), for the axes before the ones sliced: `x(sf::whole, sf::span(1, -1))`.
inline constexpr static_span<open_index, open_index, 1> whole{};

namespace detail {
template <class S> struct is_span : std::bool_constant<std::is_same<S, span>::value || std::is_same<S, open_bound>::value> {};
template <std::ptrdiff_t A, std::ptrdiff_t B, std::ptrdiff_t C> struct is_span<static_span<A, B, C>> : std::true_type {
  static constexpr bool is_static = true;
};
template <class S>
inline constexpr bool is_span_v = is_span<std::remove_cvref_t<S>>::value;
}  // namespace detail

}  // namespace staticflow
