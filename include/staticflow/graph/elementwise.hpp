// staticflow/graph/elementwise.hpp -- the node types of elementwise operations.
#pragma once

#include <cstddef>

#include "staticflow/core/broadcast.hpp"
#include "staticflow/graph/node.hpp"
#include "staticflow/graph/math_ops.hpp"
#include "staticflow/graph/scalar_ops.hpp"

namespace staticflow::graph {
namespace detail {
using staticflow::detail::always_false;

// A static_assert per requirement, so the message says what was wrong; the op and the dtype are in
// the instantiation context (`checked_operands<op::sqrt, int>`).
template <class Op, class T>
struct checked_operands {
  // String tensors take the ops that say so (`+`, ==, !=, sf::strings): one message for the rest.
  static constexpr bool text = string_dtype<T>;
  static_assert(!text || op::takes_strings<Op>,
                "staticflow: string tensors take +, ==, != and the sf::strings ops, not arithmetic (use "
                "sf::strings::to_number<T> for numbers)");
  static constexpr bool dtype_ok = [] {
    if constexpr (text) return true;
    else if constexpr (Op::requirement == op::operands::text) return false;
    else if constexpr (Op::requirement == op::operands::numeric) return numeric_dtype<T>;
    else if constexpr (Op::requirement == op::operands::floating) return floating_dtype<T>;
    else if constexpr (Op::requirement == op::operands::boolean) return std::is_same<T, bool>::value;
    else if constexpr (Op::requirement == op::operands::integer) return integer_dtype<T>;
    else return true;
  }();
  static_assert(dtype_ok || Op::requirement != op::operands::numeric,
                "staticflow: this op needs numeric tensors, not bool (use sf::cast<T>)");
  static_assert(dtype_ok || Op::requirement != op::operands::floating,
                "staticflow: this op needs floating-point tensors (use sf::cast<float>(x) for integers)");
  static_assert(dtype_ok || Op::requirement != op::operands::boolean,
                "staticflow: logical ops need bool tensors (compare first, e.g. x > 0)");
  static_assert(dtype_ok || Op::requirement != op::operands::integer,
                "staticflow: bitwise ops and shifts need int32 or int64 tensors");
  static_assert(dtype_ok || Op::requirement != op::operands::text,
                "staticflow: this sf::strings op needs a string tensor (sf::strings::as_string makes one)");
  static constexpr bool ok = dtype_ok && (!text || op::takes_strings<Op>);
  using type = T;
};
}  // namespace detail

/// Op applied to every element of A.
template <class Op, class A>
struct unary : node<unary<Op, A>> {
  using op_type = Op;
  using compute_type = typename detail::checked_operands<Op, typename A::value_type>::type;
  using value_type = typename Op::template result<compute_type>;
  using shape_type = typename A::shape_type;
  A a;
  constexpr explicit unary(A a_) : a(a_) {}
};

namespace detail {
// Both operands converted to their promoted dtype; a mixed_operands op computes in A's.
template <class Op, class A, class B>
struct binary_compute {
  using check = checked_operands<Op, promote_t<A, B>>;
  using type = typename check::type;
};
template <op::mixed_operands Op, class A, class B>
struct binary_compute<Op, A, B> {
  using check = checked_operands<Op, A>;
  using type = typename check::type;
};
}  // namespace detail

/// Op applied elementwise to A and B after broadcasting; both are converted to the promoted dtype
/// (a mixed_operands op takes them as they are).
template <class Op, class A, class B>
struct binary : node<binary<Op, A, B>> {
  using op_type = Op;
  using compute_type = typename detail::binary_compute<Op, typename A::value_type, typename B::value_type>::type;
  using value_type = typename Op::template result<compute_type>;
  using shape_type = broadcast_shape_t<typename A::shape_type, typename B::shape_type>;
  A a;
  B b;
  constexpr binary(A a_, B b_) : a(a_), b(b_) {}
};

/// where(cond, a, b): a where cond holds, else b (tf.where with three arguments).
template <class C, class A, class B>
struct select : node<select<C, A, B>> {
  static_assert(std::is_same<typename C::value_type, bool>::value,
                "staticflow: the condition of sf::where must be a bool tensor");
  using compute_type = promote_t<typename A::value_type, typename B::value_type>;
  using value_type = compute_type;
  using shape_type = broadcast_shape_t<typename C::shape_type,
                                       broadcast_shape_t<typename A::shape_type, typename B::shape_type>>;
  static constexpr std::string_view name = "select";
  C c;
  A a;
  B b;
  constexpr select(C c_, A a_, B b_) : c(c_), a(a_), b(b_) {}
};

/// cast<T>(a): each element converted to T (float to int truncates; to bool is `!= 0`).
template <class T, class A>
struct cast : node<cast<T, A>> {
  static_assert(dtype<T>, "staticflow: sf::cast<T> needs a dtype: bool, int32_t, int64_t, float or double");
  static_assert(string_dtype<T> == string_dtype<typename A::value_type>,
                "staticflow: sf::cast does not convert strings and numbers (use sf::strings::to_number<T> or "
                "sf::strings::as_string)");
  using value_type = T;
  using shape_type = typename A::shape_type;
  static constexpr std::string_view name = "convert";
  A a;
  constexpr explicit cast(A a_) : a(a_) {}
  template <class U>
  STATICFLOW_HD static constexpr T apply(U v) {
    if constexpr (std::is_same<T, bool>::value) return v != U(0);
    else return static_cast<T>(v);
  }
};

}  // namespace staticflow::graph
