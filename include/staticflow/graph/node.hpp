// staticflow/graph/node.hpp -- what every node of a traced graph (a symbolic tensor) has in common.
#pragma once

#include <type_traits>

#include "staticflow/core/dtype.hpp"
#include "staticflow/core/span.hpp"
#include "staticflow/core/spec.hpp"

namespace staticflow {
namespace detail {
struct node_tag {};

/// The error for `if (x)` on a symbolic tensor: a template of the dtype, not of the node, so that
/// a lambda traced and run eagerly reports it once.
template <class T>
bool no_bool_while_tracing() {
  static_assert(always_false<T>,
                "staticflow: a symbolic tensor has no value while tracing, so it cannot be a C++ "
                "bool (if, while, ?:, &&); use sf::cond(pred, true_fn, false_fn) or sf::where");
  return false;
}
/// The error for `float(x)` on a symbolic tensor (a template of the C++ type, as above).
template <class U>
U no_number_while_tracing() {
  static_assert(always_false<U>,
                "staticflow: a symbolic tensor has no value while tracing, so it cannot be "
                "converted to a C++ number; use sf::cast<T>(x) to change its dtype");
  return U{};
}
}  // namespace detail

/// Base of every node type. A node *is* a symbolic tensor: it has a spec but no data, and the
/// operators on it build bigger nodes. It has no value while tracing, so the conversions that
/// would need one are compile errors (JAX's ConcretizationTypeError, found by the compiler).
template <class Derived>
struct node : detail::node_tag {
  template <class D = Derived>
  explicit operator bool() const {
    return detail::no_bool_while_tracing<typename D::value_type>();
  }
  template <class U>
    requires(std::is_arithmetic<U>::value && !std::is_same<U, bool>::value)
  explicit operator U() const {
    return detail::no_number_while_tracing<U>();
  }
  /// x[i]: the slice at position i of the leading axis; i is a C++ integer or a scalar integer
  /// tensor (control/index.hpp, found by argument-dependent lookup).
  template <class I>
  constexpr auto operator[](const I& i) const {
    return index_tensor(static_cast<const Derived&>(*this), i);
  }
  /// x(spans...): TF's x[a:b:c, ...] over the leading axes, e.g. `x(sf::span(1, -1))`
  /// (graph/slicing.hpp, found by argument-dependent lookup).
  template <class... S>
    requires(sizeof...(S) >= 1 && (detail::is_span_v<S> && ...))
  constexpr auto operator()(const S&... s) const {
    return slice_tensor(static_cast<const Derived&>(*this), s...);
  }
};

/// A symbolic tensor: any node type.
template <class T>
concept symbolic = std::is_base_of<detail::node_tag, std::remove_cvref_t<T>>::value;

/// The spec (dtype and shape) of a symbolic tensor type. Static checks are templates of their
/// operands' specs, not of the node types: a lambda traced and run eagerly builds other node
/// types of the same specs, and reports each mistake once.
template <symbolic N>
using spec_of_node_t = spec_of_t<typename std::remove_cvref_t<N>::value_type,
                                 typename std::remove_cvref_t<N>::shape_type>;

namespace detail {
/// An operand as a static check sees it: a symbolic tensor's spec, else Otherwise.
template <class N, class Otherwise>
struct check_key {
  using type = Otherwise;
};
template <symbolic N, class Otherwise>
struct check_key<N, Otherwise> {
  using type = spec_of_node_t<N>;
};
}  // namespace detail

}  // namespace staticflow
