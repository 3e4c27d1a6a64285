// staticflow/graph/data_movement.hpp -- reverse, roll, tile, repeat, pad (constant, reflect,
// symmetric) and the parts of split / unstack, as kinds of graph::axis_map (graph/axis_map.hpp):
// each result coordinate, axis by axis, reads one coordinate of the operand or pad's constant.
// The gradients sum the adjoint where each element was read (tile, repeat and the mirror paddings
// read an element several times; the others at most once).
#pragma once

#include <array>
#include <cstddef>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticflow/core/axes.hpp"
#include "staticflow/core/config.hpp"
#include "staticflow/core/errors.hpp"
#include "staticflow/core/shape.hpp"
#include "staticflow/core/static_value.hpp"
#include "staticflow/graph/axis_map.hpp"
#include "staticflow/graph/creation.hpp"
#include "staticflow/graph/operators.hpp"
#include "staticflow/graph/shape_ops.hpp"
#include "staticflow/graph/traversal.hpp"

namespace staticflow {

/// tf.pad's modes, as tags (the mode is part of the graph, so static limits are checked when it
/// compiles): `sf::pad_mode::constant` (the fill value), `reflect` (mirror without the edge:
/// 3 2 | 1 2 3 | 2 1) and `symmetric` (mirror with the edge: 2 1 | 1 2 3 | 3 2).
enum class padding_kind { constant, reflect, symmetric };
namespace pad_mode {
template <padding_kind K>
struct tag {
  static constexpr padding_kind kind = K;
};
inline constexpr tag<padding_kind::constant> constant{};
inline constexpr tag<padding_kind::reflect> reflect{};
inline constexpr tag<padding_kind::symmetric> symmetric{};
}  // namespace pad_mode

/// Static paddings, two per axis (before, after): `sf::pad(x, sf::paddings<1, 1, 0, 2>{})`.
template <std::size_t... P>
struct paddings {
  static constexpr std::size_t count = sizeof...(P);
  static_assert(sizeof...(P) % 2 == 0, "staticflow: sf::paddings<...> takes two amounts per axis (before, after)");
};
/// Static multiples, one per axis: `sf::tile(x, sf::multiples<2, 1>{})`.
template <std::size_t... M>
struct multiples {};

namespace graph {
/// tf.reverse(x, axis=[A...]).
template <std::size_t R, int... Axes>
struct reverse_kind {
  template <class S>
  using result_shape = S;
  static constexpr std::array<std::size_t, sizeof...(Axes)> axis = detail::normalized_axes<R>(std::array<int, sizeof...(Axes)>{Axes...});
  bool operator==(const reverse_kind&) const = default;
  std::string name() const { return "ReverseV2[axis=" + detail::list_string(axis) + "]"; }
  extents<R> extents_of(const extents<R>& in) const { return in; }
  std::array<axis_rule, R> rules(const extents<R>& in, const extents<R>&) const {
    auto r = detail::identity_rules(in);
    for (const std::size_t k : axis) r[k].a = static_cast<std::ptrdiff_t>(in[k]) - 1, r[k].b = -1;
    return r;
  }
};

/// tf.roll(x, shift=[s...], axis=[A...]): element i of an axis moves to (i + s) mod n; shifts on
/// the same axis add up, as in TF.
template <std::size_t R, int... Axes>
struct roll_kind {
  template <class S>
  using result_shape = S;
  static constexpr std::array<std::size_t, sizeof...(Axes)> axis = detail::normalized_axes<R>(std::array<int, sizeof...(Axes)>{Axes...});
  std::array<std::ptrdiff_t, sizeof...(Axes)> shift{};
  bool operator==(const roll_kind&) const = default;
  std::string name() const { return "Roll[shift=" + detail::list_string(shift) + " axis=" + detail::list_string(axis) + "]"; }
  extents<R> extents_of(const extents<R>& in) const { return in; }
  std::array<axis_rule, R> rules(const extents<R>& in, const extents<R>&) const {
    std::array<std::ptrdiff_t, R> total{};
    for (std::size_t i = 0; i < axis.size(); ++i) {
      const auto n = static_cast<std::ptrdiff_t>(in[axis[i]]);
      if (n) total[axis[i]] = (total[axis[i]] + shift[i] % n) % n;
    }
    auto r = detail::identity_rules(in);
    for (std::size_t k = 0; k < R; ++k)
      if (total[k] != 0) r[k] = {axis_rule::form::wrapped, static_cast<std::ptrdiff_t>(in[k]) - total[k], 1, in[k], in[k]};
    return r;
  }
};

/// tf.tile(x, multiples): M... static multiples, or sf::dyn each where they come at run time.
template <std::size_t... M>
struct tile_kind {
  static constexpr std::size_t R = sizeof...(M);
  struct dims {
    static constexpr std::array<std::size_t, R> static_multiples{M...};
    static constexpr std::size_t dim(std::size_t i, std::size_t n) {
      return n == dyn || static_multiples[i] == dyn ? dyn : n * static_multiples[i];
    }
  };
  template <class S>
  using result_shape = typename detail::mapped_shape<S, dims>::type;
  std::array<std::size_t, R> multiple{M...};
  bool operator==(const tile_kind&) const = default;
  std::string name() const { return "Tile[multiples=" + detail::list_string(multiple) + "]"; }
  extents<R> extents_of(const extents<R>& in) const {
    extents<R> out{};
    for (std::size_t i = 0; i < R; ++i) out[i] = staticflow::detail::checked_product(in[i], multiple[i], "tile");
    return out;
  }
  std::array<axis_rule, R> rules(const extents<R>& in, const extents<R>& out) const {
    auto r = detail::identity_rules(in);
    for (std::size_t k = 0; k < R; ++k)
      if (multiple[k] != 1) r[k] = {axis_rule::form::wrapped, 0, 1, in[k], out[k]};
    return r;
  }
};

/// tf.repeat(x, repeats, axis): each element of the axis Count times in a row (Count: static, or
/// sf::dyn when it comes at run time).
template <std::size_t R, int Axis, std::size_t Count>
struct repeat_kind {
  static constexpr std::size_t axis = static_cast<std::size_t>(staticflow::detail::normalize_axis(Axis, R));
  struct dims {
    static constexpr std::size_t dim(std::size_t i, std::size_t n) {
      return i != axis ? n : n == dyn || Count == dyn ? dyn : n * Count;
    }
  };
  template <class S>
  using result_shape = typename detail::mapped_shape<S, dims>::type;
  std::size_t repeats = Count;
  bool operator==(const repeat_kind&) const = default;
  std::string name() const { return "Repeat[repeats=" + std::to_string(repeats) + " axis=" + std::to_string(axis) + "]"; }
  extents<R> extents_of(const extents<R>& in) const {
    extents<R> out = in;
    out[axis] = staticflow::detail::checked_product(in[axis], repeats, "repeat");
    return out;
  }
  std::array<axis_rule, R> rules(const extents<R>& in, const extents<R>& out) const {
    auto r = detail::identity_rules(in);
    if (repeats != 1) r[axis] = {axis_rule::form::repeated, static_cast<std::ptrdiff_t>(repeats), 1, in[axis], out[axis]};
    return r;
  }
};

/// tf.pad(x, paddings, mode, constant_values): P... two static amounts per axis, or sf::dyn each
/// where they come at run time. T: the operand's dtype (of the fill value).
template <class T, padding_kind Mode, std::size_t... P>
struct pad_kind {
  static constexpr std::size_t R = sizeof...(P) / 2;
  struct dims {
    static constexpr std::array<std::size_t, 2 * R> static_amounts{P...};
    static constexpr std::size_t dim(std::size_t i, std::size_t n) {
      const std::size_t before = static_amounts[2 * i], after = static_amounts[2 * i + 1];
      return n == dyn || before == dyn || after == dyn ? dyn : before + n + after;
    }
  };
  template <class S>
  using result_shape = typename detail::mapped_shape<S, dims>::type;
  static constexpr padding_kind mode = Mode;
  std::array<std::size_t, 2 * R> amount{P...};
  T fill{};
  bool operator==(const pad_kind&) const = default;
  std::string name() const {
    std::string s = mode == padding_kind::constant ? "PadV2[paddings=(" : "MirrorPad[paddings=(";
    for (std::size_t i = 0; i < R; ++i)
      s += (i ? ",(" : "(") + std::to_string(amount[2 * i]) + "," + std::to_string(amount[2 * i + 1]) + ")";
    s += R == 1 ? ",)" : ")";
    if (mode == padding_kind::constant) return s + " constant_values=" + staticflow::detail::number_text(fill) + "]";
    return s + (mode == padding_kind::reflect ? " mode=REFLECT]" : " mode=SYMMETRIC]");
  }
  /// TF's limits for the mirror modes (a padding may not reach past the mirrored copy).
  extents<R> extents_of(const extents<R>& in) const {
    extents<R> out{};
    for (std::size_t i = 0; i < R; ++i) {
      const std::size_t before = amount[2 * i], after = amount[2 * i + 1];
      const std::size_t limit = mode == padding_kind::reflect ? (in[i] ? in[i] - 1 : 0) : in[i];
      if (mode != padding_kind::constant && (before > limit || after > limit))
        throw shape_error(std::string("pad: ") + (mode == padding_kind::reflect ? "REFLECT" : "SYMMETRIC") + " paddings (" +
                          std::to_string(before) + ", " + std::to_string(after) + ") of axis " + std::to_string(i) +
                          " must be " + (mode == padding_kind::reflect ? "less than" : "no greater than") + " its extent " +
                          std::to_string(in[i]) + " in shape " + staticflow::detail::extents_string(in));
      out[i] = staticflow::detail::checked_sum(staticflow::detail::checked_sum(before, in[i], "pad"), after, "pad");
    }
    return out;
  }
  std::array<axis_rule, R> rules(const extents<R>& in, const extents<R>& out) const {
    auto r = detail::identity_rules(in);
    [[maybe_unused]] constexpr axis_rule::form forms[] = {axis_rule::form::strided, axis_rule::form::reflected,
                                                          axis_rule::form::symmetric};  // (unused where R == 0)
    for (std::size_t k = 0; k < R; ++k)
      if (amount[2 * k] || amount[2 * k + 1])
        r[k] = {forms[static_cast<std::size_t>(mode)], mode == padding_kind::constant ? -static_cast<std::ptrdiff_t>(amount[2 * k])
                                                                         : static_cast<std::ptrdiff_t>(amount[2 * k]),
                1, in[k], out[k]};
    return r;
  }
};

/// Part `part` of tf.split(x, parts, axis): the window [begin, begin + Size) of the axis (Size:
/// static, or sf::dyn when the axis's extent is known at run time only).
template <std::size_t R, int Axis, std::size_t Size>
struct split_kind {
  static constexpr std::size_t axis = static_cast<std::size_t>(staticflow::detail::normalize_axis(Axis, R));
  struct dims {
    static constexpr std::size_t dim(std::size_t i, std::size_t n) { return i == axis ? Size : n; }
  };
  template <class S>
  using result_shape = typename detail::mapped_shape<S, dims>::type;
  std::size_t parts = 1, part = 0;
  bool operator==(const split_kind&) const = default;
  std::string name() const {
    return "Split[axis=" + std::to_string(axis) + " num_split=" + std::to_string(parts) + " part=" + std::to_string(part) + "]";
  }
  extents<R> extents_of(const extents<R>& in) const {
    if (in[axis] % parts != 0)
      throw shape_error("split: axis " + std::to_string(axis) + " of shape " + staticflow::detail::extents_string(in) +
                        " does not split into " + std::to_string(parts) + " equal parts");
    extents<R> out = in;
    out[axis] = in[axis] / parts;
    return out;
  }
  std::array<axis_rule, R> rules(const extents<R>& in, const extents<R>& out) const {
    auto r = detail::identity_rules(in);
    r[axis] = {axis_rule::form::strided, static_cast<std::ptrdiff_t>(part * out[axis]), 1, in[axis], out[axis]};
    return r;
  }
};

/// A part of tf.split(x, [s_0, ..., s_n], axis): the window of Size elements (sf::dyn: the part
/// given as -1, whatever the others leave) that starts `before` elements after the axis's start,
/// or, when a -1 part comes before it, ends `after` elements before the axis's end. `fixed` is
/// the sum of the sizes given as numbers, `inferred` whether one was -1.
template <std::size_t R, int Axis, std::size_t Size>
struct split_part_kind {
  static constexpr std::size_t axis = static_cast<std::size_t>(staticflow::detail::normalize_axis(Axis, R));
  struct dims {
    static constexpr std::size_t dim(std::size_t i, std::size_t n) { return i == axis ? Size : n; }
  };
  template <class S>
  using result_shape = typename detail::mapped_shape<S, dims>::type;
  std::size_t size = 0, before = 0, after = 0, fixed = 0, parts = 1, part = 0;
  bool inferred = false, from_end = false, is_rest = false;  // is_rest: this part is the -1
  bool operator==(const split_part_kind&) const = default;
  std::string name() const {
    return "SplitV[axis=" + std::to_string(axis) + " num_split=" + std::to_string(parts) + " part=" + std::to_string(part) +
           " size=" + (is_rest ? std::string("-1") : std::to_string(size)) + "]";
  }
  extents<R> extents_of(const extents<R>& in) const {
    if (inferred ? fixed > in[axis] : fixed != in[axis])
      throw shape_error("split: sizes adding up to " + std::to_string(fixed) + (inferred ? " (and one -1)" : "") +
                        " for axis " + std::to_string(axis) + " of shape " + staticflow::detail::extents_string(in));
    extents<R> out = in;
    out[axis] = Size == dyn ? in[axis] - fixed : size;
    return out;
  }
  std::array<axis_rule, R> rules(const extents<R>& in, const extents<R>& out) const {
    auto r = detail::identity_rules(in);
    const std::size_t begin = from_end ? in[axis] - after - out[axis] : before;
    r[axis] = {axis_rule::form::strided, static_cast<std::ptrdiff_t>(begin), 1, in[axis], out[axis]};
    return r;
  }
};

}  // namespace graph

/// The sizes of tf.split's parts along the axis (`sf::sizes<2, 3, -1>{}`): each a count, at most
/// one -1 (what the others leave).
template <std::ptrdiff_t... S>
struct sizes {};

namespace detail {
template <class T> struct is_static_paddings : std::false_type {};
template <std::size_t... P>
struct is_static_paddings<paddings<P...>> : std::true_type {
  template <padding_kind K, class XN, class T>
  static constexpr auto make(const XN& xn, T fill);
};
// split's and unstack's checks, keyed on the sizes and extents (not on node types) so each reports once.
template <std::size_t Parts, std::size_t Extent>
struct split_parts_check {
  static_assert(Parts >= 1, "staticflow: split: the number of parts must be at least 1");
  static constexpr bool ok = Parts >= 1 && (Extent == dyn || Extent % Parts == 0);
  static_assert(Parts == 0 || ok, "staticflow: split: the axis's extent does not split into equal parts");
};
template <std::ptrdiff_t... Sizes>
struct split_sizes_check {
  static constexpr std::size_t minus_ones = ((Sizes == -1 ? 1u : 0u) + ... + 0u);
  static constexpr bool ok = sizeof...(Sizes) >= 1 && minus_ones <= 1 && ((Sizes >= -1) && ...);
  static_assert(ok, "staticflow: split: the sizes must be counts (at least one), with at most one -1");
};
template <std::size_t Extent, std::size_t Fixed, bool Inferred>
struct split_total_check {
  static constexpr bool ok = Extent == dyn || (Inferred ? Fixed <= Extent : Fixed == Extent);
  static_assert(ok, "staticflow: split: the sizes do not add up to the axis's extent");
};
template <bool StaticExtent>
struct unstack_extent_check {
  static_assert(StaticExtent, "staticflow: unstack: the axis's extent must be static (the number of results is a C++ count)");
  static constexpr bool ok = StaticExtent;
};
template <class X, int... A>
struct axes_check {
  static constexpr std::size_t rank = X::shape_type::rank;
  static constexpr bool ok = (axis_in_range(A, rank) && ...);
  static_assert(ok, "staticflow: reverse / roll / repeat / split / unstack: an axis is out of range for the tensor's rank");
};
/// Whether axes A... name each axis of a rank-R tensor at most once (-1 and R - 1 are the same).
template <std::size_t R, int... A>
constexpr bool axes_are_distinct() {
  constexpr std::array<int, sizeof...(A)> a{normalize_axis(A, R)...};
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t j = i + 1; j < a.size(); ++j)
      if (a[i] == a[j]) return false;
  return true;
}
/// reverse's axes: each at most once (TF: "axis 0 specified more than once"; roll may repeat one).
template <class X, int... A>
struct distinct_axes_check {
  static constexpr bool in_range = axes_check<X, A...>::ok;
  static constexpr bool distinct = axes_are_distinct<X::shape_type::rank, A...>();
  static_assert(!in_range || distinct, "staticflow: reverse: an axis is given more than once");
  static constexpr bool ok = in_range && distinct;
};
// (a template of the rank, not of the node: a lambda traced and run eagerly reports once)
template <std::size_t Rank, std::size_t N>
struct per_axis_check {
  static constexpr bool ok = N == Rank;
  static_assert(ok, "staticflow: pad / tile: give one amount per axis of the tensor (two for pad: before and after)");
};
/// A run-time amount as an extent: non-negative, and below 2^63 (so that the kernels' signed
/// coordinates hold it).
template <class N>
constexpr std::size_t checked_extent(N n, const char* what) {
  if constexpr (std::is_signed<N>::value) {
    if (n < 0) throw shape_error(std::string(what) + " must be non-negative (got " + std::to_string(n) + ")");
  } else {
    if (n > static_cast<std::make_unsigned_t<std::ptrdiff_t>>(std::numeric_limits<std::ptrdiff_t>::max()))
      throw shape_error(std::string(what) + " must be below 2^63 (got " + std::to_string(n) + ")");
  }
  return static_cast<std::size_t>(n);
}
template <class X>
constexpr auto data_movement_operand(const X& x) {
  return as_node<void>(x);
}
}  // namespace detail

