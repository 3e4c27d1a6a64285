// staticflow/graph/axis_map.hpp -- the node type of the ops whose every result coordinate, axis by
// axis, reads one coordinate of the operand or a fill value (graph/data_movement.hpp: reverse,
// roll, tile, repeat, pad, split; graph/slicing.hpp: strided slices).
//
// An op of this family is a kind: it turns the run-time extents into one graph::axis_rule per
// axis. A single node type (graph::axis_map) and a single kernel per backend serve them all, so a
// new op costs a kind, not a kernel. The gradient is the same map read backwards
// (graph::axis_map_gradient): each operand element sums the adjoint at every result element that
// read it, in row-major order of those elements, so the CPU and the device add in the same order.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <tuple>

#include "staticflow/core/axes.hpp"
#include "staticflow/core/config.hpp"
#include "staticflow/core/errors.hpp"
#include "staticflow/core/shape.hpp"
#include "staticflow/graph/child_refs.hpp"
#include "staticflow/graph/node.hpp"
#include "staticflow/graph/traversal.hpp"

namespace staticflow {
namespace detail {
/// a * b and a + b of extents, or sf::shape_error naming the op when they do not fit a size_t.
inline std::size_t checked_product(std::size_t a, std::size_t b, const char* what) {
  if (b != 0 && a > std::size_t(-1) / b) throw shape_error(std::string(what) + ": the result's extent does not fit a size_t");
  return a * b;
}
inline std::size_t checked_sum(std::size_t a, std::size_t b, const char* what) {
  if (a > std::size_t(-1) - b) throw shape_error(std::string(what) + ": the result's extent does not fit a size_t");
  return a + b;
}
}  // namespace detail

namespace graph {

/// How result coordinate p along one axis picks the operand's coordinate (n: the operand's
/// extent, m: the result's), and back: which result coordinates read operand coordinate i, in
/// increasing order (`count` of them, the k-th by `nth`).
struct axis_rule {
  enum class form : unsigned char {
    strided,    // a + b * p, outside [0, n) the fill value: slice, reverse, constant padding
    wrapped,    // (p + a) mod n: roll, tile
    repeated,   // p / a: repeat
    reflected,  // p - a mirrored at the edges, without the edge (a: padding before)
    symmetric,  // p - a mirrored at the edges, with the edge
  };
  form how = form::strided;
  std::ptrdiff_t a = 0, b = 1;
  std::size_t n = 0, m = 0;

  static constexpr axis_rule identity(std::size_t n) { return {form::strided, 0, 1, n, n}; }

  /// The operand coordinate result coordinate p reads, or -1 for the fill value.
  STATICFLOW_HD constexpr std::ptrdiff_t source(std::size_t p) const {
    const auto sn = static_cast<std::ptrdiff_t>(n), sp = static_cast<std::ptrdiff_t>(p);
    switch (how) {
      case form::strided: {
        const std::ptrdiff_t q = a + b * sp;
        return q >= 0 && q < sn ? q : -1;
      }
      case form::wrapped: return (sp + a) % sn;
      case form::repeated: return sp / a;
      case form::reflected: {
        const std::ptrdiff_t q = sp - a;
        return q < 0 ? -q : q >= sn ? 2 * (sn - 1) - q : q;
      }
      case form::symmetric: {
        const std::ptrdiff_t q = sp - a;
        return q < 0 ? -q - 1 : q >= sn ? 2 * sn - 1 - q : q;
      }
    }
    return -1;
  }

  /// The stretch of result coordinates from p on (p < m) that read the operand linearly: its
  /// length (1 to m - p), its first source (-1: the fill value) and its step (source p + k is
  /// source + k * step). Closed forms per form, so that a row is cut into runs in a step per run
  /// rather than a test per element (a 1M-element slice: 3 runs, not 2M calls of source).
  STATICFLOW_HD constexpr std::size_t run_at(std::size_t p, std::ptrdiff_t& first, std::ptrdiff_t& step) const {
    const auto sn = static_cast<std::ptrdiff_t>(n), sp = static_cast<std::ptrdiff_t>(p);
    const std::ptrdiff_t left = static_cast<std::ptrdiff_t>(m) - sp;
    const auto within = [left](std::ptrdiff_t length) {
      return static_cast<std::size_t>(length < 1 ? 1 : length > left ? left : length);
    };
    first = source(p);
    switch (how) {
      case form::strided: {
        const std::ptrdiff_t q = a + b * sp;
        step = b;
        if (q >= 0 && q < sn) return within(b > 0 ? (sn - 1 - q) / b + 1 : b < 0 ? q / -b + 1 : left);
        step = 0;  // the fill, until a + b * p enters [0, n) (if it ever does)
        if (b > 0 && q < 0) return within((-q + b - 1) / b);
        if (b < 0 && q >= sn) return within((q - sn - b) / -b);
        return within(left);
      }
      case form::wrapped: step = 1; return within(sn - first);
      case form::repeated: step = 0; return within(a - sp % a);
      case form::reflected:
      case form::symmetric: {
        const std::ptrdiff_t q = sp - a;
        step = q >= 0 && q < sn ? 1 : -1;
        return within(q < 0 ? -q : q < sn ? sn - q : left);
      }
    }
    step = 1;
    return 1;
  }

