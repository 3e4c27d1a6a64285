// staticflow/control/index.hpp -- x[i] with a symbolic (or C++) scalar index, sf::size(x), sf::dim<A>(x) and
// sf::shape_of(x) (tf.shape; sf::shape is the shape type): the pieces loops use to walk a tensor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>

#include "staticflow/control/structure.hpp"
#include "staticflow/core/shape.hpp"
#include "staticflow/graph/child_refs.hpp"
#include "staticflow/graph/leaf.hpp"
#include "staticflow/graph/traversal.hpp"

namespace staticflow {
namespace detail {
template <class S>
struct drop_leading;
template <std::size_t D0, std::size_t... D>
struct drop_leading<shape<D0, D...>> {
  using type = shape<D...>;
};
}  // namespace detail

namespace graph {

/// x[i]: the slice of x at position i of its leading axis (rank one less). A negative i counts
/// from the end, as in Python; an index out of range throws sf::shape_error. Materialized: the
/// index is known only when the node runs.
template <class X, class I>
struct take : node<take<X, I>> {
  static constexpr bool materialized = true;
  using value_type = typename X::value_type;
  using shape_type = typename staticflow::detail::drop_leading<typename X::shape_type>::type;
  X a;
  I index;
  constexpr take(X x, I i) : a(std::move(x)), index(std::move(i)) {}
  constexpr child_refs<const X&, const I&> children() const { return {{{a}, {index}}}; }
  template <class Y, class J>
  constexpr auto with_children(const Y& y, const J& j) const { return take<Y, J>(y, j); }
  std::string name() const { return "index"; }
  extents<shape_type::rank> result_extents(const extents<X::shape_type::rank>& x, const extents<0>&) const {
    extents<shape_type::rank> out{};
    for (std::size_t d = 0; d < shape_type::rank; ++d) out[d] = x[d + 1];
    return out;
  }
};

/// sf::size (Axis == -1: the element count, int32 scalar) or sf::shape (Axis == -2: the extents,
/// int32[rank]) or the extent of one axis, read from x's run-time extents (x's data is not read).
template <class X, int Axis>
struct extent_query : node<extent_query<X, Axis>> {
  static constexpr bool materialized = true;
  static constexpr std::size_t rank = X::shape_type::rank;
  using value_type = std::int32_t;
  using shape_type = std::conditional_t<Axis == -2, shape<rank>, shape<>>;
  X a;
  constexpr explicit extent_query(X x) : a(std::move(x)) {}
  constexpr child_refs<const X&> children() const { return {a}; }
  template <class Y>
  constexpr auto with_children(const Y& y) const { return extent_query<Y, Axis>(y); }
  std::string name() const {
    if constexpr (Axis == -1) return "size";
    else if constexpr (Axis == -2) return "shape";
    else return "dim[" + std::to_string(Axis) + "]";
  }
  extents<shape_type::rank> result_extents(const extents<rank>&) const { return shape_type::dims; }
  static void compute(const extents<rank>& x, std::int32_t* out) {
    if constexpr (Axis == -1) *out = static_cast<std::int32_t>(staticflow::detail::product(x));
    else if constexpr (Axis == -2) for (std::size_t d = 0; d < rank; ++d) out[d] = static_cast<std::int32_t>(x[d]);
    else *out = static_cast<std::int32_t>(x[Axis]);
  }
};

namespace detail {
// Keyed on the ranks and the index's dtype, not on the node types, so a bad x[i] reports once for
// the traced and the eager instantiation.
template <std::size_t Rank, class J, std::size_t IndexRank>
struct index_check {
  static_assert(Rank >= 1, "staticflow: x[i]: a scalar (rank-0 tensor) cannot be indexed");
  static constexpr bool index_ok = std::is_integral<J>::value && !std::is_same<J, bool>::value && IndexRank == 0;
  static_assert(Rank == 0 || index_ok,
                "staticflow: x[i]: the index must be a scalar integer (a C++ integer or an int32/int64 tensor)");
  static constexpr bool ok = Rank >= 1 && index_ok;
};
}  // namespace detail

/// What x[i] builds (found by node::operator[] through argument-dependent lookup).
template <class X, class I>
constexpr auto index_tensor(const X& x, const I& i) {
  auto idx = staticflow::detail::to_node(i);
  using Idx = decltype(idx);
  if constexpr (detail::index_check<X::shape_type::rank, typename Idx::value_type, Idx::shape_type::rank>::ok)
    return take<X, Idx>(x, idx);
  else return x;  // reported; carrying on with x adds no error after it
}

}  // namespace graph

/// The number of elements of x, an int32 scalar (tf.size): a constant when x's shape is static.
template <symbolic X>
constexpr auto size(const X& x) {
  if constexpr (X::shape_type::is_static) return graph::literal<std::int32_t>(static_cast<std::int32_t>(X::shape_type::size));
  else return graph::extent_query<X, -1>(x);
}

/// The extents of x, an int32 tensor of shape (rank,) (tf.shape).
template <symbolic X>
constexpr auto shape_of(const X& x) {
  return graph::extent_query<X, -2>(x);
}

/// The extent of x along Axis, an int32 scalar: a constant when that dimension is static.
template <std::size_t Axis, symbolic X>
constexpr auto dim(const X& x) {
  static_assert(Axis < X::shape_type::rank, "staticflow: sf::dim: the axis is out of range");
  if constexpr (X::shape_type::dims[Axis] != dyn)
    return graph::literal<std::int32_t>(static_cast<std::int32_t>(X::shape_type::dims[Axis]));
  else return graph::extent_query<X, static_cast<int>(Axis)>(x);
}

}  // namespace staticflow