/// tf.reverse(x, axis): `sf::reverse(x, sf::axes<0, -1>{})` reverses the first and last axes.
template <detail::tensor_operand X, int... A>
constexpr auto reverse(const X& x, axes<A...>) {
  const auto xn = detail::data_movement_operand(x);
  using XN = std::remove_cvref_t<decltype(xn)>;
  if constexpr (!detail::distinct_axes_check<spec_of_node_t<XN>, A...>::ok) return xn;
  else return graph::axis_map<graph::reverse_kind<XN::shape_type::rank, A...>, XN>(xn, {});
}

/// tf.roll(x, shift, axis): `sf::roll(x, 2, sf::axes<1>{})`, `sf::roll(x, {1, -2}, sf::axes<0, 1>{})`
/// (one run-time shift per axis; negative shifts roll the other way).
template <detail::tensor_operand X, int... A>
constexpr auto roll(const X& x, const std::ptrdiff_t (&shift)[sizeof...(A)], axes<A...>) {
  const auto xn = detail::data_movement_operand(x);
  using XN = std::remove_cvref_t<decltype(xn)>;
  if constexpr (!detail::axes_check<spec_of_node_t<XN>, A...>::ok) {
    return xn;
  } else {
    graph::roll_kind<XN::shape_type::rank, A...> k{};
    for (std::size_t i = 0; i < sizeof...(A); ++i) k.shift[i] = shift[i];
    return graph::axis_map<decltype(k), XN>(xn, k);
  }
}
template <detail::tensor_operand X, int A>
constexpr auto roll(const X& x, std::ptrdiff_t shift, axes<A> a) {
  const std::ptrdiff_t shifts[1] = {shift};
  return roll(x, shifts, a);
}

