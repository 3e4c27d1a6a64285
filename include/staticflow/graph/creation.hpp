// staticflow/graph/creation.hpp -- tensors made inside a trace: zeros, ones, fill (a static shape,
// or sf::shape_of(x)) and zeros_like, ones_like, full_like (the shape of another tensor, run-time
// extents included);
// range, linspace and eye.
//
// The constants are no buffer: each is broadcast inside the fused loop that reads it
// (`zeros_like(x) + y` is one loop over y, nothing stored). zeros_like(x) reads only x's extents.
// range and linspace are a node whose n values the backend writes once per call
// (graph::sequence); eye compares two such index vectors inside the fused loop that reads it,
// so an n x n identity is never a buffer of its own unless it is the result.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticflow/core/errors.hpp"
#include "staticflow/core/shape.hpp"
#include "staticflow/core/static_value.hpp"
#include "staticflow/graph/child_refs.hpp"
#include "staticflow/graph/leaf.hpp"
#include "staticflow/graph/operators.hpp"
#include "staticflow/graph/shape_ops.hpp"

namespace staticflow {
namespace detail {
template <class Shape>
constexpr void check_creation_shape() {
  static_assert(is_shape<Shape>::value && Shape::is_static,
                "staticflow: zeros / ones / fill need a static sf::shape<...> or sf::shape_of(x) (x's "
                "run-time extents)");
}

template <class T, class Like>
constexpr auto constant_like(const Like& like, T value) {
  const auto ref = as_node<void>(like);
  using R = std::remove_cvref_t<decltype(ref)>;
  if constexpr (R::shape_type::is_static)
    return graph::broadcast<typename R::shape_type, graph::literal<T>>(graph::literal<T>(value));
  else
    return graph::broadcast_as<graph::literal<T>, R>(graph::literal<T>(value), ref);
}

/// A number as graph listings and error messages print it (no trailing zeros: 0.25, 1.0).
template <class T>
std::string number_text(T v) {
  if constexpr (std::is_floating_point<T>::value) {
    std::string s = std::to_string(v);
    while (s.size() > 1 && s.back() == '0' && s[s.size() - 2] != '.') s.pop_back();
    return s;
  } else {
    return std::to_string(v);
  }
}

template <class Like>
using like_dtype = typename decltype(as_node<void>(std::declval<const Like&>()))::value_type;
}  // namespace detail

/// tf.fill(shape, value): a tensor of Shape holding value (dtype T, by default value's own).
template <class T = void, class Shape, class V>
  requires std::is_arithmetic<V>::value
constexpr auto fill(Shape, V value) {
  detail::check_creation_shape<Shape>();
  using U = std::conditional_t<std::is_void<T>::value, canonical_dtype_t<V>, T>;
  static_assert(dtype<U>, "staticflow: fill: unsupported dtype (use bool, int32_t, int64_t, float or double)");
  return graph::broadcast<Shape, graph::literal<U>>(graph::literal<U>(static_cast<U>(value)));
}

/// tf.zeros(shape, dtype) / tf.ones(shape, dtype): float32 unless T says otherwise.
template <class T = float, class Shape>
constexpr auto zeros(Shape s) {
  return fill<T>(s, 0);
}
template <class T = float, class Shape>
constexpr auto ones(Shape s) {
  return fill<T>(s, 1);
}

namespace graph {
template <class X, int Axis>
struct extent_query;  // (control/index.hpp: sf::shape_of(x) is extent_query<X, -2>)
}  // namespace graph

/// tf.fill(tf.shape(x), value), tf.zeros(tf.shape(x)), tf.ones(tf.shape(x)): the shape
/// `sf::shape_of(x)`, run-time extents included; the same constant as full_like(x, value) (x's
/// data is not read). The dtype: value's own for fill, float32 for zeros and ones, or T.
template <class T = void, class X, class V>
  requires std::is_arithmetic<V>::value
constexpr auto fill(const graph::extent_query<X, -2>& shape, V value) {
  using U = std::conditional_t<std::is_void<T>::value, canonical_dtype_t<V>, T>;
  static_assert(dtype<U>, "staticflow: fill: unsupported dtype (use bool, int32_t, int64_t, float or double)");
  return detail::constant_like<U>(shape.a, static_cast<U>(value));
}
template <class T = float, class X>
constexpr auto zeros(const graph::extent_query<X, -2>& shape) {
  return fill<T>(shape, 0);
}
template <class T = float, class X>
constexpr auto ones(const graph::extent_query<X, -2>& shape) {
  return fill<T>(shape, 1);
}

/// tf.zeros_like / tf.ones_like / tf.experimental.numpy.full_like: x's shape, dtype T (x's by
/// default).
template <class T = void, detail::tensor_operand A>
constexpr auto zeros_like(const A& x) {
  using U = std::conditional_t<std::is_void<T>::value, detail::like_dtype<A>, T>;
  return detail::constant_like<U>(x, U(0));
}
template <class T = void, detail::tensor_operand A>
constexpr auto ones_like(const A& x) {
  using U = std::conditional_t<std::is_void<T>::value, detail::like_dtype<A>, T>;
  return detail::constant_like<U>(x, U(1));
}
template <class T = void, detail::tensor_operand A, class V>
  requires std::is_arithmetic<V>::value
constexpr auto full_like(const A& x, V value) {
  using U = std::conditional_t<std::is_void<T>::value, detail::like_dtype<A>, T>;
  return detail::constant_like<U>(x, static_cast<U>(value));
}

namespace graph {
struct range_sequence {
  static constexpr const char* name = "Range";
};
struct linspace_sequence {
  static constexpr const char* name = "LinSpace";
};

/// `count` values `start + i * delta` along axis Axis of S (every other axis has extent 1): what
/// tf.range makes (Kind = range_sequence) and tf.linspace (linspace_sequence, whose last value is
/// `stop` exactly, as TF's and NumPy's). A materialized node without children: the backend
/// writes the values once per call (backend/cpu/sequence.hpp). Axis lets eye lay two of them out
/// as a column and a row, so the comparison broadcasts inside one fused loop.
template <class Kind, class T, class S, std::size_t Axis>
struct sequence : node<sequence<Kind, T, S, Axis>> {
  static constexpr bool materialized = true;
  static constexpr bool is_linspace = std::is_same<Kind, linspace_sequence>::value;
  using value_type = T;
  using shape_type = S;
  static constexpr std::size_t rank = S::rank;
  static_assert(Axis < rank);
  T start, delta, stop;
  std::size_t count;
  constexpr sequence(T start_, T delta_, T stop_, std::size_t count_)
      : start(start_), delta(delta_), stop(stop_), count(count_) {}
  constexpr child_refs<> children() const { return {}; }
  constexpr sequence with_children() const { return *this; }
  constexpr bool same_parameters(const sequence& o) const {
    return start == o.start && delta == o.delta && stop == o.stop && count == o.count;
  }
  std::string name() const {
    auto text = [](T v) { return staticflow::detail::number_text(v); };
    if constexpr (is_linspace)
      return std::string(Kind::name) + "[start=" + text(start) + ", stop=" + text(stop) + ", num=" + std::to_string(count) + "]";
    else
      return std::string(Kind::name) + "[start=" + text(start) + ", delta=" + text(delta) + ", size=" + std::to_string(count) + "]";
  }
  extents<rank> result_extents() const {
    extents<rank> e{};
    for (auto& x : e) x = 1;
    e[Axis] = count;
    return e;
  }
  /// Value i (0 <= i < count). The index type is the caller's: a 32-bit one converts to a float
  /// in one vector instruction, a 64-bit one does not before AVX-512.
  template <class I>
  STATICFLOW_HD constexpr T at(I i) const {
    if constexpr (is_linspace) {
      if (static_cast<std::size_t>(i) + 1 == count && i != 0) return stop;
    }
    if constexpr (std::is_integral<T>::value) {
      // in unsigned arithmetic: start + i * delta may pass outside T on its way to a value that
      // fits (range(-2e9, 2e9, 1e9) in int32), which signed arithmetic would make undefined
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(static_cast<U>(static_cast<U>(start) + static_cast<U>(i) * static_cast<U>(delta)));
    } else {
      return static_cast<T>(start + static_cast<T>(i) * delta);
    }
  }
};
}  // namespace graph

namespace detail {
/// A bound of range / linspace: a C++ number (run-time, so the result's extent is dyn) or a
/// static value such as `5_c` (the extent is then part of the type).
template <class V>
concept sequence_bound = (std::is_arithmetic<V>::value && !std::is_same<V, bool>::value) ||
                         (static_value_type<V> && std::is_integral<typename V::value_type>::value &&
                          !std::is_same<typename V::value_type, bool>::value);

template <class V>
constexpr auto bound_value(V v) {
  if constexpr (static_value_type<V>) return V::value;
  else return v;
}
/// The dtype a bound counts in: int32 for int and narrower signed integers, int64 for wider or
/// unsigned ones (a std::size_t extent), the float types as they are.
template <class V, class U = decltype(bound_value(std::declval<V>()))>
using bound_type = std::conditional_t<std::is_floating_point<U>::value, canonical_dtype_t<U>,
                                      std::conditional_t<std::is_signed<U>::value && sizeof(U) <= 4, std::int32_t, std::int64_t>>;

/// tf.range's size, with its checks (thrown before the call does anything).
/// (constexpr, so that a lambda calling `sf::range(3, 9)` with plain literals is still traced by
/// the compiler: trace/constant_trace.hpp)
template <class T>
constexpr std::size_t range_count(T start, T limit, T delta) {
  if constexpr (std::is_floating_point<T>::value) {
    constexpr T huge = std::numeric_limits<T>::max();
    auto finite = [](T v) { return v == v && v <= huge && v >= -huge; };
    if (!finite(start) || !finite(limit) || !finite(delta))
      throw shape_error("range: start, limit and delta must be finite (got " + number_text(start) + ", " +
                        number_text(limit) + ", " + number_text(delta) + ")");
  }
  if (delta == T(0)) throw shape_error("range: delta must not be 0");
  if (delta > T(0) ? start > limit : start < limit)
    throw shape_error("range: start " + number_text(start) + (delta > T(0) ? " > limit " : " < limit ") +
                      number_text(limit) + " with delta " + number_text(delta) + " (TensorFlow requires start " +
                      (delta > T(0) ? "<=" : ">=") + " limit)");
  if constexpr (std::is_floating_point<T>::value) {
    const T q = (limit - start) / delta;  // >= 0 here
    if (!(q < T(9.2e18)))  // TF: "Requires ((limit - start) / delta) <= 2^63 - 1"
      throw shape_error("range: (limit - start) / delta = " + number_text(q) + " is too many values");
    const auto whole = static_cast<std::size_t>(q);
    return whole + (static_cast<T>(whole) < q);  // ceil
  } else {
    using U = std::make_unsigned_t<T>;
    const U span = delta > 0 ? U(U(limit) - U(start)) : U(U(start) - U(limit));
    const U step = delta > 0 ? U(delta) : U(U(0) - U(delta));
    return static_cast<std::size_t>(span / step + (span % step != 0));
  }
}

/// The size of a range with static bounds, checked at compile time.
template <long long Start, long long Limit, long long Delta>
struct static_range_count {
  static_assert(Delta != 0, "staticflow: range: delta must not be 0");
  static_assert(Delta > 0 ? Start <= Limit : Start >= Limit,
                "staticflow: range: start must be <= limit when delta > 0 and >= limit when delta < 0, as in TensorFlow");
  static constexpr std::size_t value =
      Delta == 0 || (Delta > 0 ? Start > Limit : Start < Limit)
          ? dyn  // after the error above: no second diagnostic from a shape of 0
          : static_cast<std::size_t>(((Delta > 0 ? Limit - Start : Start - Limit) + (Delta > 0 ? Delta : -Delta) - 1) /
                                     (Delta > 0 ? Delta : -Delta));
};

/// T's canonical dtype, or Default when T is void (no dtype asked for).
template <class T, class Default>
struct dtype_or {
  using type = canonical_dtype_t<T>;
};
template <class Default>
struct dtype_or<void, Default> {
  using type = Default;
};
template <class T, class Default>
using dtype_or_t = typename dtype_or<T, Default>::type;

template <class T>
struct sequence_dtype_check {
  static constexpr bool ok = dtype<T> && !std::is_same<T, bool>::value;
  static_assert(ok, "staticflow: range / linspace / eye: the dtype must be int32, int64, float or double");
};

/// A sequence node of rank R laid out along Axis: extent Count when static, dyn otherwise.
template <std::size_t R, std::size_t Axis, std::size_t Count, std::size_t... I>
auto sequence_shape(std::index_sequence<I...>) -> shape<(I == Axis ? Count : 1)...>;
template <class Kind, class T, std::size_t R, std::size_t Axis, std::size_t Count>
using sequence_node = graph::sequence<Kind, T, decltype(sequence_shape<R, Axis, Count>(std::make_index_sequence<R>{})), Axis>;

/// A range node of dtype T; its size is counted in the bounds' own dtype (NumPy's rule:
/// `sf::range<std::int64_t>(1, 3.5)` has 3 values, 1, 2 and 3).
template <class T, std::size_t R, std::size_t Axis, class A, class B, class C>
constexpr auto make_range(A start, B limit, C delta) {
  using P = promote_t<promote_t<bound_type<A>, bound_type<B>>, bound_type<C>>;
  const T s = static_cast<T>(bound_value(start)), l = static_cast<T>(bound_value(limit)), d = static_cast<T>(bound_value(delta));
  if constexpr (static_value_type<A> && static_value_type<B> && static_value_type<C>) {
    constexpr std::size_t n = static_range_count<static_cast<long long>(A::value), static_cast<long long>(B::value),
                                                 static_cast<long long>(C::value)>::value;
    return sequence_node<graph::range_sequence, T, R, Axis, n>(s, d, l, n == dyn ? 0 : n);
  } else {
    const std::size_t n = range_count(static_cast<P>(bound_value(start)), static_cast<P>(bound_value(limit)),
                                      static_cast<P>(bound_value(delta)));
    if constexpr (std::is_integral<T>::value) {  // every value lies between start and limit: both must fit T
      auto check = [](const char* what, auto v) {
        const bool fits = [&] {
          if constexpr (std::is_integral<decltype(v)>::value) return std::in_range<T>(v);
          else return v >= static_cast<decltype(v)>(std::numeric_limits<T>::lowest()) &&
                      v <= static_cast<decltype(v)>(std::numeric_limits<T>::max());
        }();
        if (!fits) throw shape_error(std::string("range: ") + what + " " + number_text(v) + " does not fit " + std::string(dtype_name<T>));
      };
      check("start", bound_value(start));
      if (n > 0) check("limit", bound_value(limit));
    }
    if (d == T(0) && n > 1) throw shape_error("range: delta " + number_text(bound_value(delta)) + " is 0 in " + std::string(dtype_name<T>));
    return sequence_node<graph::range_sequence, T, R, Axis, dyn>(s, d, l, n);
  }
}
}  // namespace detail

/// tf.range(limit), tf.range(start, limit), tf.range(start, limit, delta): the values start,
/// start + delta, ... up to limit, excluded. Each bound is a C++ number (the extent is then
/// run-time: `int32[None]`, checked per call as TF: delta 0, or start past limit, throws
/// sf::shape_error) or a static value (`sf::range(5_c)` is `int32[5]`, checked at compile time).
/// The dtype is T, or the bounds' promoted dtype (`sf::range(0.0, 1.0, 0.25)` is float64, as
/// `sf::fill`'s rule). Value i is `start + i * delta` computed in T (NumPy's and TF's GPU
/// formula; TF's CPU kernel adds delta repeatedly, which can differ in the last float bits).
template <class T = void, detail::sequence_bound A, detail::sequence_bound B, detail::sequence_bound C>
constexpr auto range(A start, B limit, C delta) {
  using U = detail::dtype_or_t<T, promote_t<promote_t<detail::bound_type<A>, detail::bound_type<B>>, detail::bound_type<C>>>;
  if constexpr (!detail::sequence_dtype_check<U>::ok) return detail::make_range<std::int32_t, 1, 0>(0, 0, 1);
  else return detail::make_range<U, 1, 0>(start, limit, delta);
}
template <class T = void, detail::sequence_bound A, detail::sequence_bound B>
constexpr auto range(A start, B limit) {
  return range<T>(start, limit, static_value<1>{});
}
template <class T = void, detail::sequence_bound B>
constexpr auto range(B limit) {
  return range<T>(static_value<0>{}, limit, static_value<1>{});
}

namespace detail {
template <class T>  // keyed on the requested dtype only: one report for the traced and the eager call
struct traced_range_bound {
  static_assert(always_false<T>,
                "staticflow: range / linspace / eye: a bound that is a traced tensor would make the result's shape "
                "depend on its value; use a C++ number (a run-time extent), a static value such as 5_c, or loop "
                "with sf::for_range(n) / sf::fori_loop");
};
}  // namespace detail

/// A traced tensor as a bound of range / linspace / eye: the result's extent would be a value
/// computed by the call, which no shape here can be (TF's tf.range(n) inside a tf.function).
template <class T = void, class... Bounds>
  requires(symbolic<Bounds> || ...)
constexpr auto range(const Bounds&...) {
  (void)detail::traced_range_bound<T>{};
  return detail::make_range<std::int32_t, 1, 0>(0, 0, 1);
}
template <class T = void, class... Bounds>
  requires(symbolic<Bounds> || ...)
constexpr auto linspace(const Bounds&... b) {
  return range<T>(b...);
}
template <class T = float, class... Bounds>
  requires(symbolic<Bounds> || ...)
constexpr auto eye(const Bounds&... b) {
  return range<T>(b...);
}

/// tf.linspace(start, stop, num): num evenly spaced values from start to stop, both included
/// (num = 1 gives start; num must be at least 1, as TF: 0 throws sf::shape_error, or fails to
/// compile for a static num). float32 unless T or a double bound says otherwise; num a C++
/// integer (a run-time extent) or a static value (`sf::linspace(0.f, 1.f, 5_c)` is float32[5]).
/// Value i < num - 1 is `start + i * (stop - start) / (num - 1)` in T, the last is stop.
template <class T = void, detail::sequence_bound A, detail::sequence_bound B, class N>
  requires(std::is_integral<N>::value || static_value_type<N>)
constexpr auto linspace(A start, B stop, N num) {
  using P = promote_t<detail::bound_type<A>, detail::bound_type<B>>;
  using U = detail::dtype_or_t<T, std::conditional_t<floating_dtype<P>, P, float>>;
  static_assert(floating_dtype<U>, "staticflow: linspace: the dtype must be float or double");
  const U s = static_cast<U>(detail::bound_value(start)), e = static_cast<U>(detail::bound_value(stop));
  auto make = [&](std::size_t n) {
    return n > 1 ? static_cast<U>((e - s) / static_cast<U>(n - 1)) : U(0);
  };
  if constexpr (static_value_type<N>) {
    static_assert(N::value >= 1, "staticflow: linspace: num must be at least 1");
    constexpr std::size_t n = N::value >= 1 ? static_cast<std::size_t>(N::value) : 1;
    return detail::sequence_node<graph::linspace_sequence, U, 1, 0, n>(s, make(n), e, n);
  } else {
    if (num < 1) throw shape_error("linspace: num must be at least 1 (got " + std::to_string(num) + ")");
    const auto n = static_cast<std::size_t>(num);
    return detail::sequence_node<graph::linspace_sequence, U, 1, 0, dyn>(s, make(n), e, n);
  }
}

/// tf.eye(num_rows, num_columns): the identity, 1 on the diagonal, float32 unless T says
/// otherwise; each count a C++ integer (a run-time extent) or a static value (`sf::eye(3_c)` is
/// float32[3, 3]). Computed where it is read: row index == column index, two index vectors
/// broadcast inside the fused loop.
template <class T = float, class R, class C>
  requires((std::is_integral<R>::value || static_value_type<R>) && (std::is_integral<C>::value || static_value_type<C>))
constexpr auto eye(R rows, C columns) {
  if constexpr (!static_value_type<R> || !static_value_type<C>) {
    if (std::cmp_less(detail::bound_value(rows), 0) || std::cmp_less(detail::bound_value(columns), 0))
      throw shape_error("eye: num_rows and num_columns must be at least 0 (got " + std::to_string(detail::bound_value(rows)) +
                        ", " + std::to_string(detail::bound_value(columns)) + ")");
  }
  // The indices are compared in the identity's own dtype (int32 for bool), so the fused loop
  // keeps one lane type and stays vectorized. Exact: float32 counts exactly to 2^24, and an
  // identity of that side would hold 2^48 elements.
  using I = std::conditional_t<std::is_same<canonical_dtype_t<T>, bool>::value, std::int32_t, canonical_dtype_t<T>>;
  const auto row_index = detail::make_range<I, 2, 0>(static_value<0>{}, rows, static_value<1>{});
  const auto column_index = detail::make_range<I, 2, 1>(static_value<0>{}, columns, static_value<1>{});
  return cast<T>(row_index == column_index);
}
template <class T = float, class R>
  requires(std::is_integral<R>::value || static_value_type<R>)
constexpr auto eye(R rows) {
  return eye<T>(rows, rows);
}

}  // namespace staticflow
