// staticflow/graph/shape_ops.hpp -- ops that move elements rather than compute them: transpose,
// reshape, expand_dims, squeeze, slice, concat, stack, broadcast_to, one_hot. Each is materialized
// (one copy per call) except broadcast_to, which is elementwise: broadcasting happens inside the
// fused loop, with no copy at all.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <tuple>
#include <utility>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/core/axes.hpp"
#include "staticflow/core/broadcast.hpp"
#include "staticflow/graph/child_refs.hpp"
#include "staticflow/graph/elementwise.hpp"

namespace staticflow {
namespace op {
/// The identity, as the op of broadcast_to's elementwise node.
struct identity : elementwise_op<identity, operands::any> {
  static constexpr std::string_view name = "broadcast_in_dim";
  template <class T> STATICFLOW_HD static constexpr T apply(T a) { return a; }
};
}  // namespace op

namespace graph {
namespace detail {
template <std::size_t... D>
constexpr std::size_t static_size(shape<D...>) {
  return ((D == dyn ? std::size_t{0} : D) * ... * std::size_t{1});
}
template <class S, std::size_t... P>
auto permuted_shape(std::index_sequence<P...>) -> shape<S::dims[P]...>;

/// S without the axes K... (which must have extent 1, or be run-time dims checked at run time).
template <class S, int... K>
struct squeezed {
  static constexpr std::array<bool, S::rank> drop = [] {
    std::array<bool, S::rank> d{};
    ((d[static_cast<std::size_t>(staticflow::detail::normalize_axis(K, S::rank))] = true), ...);
    return d;
  }();
  static constexpr bool valid = [] {
    for (std::size_t i = 0; i < S::rank; ++i)
      if (drop[i] && S::dims[i] != 1 && S::dims[i] != dyn) return false;
    return true;
  }();
  static constexpr std::size_t kept = S::rank - sizeof...(K);
  static constexpr std::array<std::size_t, kept> dims = [] {
    std::array<std::size_t, kept> out{};
    for (std::size_t i = 0, j = 0; i < S::rank; ++i)
      if (!drop[i]) out[j++] = S::dims[i];
    return out;
  }();
  template <std::size_t... I>
  static auto make(std::index_sequence<I...>) -> shape<dims[I]...>;
  using type = decltype(make(std::make_index_sequence<kept>{}));
};

// Result shapes of the shape ops, as partial specializations rather than lambdas in decltype:
// nvcc 13's front end crashes on a lambda in an alias template of a class template that uses the
// class's own parameters ("internal error ... update_template_param_symbol").
template <int K, class S, class I = std::make_index_sequence<S::rank + 1>>
struct expanded_shape;
template <int K, class S, std::size_t... I>
struct expanded_shape<K, S, std::index_sequence<I...>> {
  static constexpr std::size_t k = static_cast<std::size_t>(staticflow::detail::normalize_axis(K, S::rank + 1));
  using type = shape<(I == k ? 1 : S::dims[I < k ? I : I - 1])...>;
};
template <int Axis, class S, class I = std::make_index_sequence<S::rank>>
struct sliced_shape;
template <int Axis, class S, std::size_t... I>
struct sliced_shape<Axis, S, std::index_sequence<I...>> {
  static constexpr std::size_t ax = static_cast<std::size_t>(staticflow::detail::normalize_axis(Axis, S::rank));
  using type = shape<(I == ax ? dyn : S::dims[I])...>;
};
template <std::size_t Depth, class S, class I = std::make_index_sequence<S::rank>>
struct one_hot_shape;
template <std::size_t Depth, class S, std::size_t... I>
struct one_hot_shape<Depth, S, std::index_sequence<I...>> {
  using type = shape<S::dims[I]..., Depth>;
};
template <std::size_t Axis, class First, class Shapes, class I = std::make_index_sequence<First::rank>>
struct concat_shape;
template <std::size_t Axis, class First, class... S, std::size_t... I>
struct concat_shape<Axis, First, std::tuple<S...>, std::index_sequence<I...>> {
  static constexpr bool any_dyn = ((S::dims[Axis] == dyn) || ...);
  using type = shape<(I == Axis ? (any_dyn ? dyn : (S::dims[Axis] + ...)) : First::dims[I])...>;
};
}  // namespace detail

/// A materialized op that rearranges one operand: Kind says how (see backend/cpu/shape_ops.hpp).
template <class Kind, class A>
struct rearrange : node<rearrange<Kind, A>> {
  static constexpr bool materialized = true;
  using kind = Kind;
  using value_type = typename Kind::template result_type<typename A::value_type>;
  using shape_type = typename Kind::template result_shape<typename A::shape_type>;
  A a;
  Kind params;
  constexpr rearrange(A a_, Kind k) : a(a_), params(k) {}
  constexpr child_refs<const A&> children() const { return {a}; }
  template <class C>
  constexpr auto with_children(const C& c) const { return rearrange<Kind, C>(c, params); }
  constexpr bool same_parameters(const rearrange& o) const { return params == o.params; }
  std::string name() const { return params.name(); }
  extents<shape_type::rank> result_extents(const extents<A::shape_type::rank>& in) const {
    return params.template extents_of<shape_type::rank>(in);
  }
};

/// transpose with a static permutation.
template <int... P>
struct transpose_kind {
  template <class T>
  using result_type = T;
  static constexpr std::array<std::size_t, sizeof...(P)> perm{static_cast<std::size_t>(P)...};
  template <class S>
  using result_shape = decltype(detail::permuted_shape<S>(std::index_sequence<static_cast<std::size_t>(P)...>{}));
  bool operator==(const transpose_kind&) const = default;
  std::string name() const {
    std::string s = "transpose[permutation=(";
    std::size_t i = 0;
    ((s += (i++ ? "," : "") + std::to_string(P)), ...);
    return s + ")]";
  }
  template <std::size_t R, std::size_t RI>
  extents<R> extents_of(const extents<RI>& in) const {
    extents<R> out{};
    for (std::size_t i = 0; i < R; ++i) out[i] = in[perm[i]];
    return out;
  }
};

/// reshape to Target (one dim may be sf::dyn: inferred from the size, like TensorFlow's -1).
template <class Target>
struct reshape_kind {
  static constexpr bool keeps_order = true;
  template <class T>
  using result_type = T;
  template <class S>
  using result_shape = Target;
  bool operator==(const reshape_kind&) const = default;
  std::string name() const { return "reshape[new_sizes=" + staticflow::detail::shape_string(Target{}) + "]"; }
  template <std::size_t R, std::size_t RI>
  extents<R> extents_of(const extents<RI>& in) const {
    const std::size_t size = staticflow::detail::product(in);
    extents<R> out{};
    std::size_t known = 1, inferred = R;
    for (std::size_t i = 0; i < R; ++i) {
      if (Target::dims[i] == dyn) inferred = i;
      else known *= (out[i] = Target::dims[i]);
    }
    if (inferred < R) {
      if (known == 0 || size % known != 0)
        throw shape_error("reshape: cannot reshape " + staticflow::detail::extents_string(in) + " to " +
                          staticflow::detail::shape_string(Target{}));
      out[inferred] = size / known;
    } else if (known != size) {
      throw shape_error("reshape: cannot reshape " + staticflow::detail::extents_string(in) + " to " +
                        staticflow::detail::shape_string(Target{}));
    }
    return out;
  }
};

/// expand_dims: a new axis of extent 1 at K (the element order does not change).
template <int K>
struct expand_dims_kind {
  static constexpr bool keeps_order = true;
  template <class T>
  using result_type = T;
  template <class S>
  using result_shape = typename detail::expanded_shape<K, S>::type;
  bool operator==(const expand_dims_kind&) const = default;
  std::string name() const { return "expand_dims[axis=" + std::to_string(K) + "]"; }
  template <std::size_t R, std::size_t RI>
  extents<R> extents_of(const extents<RI>& in) const {
    const std::size_t k = static_cast<std::size_t>(staticflow::detail::normalize_axis(K, R));
    extents<R> out{};
    for (std::size_t i = 0; i < R; ++i) out[i] = i == k ? 1 : in[i < k ? i : i - 1];
    return out;
  }
};

/// squeeze: removes axes K... of extent 1 (checked at run time for sf::dyn dims).
template <int... K>
struct squeeze_kind {
  static constexpr bool keeps_order = true;
  template <class T>
  using result_type = T;
  template <class S>
  using result_shape = typename detail::squeezed<S, K...>::type;
  bool operator==(const squeeze_kind&) const = default;
  std::string name() const {
    std::string s = "squeeze[dimensions=(";
    std::size_t i = 0;
    ((s += (i++ ? "," : "") + std::to_string(K)), ...);
    return s + (sizeof...(K) == 1 ? ",)]" : ")]");
  }
  template <std::size_t R, std::size_t RI>
  extents<R> extents_of(const extents<RI>& in) const {
    std::array<bool, RI> drop{};
    ((drop[static_cast<std::size_t>(staticflow::detail::normalize_axis(K, RI))] = true), ...);
    extents<R> out{};
    for (std::size_t i = 0, j = 0; i < RI; ++i) {
      if (!drop[i]) out[j++] = in[i];
      else if (in[i] != 1)
        throw shape_error("squeeze: axis " + std::to_string(i) + " of shape " + staticflow::detail::extents_string(in) +
                          " has extent " + std::to_string(in[i]) + ", not 1");
    }
    return out;
  }
};

/// expand_dims at a run-time axis (a plain int; negative counts from the end of the result): the
/// result's dims are run-time ones where the axis's place decides them, as a reduction's along a
/// run-time axis.
struct expand_dims_at_kind {
  static constexpr bool keeps_order = true;
  template <class T>
  using result_type = T;
  template <class S>
  using result_shape = typename staticflow::detail::runtime_axis_shape<staticflow::detail::runtime_axis_change::insert, S>::type;
  int axis;
  bool operator==(const expand_dims_at_kind&) const = default;
  std::string name() const { return "expand_dims[axis=" + std::to_string(axis) + "]"; }
  template <std::size_t R, std::size_t RI>
  extents<R> extents_of(const extents<RI>& in) const {
    const std::size_t k = staticflow::detail::checked_axis(axis, R);
    extents<R> out{};
    for (std::size_t i = 0; i < R; ++i) out[i] = i == k ? 1 : in[i < k ? i : i - 1];
    return out;
  }
};

/// squeeze of a run-time axis, whose extent must be 1 (checked when the function runs).
struct squeeze_at_kind {
  static constexpr bool keeps_order = true;
  template <class T>
  using result_type = T;
  template <class S>
  using result_shape = typename staticflow::detail::runtime_axis_shape<staticflow::detail::runtime_axis_change::remove, S>::type;
  int axis;
  bool operator==(const squeeze_at_kind&) const = default;
  std::string name() const { return "squeeze[dimensions=(" + std::to_string(axis) + ",)]"; }
  template <std::size_t R, std::size_t RI>
  extents<R> extents_of(const extents<RI>& in) const {
    const std::size_t k = staticflow::detail::checked_axis(axis, RI);
    if (in[k] != 1)
      throw shape_error("squeeze: axis " + std::to_string(k) + " of shape " + staticflow::detail::extents_string(in) +
                        " has extent " + std::to_string(in[k]) + ", not 1");
    extents<R> out{};
    for (std::size_t i = 0, j = 0; i < RI; ++i)
      if (i != k) out[j++] = in[i];
    return out;
  }
};

/// slice along a static axis: elements [begin, begin + size) (run-time numbers).
template <int Axis>
struct slice_kind {
  template <class T>
  using result_type = T;
  std::size_t begin;
  std::size_t size;
  template <class S>
  using result_shape = typename detail::sliced_shape<Axis, S>::type;
  bool operator==(const slice_kind&) const = default;
  std::string name() const {
    return "slice[axis=" + std::to_string(Axis) + " begin=" + std::to_string(begin) + " size=" + std::to_string(size) + "]";
  }
  template <std::size_t R, std::size_t RI>
  extents<R> extents_of(const extents<RI>& in) const {
    const std::size_t ax = staticflow::detail::checked_axis(Axis, RI);
    if (begin + size > in[ax])
      throw shape_error("slice: [" + std::to_string(begin) + ", " + std::to_string(begin + size) +
                        ") is out of range for axis " + std::to_string(Axis) + " of shape " +
                        staticflow::detail::extents_string(in));
    extents<R> out = in;
    out[ax] = size;
    return out;
  }
};

/// one_hot(indices, Depth): float32 with a new last axis of Depth.
template <std::size_t Depth>
struct one_hot_kind {
  template <class T>
  using result_type = float;
  template <class S>
  using result_shape = typename detail::one_hot_shape<Depth, S>::type;
  bool operator==(const one_hot_kind&) const = default;
  std::string name() const { return "one_hot[depth=" + std::to_string(Depth) + "]"; }
  template <std::size_t R, std::size_t RI>
  extents<R> extents_of(const extents<RI>& in) const {
    extents<R> out{};
    for (std::size_t i = 0; i < RI; ++i) out[i] = in[i];
    out[R - 1] = Depth;
    return out;
  }
};

/// broadcast_to<Target>(a): elementwise; the fused loop's cursors do the broadcasting.
template <class Target, class A>
struct broadcast : node<broadcast<Target, A>> {
  static constexpr bool custom_extents = true;
  using value_type = typename A::value_type;
  using shape_type = Target;
  A a;
  constexpr explicit broadcast(A a_) : a(a_) {}
  constexpr child_refs<const A&> children() const { return {a}; }
  template <class C>
  constexpr auto with_children(const C& c) const { return broadcast<Target, C>(c); }
  std::string name() const { return "broadcast_in_dim[shape=" + staticflow::detail::shape_string(Target{}) + "]"; }
  extents<Target::rank> result_extents(const extents<A::shape_type::rank>& in) const {
    return staticflow::detail::broadcast_extents<Target::rank>(in, Target::dims);
  }
};

/// a broadcast to the shape of ref, run-time extents included (ref is never evaluated: it gives
/// the extents only). What autodiff uses to broadcast an adjoint where shapes are not static.
template <class A, class Ref>
struct broadcast_as : node<broadcast_as<A, Ref>> {
  static constexpr bool custom_extents = true;
  using value_type = typename A::value_type;
  using shape_type = broadcast_shape_t<typename A::shape_type, typename Ref::shape_type>;
  A a;
  Ref ref;
  constexpr broadcast_as(A a_, Ref r) : a(a_), ref(r) {}
  constexpr child_refs<const A&, const Ref&> children() const { return {{{a}, {ref}}}; }
  template <class C, class R>
  constexpr auto with_children(const C& c, const R& r) const { return broadcast_as<C, R>(c, r); }
  std::string name() const { return "broadcast_in_dim[like]"; }
  /// ref's extents, which a must broadcast to (one way: an extent of a may not exceed ref's).
  extents<shape_type::rank> result_extents(const extents<A::shape_type::rank>& in,
                                           const extents<Ref::shape_type::rank>& like) const {
    const auto out = staticflow::detail::broadcast_extents<shape_type::rank>(in, like);
    if constexpr (shape_type::rank == Ref::shape_type::rank) {
      if (out != like) [[unlikely]] throw_wider(in, like);
    }
    return out;
  }