/// tf.tile(x, multiples): static `sf::tile(x, sf::multiples<2, 3>{})` (a static result shape) or
/// run-time `sf::tile(x, {2, 3})` (run-time extents).
template <detail::tensor_operand X, std::size_t... M>
constexpr auto tile(const X& x, multiples<M...>) {
  const auto xn = detail::data_movement_operand(x);
  using XN = std::remove_cvref_t<decltype(xn)>;
  if constexpr (!detail::per_axis_check<XN::shape_type::rank, sizeof...(M)>::ok) return xn;
  else return graph::axis_map<graph::tile_kind<M...>, XN>(xn, {});
}
template <detail::tensor_operand X, class N, std::size_t R>
  requires std::is_integral<N>::value
constexpr auto tile(const X& x, const N (&multiple)[R]) {
  const auto xn = detail::data_movement_operand(x);
  using XN = std::remove_cvref_t<decltype(xn)>;
  if constexpr (!detail::per_axis_check<XN::shape_type::rank, R>::ok) {
    return xn;
  } else {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      graph::tile_kind<graph::detail::dyn_for<I>...> k{};
      for (std::size_t i = 0; i < R; ++i) k.multiple[i] = detail::checked_extent(multiple[i], "tile: multiples");
      return graph::axis_map<decltype(k), XN>(xn, k);
    }(std::make_index_sequence<R>{});
  }
}