  /// How many result coordinates read operand coordinate i (< n).
  STATICFLOW_HD constexpr std::size_t count(std::size_t i) const {
    std::size_t found[3];
    return how == form::wrapped    ? wrapped_count(i)
           : how == form::repeated ? static_cast<std::size_t>(a)
                                   : listed(i, found);
  }
  /// The k-th (k < count(i)) result coordinate that reads operand coordinate i.
  STATICFLOW_HD constexpr std::size_t nth(std::size_t i, std::size_t k) const {
    if (how == form::wrapped) return first_wrapped(i) + k * n;
    if (how == form::repeated) return i * static_cast<std::size_t>(a) + k;
    std::size_t found[3] = {0, 0, 0};
    listed(i, found);
    return found[k];
  }

 private:
  STATICFLOW_HD constexpr std::size_t first_wrapped(std::size_t i) const {
    const auto sn = static_cast<std::ptrdiff_t>(n);
    return static_cast<std::size_t>(((static_cast<std::ptrdiff_t>(i) - a) % sn + sn) % sn);
  }
  STATICFLOW_HD constexpr std::size_t wrapped_count(std::size_t i) const {
    const std::size_t p0 = first_wrapped(i);
    return p0 < m ? (m - p0 + n - 1) / n : 0;
  }
  /// The (at most 3) readers of i for the strided and mirrored forms, in increasing order.
  STATICFLOW_HD constexpr std::size_t listed(std::size_t i, std::size_t (&found)[3]) const {
    const auto si = static_cast<std::ptrdiff_t>(i), sn = static_cast<std::ptrdiff_t>(n), sm = static_cast<std::ptrdiff_t>(m);
    std::size_t c = 0;
    auto add = [&](std::ptrdiff_t p) {
      if (p >= 0 && p < sm) found[c++] = static_cast<std::size_t>(p);
    };
    if (how == form::strided) {
      const std::ptrdiff_t d = si - a;
      if (d % b == 0) add(d / b);
    } else if (how == form::reflected) {
      if (si >= 1 && si <= a) add(a - si);
      add(a + si);
      if (si <= sn - 2) add(a + 2 * (sn - 1) - si);
    } else {
      if (si < a) add(a - 1 - si);
      add(a + si);
      add(a + 2 * sn - 1 - si);
    }
    return c;
  }
};

/// Where the result of an axis map with these rules lies in its row-major operand when it is one
/// contiguous stretch of it, element for element: NumPy's view of a basic slice (whole trailing
/// axes, left of them one axis cut to a stretch with step 1, left of that one coordinate per axis).
/// The offset of its first element, or -1 when it is not such a stretch (a step, a reversal, a
/// wrap or a fill) or is empty. The backends then read the slice where it lies
/// (plan/slot_views.hpp).
template <std::size_t R>
constexpr std::ptrdiff_t contiguous_stretch(const std::array<axis_rule, R>& rules) {
  std::size_t offset = 0, stride = 1;
  bool trailing_whole = true;  // every axis right of d is whole
  for (std::size_t d = R; d-- > 0;) {
    const axis_rule& r = rules[d];
    if (r.how != axis_rule::form::strided || r.m == 0) return -1;
    if (trailing_whole && r.a == 0 && r.m == r.n && (r.b == 1 || r.m == 1)) {  // the whole axis
      stride *= r.n;
      continue;
    }
    // this axis reads [a, a + m) (step 1, or a single coordinate); every axis left of it one coordinate
    if ((r.m > 1 && (!trailing_whole || r.b != 1)) || r.a < 0 || static_cast<std::size_t>(r.a) + r.m > r.n) return -1;
    offset += static_cast<std::size_t>(r.a) * stride;
    stride *= r.n;
    trailing_whole = false;
  }
  return static_cast<std::ptrdiff_t>(offset);
}

/// Where the result of an axis map with these rules lies in its row-major operand when every axis
/// reads it with a fixed non-negative step and the last axis with step 1 (NumPy's view of a basic
/// slice with no reversal: `u[1:-1, 2:]`, columns, every other row): the offset of its first
/// element, and in `strides` how many operand elements apart neighbours along each result axis are.
/// False when it is not such a layout (a reversal, a step along the last axis, a wrap or a fill)
/// or is empty. The CPU backend's fused loops read such a slice where it lies (plan/slot_views.hpp).
template <std::size_t R>
constexpr bool strided_layout(const std::array<axis_rule, R>& rules, std::size_t& offset, extents<R>& strides) {
  offset = 0;
  std::size_t operand_stride = 1;
  for (std::size_t d = R; d-- > 0;) {
    const axis_rule& r = rules[d];
    if (r.how != axis_rule::form::strided || r.m == 0 || r.a < 0) return false;
    const std::ptrdiff_t step = r.m == 1 ? 0 : r.b;  // (one coordinate: any step reads it)
    if (step < 0 || (d + 1 == R && step > 1)) return false;
    if (static_cast<std::size_t>(r.a) + static_cast<std::size_t>(step) * (r.m - 1) >= r.n) return false;  // a fill
    offset += static_cast<std::size_t>(r.a) * operand_stride;
    strides[d] = static_cast<std::size_t>(step) * operand_stride;
    operand_stride *= r.n;
  }
  return true;
}

/// An op of this family: its result at each coordinate is the operand at the coordinates its kind's
/// axis rules pick (or the kind's fill value). Materialized: one copy per call.
template <class Kind, class A>
struct axis_map : node<axis_map<Kind, A>> {
  static constexpr bool materialized = true;
  static constexpr std::size_t rank = A::shape_type::rank;
  using kind = Kind;
  using value_type = typename A::value_type;
  using shape_type = typename Kind::template result_shape<typename A::shape_type>;
  A a;
  Kind params;
  constexpr axis_map(A a_, Kind k) : a(a_), params(k) {}
  constexpr child_refs<const A&> children() const { return {a}; }
  template <class C>
  constexpr auto with_children(const C& c) const { return axis_map<Kind, C>(c, params); }
  constexpr bool same_parameters(const axis_map& o) const { return params == o.params; }
  std::string name() const { return params.name(); }
  extents<rank> result_extents(const extents<rank>& in) const { return params.extents_of(in); }
  /// The rule of each axis for an operand of extents `in` (whose result has extents_of(in)).
  std::array<axis_rule, rank> rules(const extents<rank>& in) const { return params.rules(in, params.extents_of(in)); }
};

/// The gradient of axis_map<Kind, A> with respect to its operand: each operand element sums the
/// adjoint of the result elements that read it. a is a child for its extents only.
template <class Kind, class G, class A>
struct axis_map_gradient : node<axis_map_gradient<Kind, G, A>> {
  static constexpr bool materialized = true;
  static constexpr std::size_t rank = A::shape_type::rank;
  using value_type = typename G::value_type;
  using shape_type = typename A::shape_type;
  G g;
  A a;
  Kind params;
  constexpr axis_map_gradient(G g_, A a_, Kind k) : g(g_), a(a_), params(k) {}
  constexpr child_refs<const G&, const A&> children() const { return {{{g}, {a}}}; }
  template <class H, class B>
  constexpr auto with_children(const H& h, const B& b) const { return axis_map_gradient<Kind, H, B>(h, b, params); }
  constexpr bool same_parameters(const axis_map_gradient& o) const { return params == o.params; }
  std::string name() const { return params.name() + "Grad"; }
  extents<rank> result_extents(const extents<rank>& eg, const extents<rank>& ea) const {
    if (!staticflow::detail::same_extents(eg, params.extents_of(ea)))
      throw shape_error("gradient of " + params.name() + ": an adjoint of shape " + staticflow::detail::extents_string(eg) +
                        " for an operand of shape " + staticflow::detail::extents_string(ea));
    return ea;
  }
  std::array<axis_rule, rank> rules(const extents<rank>& in) const { return params.rules(in, params.extents_of(in)); }
};

namespace detail {
/// sf::dyn for each element of a pack (run-time amounts, one per axis).
template <std::size_t>
inline constexpr std::size_t dyn_for = dyn;

/// A result shape that keeps S's extents on every axis but replaces them per axis: Dim(i, n).
template <class S, class F, class I = std::make_index_sequence<S::rank>>
struct mapped_shape;
template <class S, class F, std::size_t... I>
struct mapped_shape<S, F, std::index_sequence<I...>> {
  using type = shape<F::dim(I, S::dims[I])...>;
};
struct same_dims {
  static constexpr std::size_t dim(std::size_t, std::size_t n) { return n; }
};

inline std::string list_string(const auto& values) {
  std::string s = "(";
  for (std::size_t i = 0; i < values.size(); ++i) s += (i ? "," : "") + std::to_string(values[i]);
  return s + (values.size() == 1 ? ",)" : ")");
}

template <std::size_t R, std::size_t N>
constexpr std::array<std::size_t, N> normalized_axes(const std::array<int, N>& a) {
  std::array<std::size_t, N> out{};
  for (std::size_t i = 0; i < N; ++i) out[i] = static_cast<std::size_t>(staticflow::detail::normalize_axis(a[i], R));
  return out;
}
template <std::size_t R>
std::array<axis_rule, R> identity_rules(const extents<R>& in) {
  std::array<axis_rule, R> r{};
  for (std::size_t i = 0; i < R; ++i) r[i] = axis_rule::identity(in[i]);
  return r;
}
}  // namespace detail
}  // namespace graph

}  // namespace staticflow