 private:
  // Autodiff brings each adjoint to the spec of its value with this node: an adjoint wider than
  // the value means the value was broadcast along an axis whose extent is only known at run time
  // (an extent of 1 there), which the gradient does not sum over (autodiff/adjoint_shape.hpp).
  [[noreturn, gnu::cold]] static void throw_wider(const extents<A::shape_type::rank>& in, const extents<Ref::shape_type::rank>& like) {
    throw shape_error("gradient: a value of shape " + staticflow::detail::extents_string(like) + " was broadcast to " +
                      staticflow::detail::extents_string(in) +
                      " along a dimension of run-time extent 1, which a gradient cannot sum over; declare that "
                      "dimension's extent 1 statically (an input signature such as sf::spec<float, sf::dyn, 1>)");
  }
};

/// materialize(x): the value of x computed once per call into a buffer, then read by every use
/// (an evaluation barrier: worth it when x is expensive and used by several consumers).
template <class A>
struct stored : node<stored<A>> {
  static constexpr bool materialized = true;
  using value_type = typename A::value_type;
  using shape_type = typename A::shape_type;
  A a;
  constexpr explicit stored(A a_) : a(a_) {}
  constexpr child_refs<const A&> children() const { return {a}; }
  template <class C>
  constexpr auto with_children(const C& c) const { return stored<C>(c); }
  std::string name() const { return "materialize"; }
  extents<shape_type::rank> result_extents(const extents<shape_type::rank>& in) const { return in; }
};

/// concat along a static axis of several operands (materialized).
template <int Axis, class... A>
struct concat : node<concat<Axis, A...>> {
  static constexpr bool materialized = true;
  static_assert(sizeof...(A) >= 1, "staticflow: concat needs at least one tensor");
  using first = std::tuple_element_t<0, std::tuple<A...>>;
  static constexpr std::size_t R = first::shape_type::rank;
  static_assert(((A::shape_type::rank == R) && ...), "staticflow: concat needs tensors of one rank");
  static_assert(staticflow::detail::axis_in_range(Axis, R), "staticflow: concat axis out of range");
  static constexpr std::size_t axis = static_cast<std::size_t>(staticflow::detail::normalize_axis(Axis, R));
  using value_type = typename first::value_type;
  static_assert((std::is_same<typename A::value_type, value_type>::value && ...), "staticflow: concat needs tensors of one dtype");
  using shape_type = typename detail::concat_shape<axis, typename first::shape_type, std::tuple<typename A::shape_type...>>::type;
  std::tuple<A...> parts;
  constexpr explicit concat(const A&... a) : parts(a...) {}
  constexpr auto children() const {
    return staticflow::detail::apply([](const auto&... p) { return child_refs<const A&...>{{{p}...}}; }, parts);
  }
  template <class... C>
  constexpr auto with_children(const C&... c) const { return concat<Axis, C...>(c...); }
  std::string name() const { return "concatenate[dimension=" + std::to_string(axis) + "]"; }
  template <class... E>
  extents<R> result_extents(const E&... in) const {
    const auto& e0 = staticflow::detail::get<0>(std::tie(in...));
    extents<R> out = e0;
    out[axis] = 0;
    ([&] {
      for (std::size_t i = 0; i < R; ++i)
        if (i != axis && in[i] != e0[i])
          throw shape_error("concat: shapes " + staticflow::detail::extents_string(e0) + " and " +
                            staticflow::detail::extents_string(in) + " differ off axis " + std::to_string(axis));
      out[axis] += in[axis];
    }(), ...);
    return out;
  }
};
}  // namespace graph

/// transpose(x) reverses the axes; transpose(x, sf::axes<1, 0, 2>{}) permutes them.
template <symbolic A>
constexpr auto transpose(const A& a) {
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    using kind = graph::transpose_kind<static_cast<int>(A::shape_type::rank - 1 - I)...>;
    return graph::rearrange<kind, A>(a, kind{});
  }(std::make_index_sequence<A::shape_type::rank>{});
}
template <symbolic A, int... P>
constexpr auto transpose(const A& a, axes<P...>) {
  static_assert(sizeof...(P) == A::shape_type::rank, "staticflow: transpose needs one axis per dimension");
  static_assert([] {
    std::array<bool, sizeof...(P)> seen{};
    for (int p : {P...}) {
      if (p < 0 || p >= int(sizeof...(P)) || seen[std::size_t(p)]) return false;
      seen[std::size_t(p)] = true;
    }
    return true;
  }(), "staticflow: transpose's axes must be a permutation of 0 .. rank-1");
  return graph::rearrange<graph::transpose_kind<P...>, A>(a, {});
}