/// tf.repeat(x, repeats, axis): each element along the axis `repeats` times in a row; repeats a
/// C++ integer (run-time extent) or a static value such as 3_c (static). Without an axis, x is
/// flattened first, as in TF.
template <detail::tensor_operand X, class N, int A>
  requires(std::is_integral<N>::value || static_value_type<N>)
constexpr auto repeat(const X& x, N repeats, axes<A>) {
  const auto xn = detail::data_movement_operand(x);
  using XN = std::remove_cvref_t<decltype(xn)>;
  if constexpr (!detail::axes_check<spec_of_node_t<XN>, A>::ok) {
    return xn;
  } else if constexpr (static_value_type<N>) {
    static_assert(N::value >= 0, "staticflow: repeat: repeats must be non-negative");
    using kind = graph::repeat_kind<XN::shape_type::rank, A, static_cast<std::size_t>(N::value < 0 ? 0 : N::value)>;
    return graph::axis_map<kind, XN>(xn, {});
  } else {
    using kind = graph::repeat_kind<XN::shape_type::rank, A, dyn>;
    return graph::axis_map<kind, XN>(xn, kind{detail::checked_extent(repeats, "repeat: repeats")});
  }
}
template <detail::tensor_operand X, class N>
  requires(std::is_integral<N>::value || static_value_type<N>)
