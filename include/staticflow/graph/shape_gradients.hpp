// staticflow/graph/shape_gradients.hpp -- the gradient nodes of the shape ops that move a window
// of their operand: slice and x[i] (the adjoint is zeros of the operand's shape with the output's
// adjoint put back where the window came from, TF's SliceGrad / a Pad) and concat (each part's
// adjoint is its window of the output's adjoint, TF's ConcatGrad).
//
// All three are materialized nodes. The operand they are the gradient of is a child for its
// extents only (kernels never read its values), so run-time shapes work as for the forward op.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/control/index.hpp"
#include "staticflow/core/errors.hpp"
#include "staticflow/graph/child_refs.hpp"
#include "staticflow/graph/shape_ops.hpp"
#include "staticflow/graph/traversal.hpp"

namespace staticflow::graph {

/// The gradient of slice(a, axes<Axis>, begin, size): zeros shaped like a, with g (a's shape but
/// `size` along the axis) at [begin, begin + size) of the axis. (`size` is kept for this node's
/// own adjoint, the slice again: autodiff/rules.hpp.)
template <int Axis, class G, class A>
struct slice_gradient : node<slice_gradient<Axis, G, A>> {
  static constexpr bool materialized = true;
  static constexpr std::size_t rank = A::shape_type::rank;
  static constexpr std::size_t axis = static_cast<std::size_t>(staticflow::detail::normalize_axis(Axis, rank));
  using value_type = typename G::value_type;
  using shape_type = typename A::shape_type;
  G g;
  A a;
  std::size_t begin, size;
  constexpr slice_gradient(G g_, A a_, std::size_t b, std::size_t n) : g(g_), a(a_), begin(b), size(n) {}
  constexpr child_refs<const G&, const A&> children() const { return {{{g}, {a}}}; }
  template <class H, class B>
  constexpr auto with_children(const H& h, const B& b) const { return slice_gradient<Axis, H, B>(h, b, begin, size); }
  constexpr bool same_parameters(const slice_gradient& o) const { return begin == o.begin && size == o.size; }
  std::string name() const { return "SliceGrad[axis=" + std::to_string(axis) + " begin=" + std::to_string(begin) + "]"; }
  extents<rank> result_extents(const extents<rank>& eg, const extents<rank>& ea) const {
    for (std::size_t i = 0; i < rank; ++i)
      if (i == axis ? begin + eg[i] > ea[i] : eg[i] != ea[i])
        throw shape_error("slice gradient: an adjoint of shape " + staticflow::detail::extents_string(eg) +
                          " does not fit shape " + staticflow::detail::extents_string(ea) + " at " + std::to_string(begin) +
                          " of axis " + std::to_string(axis));
    return ea;
  }
};

/// The gradient of x[i]: zeros shaped like x, with g (x's shape without the leading axis) at
/// position i of the leading axis (a negative i counts from the end, as the forward x[i]).
template <class G, class X, class I>
struct take_gradient : node<take_gradient<G, X, I>> {
  static constexpr bool materialized = true;
  static constexpr std::size_t rank = X::shape_type::rank;
  using value_type = typename G::value_type;
  using shape_type = typename X::shape_type;
  G g;
  X a;
  I index;
  constexpr take_gradient(G g_, X a_, I i) : g(g_), a(a_), index(i) {}
  constexpr child_refs<const G&, const X&, const I&> children() const { return {{{g}, {a}, {index}}}; }
  template <class H, class Y, class J>
  constexpr auto with_children(const H& h, const Y& y, const J& j) const { return take_gradient<H, Y, J>(h, y, j); }
  std::string name() const { return "StridedSliceGrad"; }
  extents<rank> result_extents(const extents<rank - 1>& eg, const extents<rank>& ex, const extents<0>&) const {
    for (std::size_t i = 0; i + 1 < rank; ++i)
      if (eg[i] != ex[i + 1])
        throw shape_error("x[i] gradient: an adjoint of shape " + staticflow::detail::extents_string(eg) +
                          " is not a row of shape " + staticflow::detail::extents_string(ex));
    return ex;
  }
};

/// The gradient of part K of concat<Axis>(parts...): the window of g that part K filled along the
/// axis (the parts are children for their extents, which give where the window starts).
template <std::size_t K, int Axis, class G, class... A>
struct concat_gradient : node<concat_gradient<K, Axis, G, A...>> {
  static constexpr bool materialized = true;
  using part = std::tuple_element_t<K, std::tuple<A...>>;
  static constexpr std::size_t rank = part::shape_type::rank;
  static constexpr std::size_t axis = static_cast<std::size_t>(staticflow::detail::normalize_axis(Axis, rank));
  using value_type = typename G::value_type;
  using shape_type = typename part::shape_type;
  G g;
  std::tuple<A...> parts;
  constexpr concat_gradient(G g_, const std::tuple<A...>& p) : g(g_), parts(p) {}
  constexpr auto children() const {
    return staticflow::detail::apply([&](const auto&... p) { return child_refs<const G&, const A&...>{{{g}, {p}...}}; }, parts);
  }
  template <class H, class... B>
  constexpr auto with_children(const H& h, const B&... b) const {
    return concat_gradient<K, Axis, H, B...>(h, std::tuple<B...>(b...));
  }
  std::string name() const { return "ConcatGrad[dimension=" + std::to_string(axis) + " part=" + std::to_string(K) + "]"; }
  /// Where part K starts along the axis, from the parts' extents.
  template <class... E>
  static std::size_t offset_of(const E&... parts_extents) {
    std::size_t offset = 0, j = 0;
    ((offset += j++ < K ? parts_extents[axis] : 0), ...);
    return offset;
  }
  /// ... from the views' run-time extents (ExtViews as node_extents takes them).
  template <class ExtViews>
  std::size_t offset_in(const ExtViews& ext_views) const {
    return staticflow::detail::apply([&](const auto&... p) { return offset_of(node_extents(p, ext_views)...); }, parts);
  }
  template <class... E>
  extents<rank> result_extents(const extents<rank>& eg, const E&... ea) const {
    const extents<rank> mine = staticflow::detail::get<K>(std::tie(ea...));
    if (offset_of(ea...) + mine[axis] > eg[axis])
      throw shape_error("concat gradient: an adjoint of shape " + staticflow::detail::extents_string(eg) +
                        " is shorter than the concatenated parts along axis " + std::to_string(axis));
    return mine;
  }
};

}  // namespace staticflow::graph