/// reshape<sf::shape<2, 3>>(x); one dimension may be sf::dyn, inferred from the size.
template <class Target, symbolic A>
constexpr auto reshape(const A& a) {
  static_assert(staticflow::detail::is_shape<Target>::value, "staticflow: reshape<Target> needs an sf::shape<...>");
  constexpr std::size_t unknown = [] {
    std::size_t n = 0;
    for (std::size_t d : Target::dims) n += d == dyn;
    return n;
  }();
  static_assert(unknown <= 1, "staticflow: reshape can infer at most one dimension (sf::dyn)");
  if constexpr (A::shape_type::is_static && Target::is_static)
    static_assert(A::shape_type::size == Target::size, "staticflow: reshape to a shape of another size");
  return graph::rearrange<graph::reshape_kind<Target>, A>(a, {});
}

/// expand_dims(x, sf::axes<k>{}) inserts an axis of extent 1 at k.
template <symbolic A, int K>
constexpr auto expand_dims(const A& a, axes<K>) {
  static_assert(staticflow::detail::axis_in_range(K, A::shape_type::rank + 1), "staticflow: expand_dims axis out of range");
  return graph::rearrange<graph::expand_dims_kind<K>, A>(a, {});
}

/// squeeze(x, sf::axes<k...>{}) removes axes of extent 1 (static ones are checked here).
template <symbolic A, int... K>
constexpr auto squeeze(const A& a, axes<K...>) {
  using S = typename A::shape_type;
  static_assert((staticflow::detail::axis_in_range(K, S::rank) && ...), "staticflow: squeeze axis out of range");
  static_assert(graph::detail::squeezed<S, K...>::valid, "staticflow: squeeze of an axis whose extent is not 1");
  return graph::rearrange<graph::squeeze_kind<K...>, A>(a, {});
}