constexpr auto repeat(const X& x, N repeats) {
  const auto xn = detail::data_movement_operand(x);
  using S = typename std::remove_cvref_t<decltype(xn)>::shape_type;
  return repeat(reshape<shape<S::is_static ? S::size : dyn>>(xn), repeats, axes<0>{});
}

namespace detail {
/// The static limits of the mirror modes (run-time extents are checked when the function runs).
template <padding_kind K, class S, std::size_t... P>
constexpr bool mirror_paddings_fit() {
  if constexpr (K == padding_kind::constant || !S::is_static) {
    return true;
  } else {
    constexpr std::array<std::size_t, sizeof...(P)> amount{P...};
    for (std::size_t i = 0; i < amount.size(); ++i) {
      const std::size_t n = S::dims[i / 2], limit = K == padding_kind::reflect ? (n ? n - 1 : 0) : n;
      if (amount[i] != dyn && amount[i] > limit) return false;
    }
    return true;
  }
}

/// pad's static checks, a template of the kind, the shape and the paddings (not of the node: a
/// lambda traced and run eagerly reports once).
template <padding_kind K, class S, std::size_t... P>
constexpr bool check_paddings() {
  static_assert(((P == dyn || P <= std::size_t{std::numeric_limits<std::ptrdiff_t>::max()}) && ...),
                "staticflow: pad: a padding must be below 2^63");
  constexpr bool fits = mirror_paddings_fit<K, S, P...>();
  static_assert(fits || K != padding_kind::reflect,
                "staticflow: pad: REFLECT paddings must be less than the extent of their axis");
  static_assert(fits || K != padding_kind::symmetric,
                "staticflow: pad: SYMMETRIC paddings must be no greater than the extent of their axis");
  return fits;
}

template <padding_kind K, class T, class XN, std::size_t... P>
constexpr auto make_pad(const XN& xn, const std::array<std::size_t, sizeof...(P)>& amount, T fill) {
  check_paddings<K, typename XN::shape_type, P...>();
  using kind = graph::pad_kind<T, K, P...>;
  return graph::axis_map<kind, XN>(xn, kind{amount, fill});
}

template <std::size_t... P>
template <padding_kind K, class XN, class T>
constexpr auto is_static_paddings<paddings<P...>>::make(const XN& xn, T fill) {
  return make_pad<K, T, XN, P...>(xn, {P...}, fill);
}

/// pad with amounts given statically (paddings<P...>) or at run time (an array of pairs).
template <padding_kind K, detail::tensor_operand X, class Amounts, class V>
constexpr auto pad_with(const X& x, const Amounts& amounts, V constant_value) {
  static_assert(std::is_arithmetic<V>::value, "staticflow: pad: constant_values must be a C++ number");
  const auto xn = detail::data_movement_operand(x);
  using XN = std::remove_cvref_t<decltype(xn)>;
  using T = typename XN::value_type;
  const T fill = static_cast<T>(constant_value);
  if constexpr (is_static_paddings<Amounts>::value) {
    if constexpr (!per_axis_check<XN::shape_type::rank, Amounts::count / 2>::ok) return xn;
    else return is_static_paddings<Amounts>::template make<K>(xn, fill);
  } else {
    constexpr std::size_t R = std::extent_v<Amounts>;
    if constexpr (!per_axis_check<XN::shape_type::rank, R>::ok) {
      return xn;
    } else {
      std::array<std::size_t, 2 * R> amount{};
      for (std::size_t i = 0; i < R; ++i)
        for (std::size_t j = 0; j < 2; ++j) amount[2 * i + j] = checked_extent(amounts[i][j], "pad: paddings");
      return [&]<std::size_t... I>(std::index_sequence<I...>) {
        return make_pad<K, T, XN, graph::detail::dyn_for<I>...>(xn, amount, fill);
      }(std::make_index_sequence<2 * R>{});
    }
  }
}
}  // namespace detail

