// staticflow/graph/operators.hpp -- the C++ operators and TensorFlow-named functions that build
// elementwise nodes from symbolic tensors and weakly typed C++ literals.
#pragma once

#include <type_traits>

#include "staticflow/core/static_value.hpp"
#include "staticflow/graph/elementwise.hpp"
#include "staticflow/graph/leaf.hpp"

namespace staticflow {
namespace detail {
template <class T>
concept literal_operand = std::is_arithmetic<std::remove_cvref_t<T>>::value || static_value_type<T> ||
                          is_text_v<std::remove_cvref_t<T>>;

/// A value that becomes a symbolic tensor when an expression uses it: an sf::variable, read at
/// that point of the traced function (effects/variable.hpp).
template <class T>
concept readable = !symbolic<T> && requires(const T& t) {
  { t.read() } -> symbolic;
};

template <class T>
concept tensor_operand = symbolic<T> || readable<T>;

/// An sf::variable as the symbolic tensor it reads at this point of the trace; anything else as is.
template <class X>
constexpr decltype(auto) read_if_variable(const X& x) {
  if constexpr (readable<X>) return x.read();
  else return (x);
}

template <class T>
concept operand = tensor_operand<T> || literal_operand<T>;

template <class A, class B>
concept binary_operands = (tensor_operand<A> && operand<B>) || (literal_operand<A> && tensor_operand<B>);

template <class X>
constexpr auto literal_value(const X& x) {
  if constexpr (static_value_type<X>) return X::value;
  else return x;
}

/// x itself when symbolic; otherwise a literal that takes its dtype weakly from `Peer`'s dtype
/// (`x * 2` keeps x's dtype) or, with no symbolic peer, its own canonical dtype.
template <class Peer, class X>
constexpr auto as_node(const X& x) {
  if constexpr (symbolic<X>) {
    return x;
  } else if constexpr (readable<X>) {
    return x.read();
  } else {
    using raw = canonical_dtype_t<decltype(literal_value(x))>;
    static_assert(dtype<raw>, "staticflow: unsupported literal type (use bool, int, long, float or double)");
    using T = typename decltype([] {
      if constexpr (tensor_operand<Peer>)
        return std::type_identity<typename weak_literal_dtype<typename std::remove_cvref_t<Peer>::value_type, raw>::type>{};
      else
        return std::type_identity<raw>{};
    }())::type;
    static_assert(string_dtype<T> == string_dtype<raw>,
                  "staticflow: a string tensor does not mix with numbers (use sf::strings::to_number<T> or "
                  "sf::strings::as_string)");
    if constexpr (static_value_type<X>) return graph::static_literal<T, X::value>{};
    else if constexpr (string_dtype<T>) return graph::literal<T>(std::string_view(x));  // owns a copy
    else return graph::literal<T>(static_cast<T>(literal_value(x)));
  }
}

template <class N>
struct is_literal_node : std::false_type {};
template <class T>
struct is_literal_node<graph::literal<T>> : std::true_type {};
template <class T, auto V>
struct is_literal_node<graph::static_literal<T, V>> : std::true_type {};

/// A folded op's value as a literal. A string op puts its result in this thread's string pool;
/// a trace runs outside any call's string_scope, so the literal copies the bytes and the scope
/// here gives them back at once.
template <class Compute>
graph::literal<string> folded_string(const Compute& compute) {
  const string_scope scope;
  return graph::literal<string>(compute());
}
template <class T, class Compute>
constexpr graph::literal<T> folded_literal(const Compute& compute) {
  if constexpr (std::is_same<T, string>::value) return folded_string(compute);
  else return graph::literal<T>(compute());
}

/// Constant folding at trace time: an op whose operands are all literals becomes a literal.
template <class N>
constexpr auto fold_or_build(const N& n) {
  if constexpr (requires { n.a; n.b; }) {
    if constexpr (requires { requires op::mixed_operands<typename N::op_type>; }) {
      return n;  // (sf::strings::substr's steps: built directly, never folded)
    } else if constexpr (is_literal_node<std::remove_cvref_t<decltype(n.a)>>::value &&
                  is_literal_node<std::remove_cvref_t<decltype(n.b)>>::value) {
      using C = typename N::compute_type;
      return folded_literal<typename N::value_type>(
          [&] { return N::op_type::apply(static_cast<C>(n.a.value), static_cast<C>(n.b.value)); });
    } else {
      return n;
    }
  } else if constexpr (requires { n.a; typename N::op_type; }) {
    if constexpr (is_literal_node<std::remove_cvref_t<decltype(n.a)>>::value) {
      using C = typename N::compute_type;
      return folded_literal<typename N::value_type>([&] { return N::op_type::apply(static_cast<C>(n.a.value)); });
    } else {
      return n;
    }
  } else {
    return n;
  }
}

// An op on operands of a dtype it does not take reports that once (checked_operands is a template
// of the op and the dtype) and builds nothing: its kernels would only add errors of their own.
template <class Op, class A>
constexpr auto make_unary(const A& a) {
  using N = decltype(as_node<void>(a));
  if constexpr (!graph::detail::checked_operands<Op, typename N::value_type>::ok) return as_node<void>(a);
  else return fold_or_build(graph::unary<Op, N>(as_node<void>(a)));
}

template <class Op, class A, class B>
constexpr auto make_binary(const A& a, const B& b) {
  auto na = as_node<B>(a);
  auto nb = as_node<A>(b);
  using VA = typename decltype(na)::value_type;
  using VB = typename decltype(nb)::value_type;
  if constexpr (string_dtype<VA> != string_dtype<VB> && !op::mixed_operands<Op>) {
    static_assert(sizeof(staticflow::detail::promote<VA, VB>) != 0);  // instantiated: its assertion says why
    return na;
  } else {
    using check = typename graph::detail::binary_compute<Op, VA, VB>::check;
    if constexpr (!check::ok) return na;
    else return fold_or_build(graph::binary<Op, decltype(na), decltype(nb)>(na, nb));
  }
}
}  // namespace detail

// Operators on symbolic tensors. `/` and `%` truncate for integers, as in C++.
#define STATICFLOW_BINARY_OPERATOR(SYMBOL, OP)                                   \
  template <class A, class B>                                                    \
    requires detail::binary_operands<A, B>                                       \
  constexpr auto operator SYMBOL(const A& a, const B& b) {                       \
    return detail::make_binary<op::OP>(a, b);                                    \
  }
STATICFLOW_BINARY_OPERATOR(+, add)
STATICFLOW_BINARY_OPERATOR(-, subtract)
STATICFLOW_BINARY_OPERATOR(*, multiply)
STATICFLOW_BINARY_OPERATOR(/, divide)
STATICFLOW_BINARY_OPERATOR(%, mod)
STATICFLOW_BINARY_OPERATOR(<, less)
STATICFLOW_BINARY_OPERATOR(<=, less_equal)
STATICFLOW_BINARY_OPERATOR(>, greater)
STATICFLOW_BINARY_OPERATOR(>=, greater_equal)
STATICFLOW_BINARY_OPERATOR(==, equal)
STATICFLOW_BINARY_OPERATOR(!=, not_equal)
STATICFLOW_BINARY_OPERATOR(&&, logical_and)
STATICFLOW_BINARY_OPERATOR(||, logical_or)
#undef STATICFLOW_BINARY_OPERATOR

template <detail::tensor_operand A>
constexpr auto operator-(const A& a) {
  const auto n = detail::as_node<void>(a);
  return graph::unary<op::negate, std::remove_cvref_t<decltype(n)>>(n);
}
template <symbolic A>
constexpr auto operator!(const A& a) { return graph::unary<op::logical_not, A>(a); }
template <symbolic A>
constexpr auto operator+(const A& a) { return a; }

// Functions with TensorFlow's names.
// A static value (the analog of a Python number) is accepted too and becomes a constant node,
// as tf.abs(1) makes a constant tensor.
// On a constant (a literal or a static value) the op is folded while tracing: the result is a
// literal again, never a node to evaluate on every call.
#define STATICFLOW_UNARY_FUNCTION(NAME, OP)                                      \
  template <class A>                                                             \
    requires(detail::tensor_operand<A> || static_value_type<A>)                  \
  constexpr auto NAME(const A& a) {                                              \
    return detail::make_unary<op::OP>(a);                                        \
  }
STATICFLOW_UNARY_FUNCTION(negative, negate)
STATICFLOW_UNARY_FUNCTION(abs, abs)
STATICFLOW_UNARY_FUNCTION(square, square)
STATICFLOW_UNARY_FUNCTION(sqrt, sqrt)
STATICFLOW_UNARY_FUNCTION(exp, exp)
STATICFLOW_UNARY_FUNCTION(log, log)
STATICFLOW_UNARY_FUNCTION(tanh, tanh)
STATICFLOW_UNARY_FUNCTION(sigmoid, sigmoid)
STATICFLOW_UNARY_FUNCTION(relu, relu)
STATICFLOW_UNARY_FUNCTION(logical_not, logical_not)
#undef STATICFLOW_UNARY_FUNCTION

#define STATICFLOW_BINARY_FUNCTION(NAME, OP)                                     \
  template <class A, class B>                                                    \
    requires detail::binary_operands<A, B>                                       \
  constexpr auto NAME(const A& a, const B& b) {                                  \
    return detail::make_binary<op::OP>(a, b);                                    \
  }
STATICFLOW_BINARY_FUNCTION(add, add)
STATICFLOW_BINARY_FUNCTION(subtract, subtract)
STATICFLOW_BINARY_FUNCTION(multiply, multiply)
STATICFLOW_BINARY_FUNCTION(divide, divide)
STATICFLOW_BINARY_FUNCTION(truncatemod, mod)
STATICFLOW_BINARY_FUNCTION(floordiv, floordiv)
STATICFLOW_BINARY_FUNCTION(floormod, floormod)
STATICFLOW_BINARY_FUNCTION(pow, pow)
STATICFLOW_BINARY_FUNCTION(maximum, maximum)
STATICFLOW_BINARY_FUNCTION(minimum, minimum)
STATICFLOW_BINARY_FUNCTION(less, less)
STATICFLOW_BINARY_FUNCTION(less_equal, less_equal)
STATICFLOW_BINARY_FUNCTION(greater, greater)
STATICFLOW_BINARY_FUNCTION(greater_equal, greater_equal)
STATICFLOW_BINARY_FUNCTION(equal, equal)
STATICFLOW_BINARY_FUNCTION(not_equal, not_equal)
STATICFLOW_BINARY_FUNCTION(logical_and, logical_and)
STATICFLOW_BINARY_FUNCTION(logical_or, logical_or)
#undef STATICFLOW_BINARY_FUNCTION

namespace detail {
// Keyed on the condition's dtype (not its node type): one report for the traced and eager calls.
template <class T>
struct where_condition_check {
  static constexpr bool ok = std::is_same<T, bool>::value;
  static_assert(ok, "staticflow: the condition of sf::where must be a bool tensor");
};
}  // namespace detail

/// where(cond, a, b): elementwise choice, with a and b broadcast against cond.
template <class C, class A, class B>
  requires(detail::operand<C> && detail::operand<A> && detail::operand<B> &&
           (detail::tensor_operand<C> || detail::tensor_operand<A> || detail::tensor_operand<B>))
constexpr auto where(const C& c, const A& a, const B& b) {
  auto nc = detail::as_node<void>(c);
  auto na = detail::as_node<B>(a);
  auto nb = detail::as_node<A>(b);
  using NC = decltype(nc);
  if constexpr (detail::where_condition_check<typename NC::value_type>::ok) {
    return graph::select<NC, decltype(na), decltype(nb)>(nc, na, nb);
  } else {  // reported; go on with `c != 0` so nothing else fails after it
    using bool_condition = graph::cast<bool, NC>;
    return graph::select<bool_condition, decltype(na), decltype(nb)>(bool_condition(nc), na, nb);
  }
}

namespace detail {
// Keyed on the two dtypes, not on the operand's node type, so a bad cast reports once (not once for
// the traced and once for the eager instantiation), and sf::cast builds no node after reporting.
template <class To, class From>
struct cast_check {
  static constexpr bool to_dtype = dtype<To>;
  static_assert(to_dtype, "staticflow: sf::cast<T> needs a dtype: bool, int32_t, int64_t, float or double");
  static constexpr bool same_kind = !to_dtype || string_dtype<To> == string_dtype<From>;
  static_assert(same_kind, "staticflow: sf::cast does not convert strings and numbers (use sf::strings::to_number<T> "
                           "or sf::strings::as_string)");
  static constexpr bool ok = to_dtype && same_kind;
};
}  // namespace detail

/// cast<T>(x): x converted to dtype T (tf.cast).
template <class T, symbolic A>
constexpr auto cast(const A& a) {
  using To = canonical_dtype_t<T>;
  if constexpr (detail::cast_check<To, typename A::value_type>::ok) return graph::cast<To, A>(a);
  else return a;  // the error is reported; carry on with x so nothing else fails after it
}

}  // namespace staticflow