/// expand_dims(x, axis) / squeeze(x, axis) with a plain int axis, as TensorFlow's: the axis is a
/// run-time value, so the result's dims are run-time ones (sf::axes<k>{} keeps them static). An
/// axis out of range throws sf::shape_error when the function runs.
template <symbolic A>
constexpr auto expand_dims(const A& a, int axis) {
  return graph::rearrange<graph::expand_dims_at_kind, A>(a, {axis});
}
namespace detail {
template <std::size_t Rank>  // keyed on the rank: one report for the traced and the eager call
struct squeeze_check {
  static_assert(Rank > 0, "staticflow: squeeze of a scalar");
  static constexpr bool ok = Rank > 0;
};
}  // namespace detail
template <symbolic A>
constexpr auto squeeze(const A& a, int axis) {
  if constexpr (!detail::squeeze_check<A::shape_type::rank>::ok) {
    return a;  // reported (nothing else to report)
  } else {
    return graph::rearrange<graph::squeeze_at_kind, A>(a, {axis});
  }
}

/// slice(x, sf::axes<k>{}, begin, size): elements [begin, begin + size) along axis k.
template <symbolic A, int K>
constexpr auto slice(const A& a, axes<K>, std::size_t begin, std::size_t size) {
  static_assert(staticflow::detail::axis_in_range(K, A::shape_type::rank), "staticflow: slice axis out of range");
  return graph::rearrange<graph::slice_kind<K>, A>(a, {begin, size});
}