/// tf.pad(x, paddings, mode, constant_values): paddings static, `sf::paddings<1, 1, 0, 2>{}` (two
/// amounts per axis; a static result shape), or at run time, `{{1, 1}, {0, 2}}`; then optionally
/// the constant (0 by default) or a mode: `sf::pad_mode::reflect` / `symmetric` /
/// `constant` (with its value after it).
template <detail::tensor_operand X, std::size_t... P, class V = int>
  requires std::is_arithmetic<V>::value
constexpr auto pad(const X& x, paddings<P...> p, V constant_value = 0) {
  return detail::pad_with<padding_kind::constant>(x, p, constant_value);
}
template <detail::tensor_operand X, std::size_t... P, padding_kind K, class V = int>
constexpr auto pad(const X& x, paddings<P...> p, pad_mode::tag<K>, V constant_value = 0) {
  static_assert(K == padding_kind::constant || std::is_same<V, int>::value,
                "staticflow: pad: constant_values apply to sf::pad_mode::constant only");
  return detail::pad_with<K>(x, p, constant_value);
}
template <detail::tensor_operand X, class N, std::size_t R, class V = int>
  requires(std::is_integral<N>::value && std::is_arithmetic<V>::value)
constexpr auto pad(const X& x, const N (&amounts)[R][2], V constant_value = 0) {
  return detail::pad_with<padding_kind::constant>(x, amounts, constant_value);
}
template <detail::tensor_operand X, class N, std::size_t R, padding_kind K, class V = int>
  requires std::is_integral<N>::value
