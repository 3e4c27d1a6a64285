// staticflow/graph/unique.hpp -- sf::unique (tf.unique): the distinct values of a vector in the
// order they first appear, and for each element the index of its value among them.
//
//   auto [y, idx] = sf::unique(x);   x: [n] -> y: [number of distinct values] (sf::dyn), idx: int32 [n]
//
// Values compare with ==, as TF's hash map does: -0.0 and 0.0 are one value (the first one seen
// is kept), and every NaN is a value of its own. One node, unique_codes, gives each element a code:
// 2 * (the index of its value in y) + (1 where the element is its value's first appearance),
// computed by a hash table on the CPU (backend/cpu/unique.hpp) and by a stable sort on the device
// (backend/thrust/unique.hpp). y is boolean_mask(x, the odd codes) (graph/masking.hpp: a
// self-allocating gather whose gradient sends y's adjoint back to each value's first appearance;
// TF registers no gradient for Unique), idx is code / 2; both read the one node.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>

#include "staticflow/core/errors.hpp"
#include "staticflow/graph/child_refs.hpp"
#include "staticflow/graph/masking.hpp"
#include "staticflow/graph/operators.hpp"

namespace staticflow {
namespace graph {
/// Per element of x: 2 * (its value's index among the distinct values, in order of first
/// appearance) + (1 at the value's first appearance).
template <class X>
struct unique_codes : node<unique_codes<X>> {
  static constexpr bool materialized = true;
  using value_type = std::int64_t;
  using shape_type = typename X::shape_type;
  X x;
  constexpr explicit unique_codes(X x_) : x(x_) {}
  constexpr child_refs<const X&> children() const { return {x}; }
  template <class Y>
  constexpr auto with_children(const Y& y) const { return unique_codes<Y>(y); }
  static constexpr bool parameters_in_type = true;
  constexpr bool same_parameters(const unique_codes&) const { return true; }
  std::string name() const { return "Unique"; }
  extents<1> result_extents(const extents<1>& in) const { return in; }
};
}  // namespace graph

namespace detail {
/// (on the rank and dtypes, not the node type: eager and traced calls make one diagnostic)
template <std::size_t Rank, class T, class Index>
struct unique_check {
  static constexpr bool vector = Rank == 1;
  static_assert(vector, "staticflow: unique: x must be a vector (rank 1), as tf.unique's; flatten it first (sf::reshape)");
  static constexpr bool values = std::is_arithmetic<T>::value;
  static_assert(values, "staticflow: unique: x must hold numbers or bools");
  static constexpr bool index = std::is_same<Index, std::int32_t>::value || std::is_same<Index, std::int64_t>::value;
  static_assert(index, "staticflow: unique: the index type (tf.unique's out_idx) must be std::int32_t or std::int64_t");
  static constexpr bool ok = vector && values && index;
};
}  // namespace detail

/// tf.unique(x, out_idx): a std::tuple{y, idx}: y the distinct values of the vector x in the order
/// they first appear (its extent sf::dyn: known when the function runs), idx (Index: int32 by
/// default, or std::int64_t) the position in y of each element's value, so that
/// `sf::gather(y, idx)` is x. Numbers and bools; -0.0 == 0.0, and each NaN is distinct (TF's).
template <class Index = std::int32_t, detail::tensor_operand X>
constexpr auto unique(const X& x) {
  const auto xn = detail::as_node<void>(x);
  using XN = std::remove_cvref_t<decltype(xn)>;
  if constexpr (!detail::unique_check<XN::shape_type::rank, typename XN::value_type, Index>::ok) {
    return std::tuple{xn, xn};
  } else {
    const auto codes = graph::unique_codes<XN>(xn);
    // (floormod / floordiv rather than & and >>: the same values for codes >= 0, and ONNX has them)
    const auto first = floormod(codes, std::int64_t{2}) == std::int64_t{1};
    return std::tuple{boolean_mask(xn, first), cast<Index>(floordiv(codes, std::int64_t{2}))};
  }
}

}  // namespace staticflow