/// concat<axis>(a, b, ...) and stack<axis>(a, b, ...) (stack inserts a new axis first).
template <int Axis, symbolic... A>
constexpr auto concat(const A&... a) {
  return graph::concat<Axis, A...>(a...);
}
template <int Axis, symbolic... A>
constexpr auto stack(const A&... a) {
  return concat<Axis>(expand_dims(a, axes<Axis>{})...);
}

/// materialize(x): compute x once per call into its own buffer (see graph::stored).
template <symbolic A>
constexpr auto materialize(const A& a) {
  return graph::stored<A>(a);
}

/// broadcast_to<sf::shape<3, 4>>(x): elementwise, no copy.
template <class Target, symbolic A>
constexpr auto broadcast_to(const A& a) {
  static_assert(staticflow::detail::is_shape<Target>::value, "staticflow: broadcast_to<Target> needs an sf::shape<...>");
  static_assert(Target::is_static, "staticflow: broadcast_to needs a static target shape");
  static_assert(std::is_same<broadcast_shape_t<typename A::shape_type, Target>, Target>::value,
                "staticflow: broadcast_to: the tensor does not broadcast to the target shape");
  return graph::broadcast<Target, A>(a);
}

/// one_hot<Depth>(indices): float32, 1 where the last axis equals the index.
template <std::size_t Depth, symbolic A>
constexpr auto one_hot(const A& a) {
  static_assert(integer_dtype<typename A::value_type>, "staticflow: one_hot needs integer indices");
  return graph::rearrange<graph::one_hot_kind<Depth>, A>(a, {});
}

}  // namespace staticflow