constexpr auto pad(const X& x, const N (&amounts)[R][2], pad_mode::tag<K>, V constant_value = 0) {
  static_assert(K == padding_kind::constant || std::is_same<V, int>::value,
                "staticflow: pad: constant_values apply to sf::pad_mode::constant only");
  return detail::pad_with<K>(x, amounts, constant_value);
}

/// tf.split(x, Parts, axis): Parts equal windows of the axis, as a std::array of symbolic tensors
/// (static extents where the axis's extent is static; sf::shape_error at run time when a run-time
/// extent does not divide).
template <std::size_t Parts, detail::tensor_operand X, int A>
constexpr auto split(const X& x, axes<A>) {
  const auto xn = detail::data_movement_operand(x);
  using XN = std::remove_cvref_t<decltype(xn)>;
  using S = typename XN::shape_type;
  if constexpr (!detail::split_parts_check<Parts, dyn>::ok || !detail::axes_check<spec_of_node_t<XN>, A>::ok) {
    return std::array<XN, Parts>{};
  } else {
    constexpr std::size_t ax = static_cast<std::size_t>(detail::normalize_axis(A, S::rank));
    constexpr std::size_t n = S::dims[ax];
    [[maybe_unused]] constexpr bool parts_ok = detail::split_parts_check<Parts, n>::ok;
    using kind = graph::split_kind<S::rank, A, n == dyn ? dyn : n / Parts>;
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return std::array<graph::axis_map<kind, XN>, Parts>{graph::axis_map<kind, XN>(xn, kind{Parts, I})...};
    }(std::make_index_sequence<Parts>{});
  }
}

/// tf.split(x, [s_0, ..., s_n], axis): the parts of the given sizes along the axis, as a std::tuple
/// of symbolic tensors (at most one size -1: what the others leave). The sizes must add up to the
/// axis's extent: a compile error where it is static, sf::shape_error at run time otherwise.
template <detail::tensor_operand X, std::ptrdiff_t... Sizes, int A>
constexpr auto split(const X& x, sizes<Sizes...>, axes<A>) {
  const auto xn = detail::data_movement_operand(x);
  using XN = std::remove_cvref_t<decltype(xn)>;
  using S = typename XN::shape_type;
  constexpr std::array<std::ptrdiff_t, sizeof...(Sizes)> given{Sizes...};
  constexpr std::size_t count = sizeof...(Sizes), minus_ones = ((Sizes == -1 ? 1u : 0u) + ... + 0u);
  constexpr bool sizes_ok = detail::split_sizes_check<Sizes...>::ok;
  if constexpr (!detail::axes_check<spec_of_node_t<XN>, A>::ok || !sizes_ok) {
    return std::tuple<XN>{xn};
  } else {
    constexpr std::size_t ax = static_cast<std::size_t>(detail::normalize_axis(A, S::rank)), n = S::dims[ax];
    constexpr std::size_t fixed = ((Sizes == -1 ? 0u : static_cast<std::size_t>(Sizes)) + ... + 0u);
    [[maybe_unused]] constexpr bool total_ok = detail::split_total_check<n, fixed, (minus_ones > 0)>::ok;
    constexpr std::size_t inferred_size = n == dyn || fixed > n ? dyn : n - fixed;
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      const auto part = [&]<std::size_t K>(std::integral_constant<std::size_t, K>) {
        constexpr bool is_inferred = given[K] == -1;
        constexpr std::size_t size = is_inferred ? inferred_size : static_cast<std::size_t>(given[K]);
        using kind = graph::split_part_kind<S::rank, A, size>;
        kind k{};
        bool minus_one_before = false;
        for (std::size_t j = 0; j < count; ++j) {
          const std::size_t s = given[j] == -1 ? 0 : static_cast<std::size_t>(given[j]);
          if (j < K) {
            minus_one_before = minus_one_before || given[j] == -1;
            k.before += s;
          }
          if (j > K) k.after += s;
        }
        k.size = size == dyn ? 0 : size, k.fixed = fixed, k.inferred = minus_ones == 1, k.from_end = minus_one_before;
        k.is_rest = is_inferred, k.parts = count, k.part = K;
        return graph::axis_map<kind, XN>(xn, k);
      };
      return std::tuple{part(std::integral_constant<std::size_t, I>{})...};
    }(std::make_index_sequence<count>{});
  }
}
template <detail::tensor_operand X, std::ptrdiff_t... Sizes>
constexpr auto split(const X& x, sizes<Sizes...> s) {
  return split(x, s, axes<0>{});
}

/// tf.unstack(x, axis): the slices along a static-extent axis, each without that axis.
template <detail::tensor_operand X, int A>
constexpr auto unstack(const X& x, axes<A> a) {
  const auto xn = detail::data_movement_operand(x);
  using XN = std::remove_cvref_t<decltype(xn)>;
  using S = typename XN::shape_type;
  if constexpr (!detail::axes_check<spec_of_node_t<XN>, A>::ok) {
    return std::array<XN, 1>{xn};
  } else {
    constexpr std::size_t n = S::dims[static_cast<std::size_t>(detail::normalize_axis(A, S::rank))];
    [[maybe_unused]] constexpr bool extent_ok = detail::unstack_extent_check<n != dyn>::ok;  // else one result goes on
    if constexpr (n == 0) {  // TF's []
      using part = graph::axis_map<graph::split_kind<S::rank, A, 1>, XN>;
      return std::array<decltype(squeeze(std::declval<const part&>(), a)), 0>{};
    } else {
      constexpr std::size_t count = n == dyn ? 1 : n;
      const auto parts = split<count>(xn, a);
      return [&]<std::size_t... I>(std::index_sequence<I...>) {
        return std::array{squeeze(parts[I], a)...};
      }(std::make_index_sequence<count>{});
    }
  }
}

}  // namespace staticflow
