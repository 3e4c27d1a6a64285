// staticflow/graph/traversal.hpp -- generic walks over a graph: children, op names, the set of
// arguments used, and the run-time extents of every node.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <tuple>

#include "staticflow/core/broadcast.hpp"
#include "staticflow/core/value_pack.hpp"
#include "staticflow/graph/child_refs.hpp"
#include "staticflow/graph/elementwise.hpp"
#include "staticflow/graph/leaf.hpp"
#include "staticflow/graph/shared.hpp"

namespace staticflow::graph {

template <std::size_t I, class T, class S>
constexpr child_refs<> children(const argument<I, T, S>&) { return {}; }
template <class T>
constexpr child_refs<> children(const literal<T>&) { return {}; }
template <class Op, class A>
constexpr child_refs<const A&> children(const unary<Op, A>& n) { return {n.a}; }
template <class T, class A>
constexpr child_refs<const A&> children(const cast<T, A>& n) { return {n.a}; }
template <class Op, class A, class B>
constexpr child_refs<const A&, const B&> children(const binary<Op, A, B>& n) { return {{{n.a}, {n.b}}}; }
template <class C, class A, class B>
constexpr child_refs<const C&, const A&, const B&> children(const select<C, A, B>& n) { return {{{n.c}, {n.a}, {n.b}}}; }

/// Nodes that are not elementwise describe themselves: `children()`, `name()`,
/// `with_children(...)`, `same_parameters(other)` and `result_extents(child extents...)`.
template <class N>
  requires requires(const N& n) { n.children(); }
constexpr auto children(const N& n) { return n.children(); }
template <class N>
  requires requires(const N& n) { n.name(); }
std::string op_name(const N& n) { return n.name(); }

/// The name an op has in graph listings (jaxpr-like).
template <class Op, class A>
std::string op_name(const unary<Op, A>&) { return std::string(Op::name); }
template <class Op, class A, class B>
std::string op_name(const binary<Op, A, B>&) { return std::string(Op::name); }
template <class C, class A, class B>
std::string op_name(const select<C, A, B>&) { return "select"; }
template <class T, class A>
std::string op_name(const cast<T, A>&) { return "convert[new_dtype=" + std::string(dtype_name<T>) + "]"; }

/// Node n rebuilt over new children (same op, same parameters).
template <class Op, class A, class X>
constexpr auto with_children(const unary<Op, A>&, const X& x) { return unary<Op, X>(x); }
template <class U, class A, class X>
constexpr auto with_children(const cast<U, A>&, const X& x) { return cast<U, X>(x); }
template <class Op, class A, class B, class X, class Y>
constexpr auto with_children(const binary<Op, A, B>&, const X& x, const Y& y) { return binary<Op, X, Y>(x, y); }
template <class C, class A, class B, class X, class Y, class Z>
constexpr auto with_children(const select<C, A, B>&, const X& x, const Y& y, const Z& z) {
  return select<X, Y, Z>(x, y, z);
}
template <class N, class... X>
  requires requires(const N& n, const X&... x) { n.with_children(x...); }
constexpr auto with_children(const N& n, const X&... x) { return n.with_children(x...); }

namespace detail {
template <class N> struct is_argument : std::false_type {};
template <std::size_t I, class T, class S> struct is_argument<argument<I, T, S>> : std::true_type {};
template <class N> struct is_literal : std::false_type {};
template <class T> struct is_literal<literal<T>> : std::true_type {};
template <class T, auto V> struct is_literal<static_literal<T, V>> : std::true_type {};
template <class N> struct is_runtime_literal : std::false_type {};
template <class T> struct is_runtime_literal<literal<T>> : std::true_type {};
}  // namespace detail

namespace detail {
template <class N>
using child_list_t = decltype(children(std::declval<const N&>()));
/// 0 .. (N's child count - 1): the pack a walk expands over N's children, passed to a function
/// rather than to an index_sequence lambda (a closure type and a call operator less per node).
template <class N>
using child_indices = std::make_index_sequence<std::tuple_size<child_list_t<N>>::value>;

/// Which argument indices graph N reads (`read[i]`; the array's size is 1 + the largest index):
/// one walk per node type. (A kernel asks about every index of its signature; a walk per index and
/// node grew as their product.) The array is a template argument of read_set, so each node's class
/// only names its value: the functions and constants that compute it are instantiated once per
/// distinct array (a handful in a graph), not once per node type, whose names hold the node's
/// whole type.
template <auto Read>
struct read_set {
  static constexpr auto value = Read;
};
template <std::size_t I>
constexpr std::array<bool, I + 1> one_read() {
  std::array<bool, I + 1> read{};
  read[I] = true;
  return read;
}
template <std::size_t Limit, std::size_t M>
constexpr void add_reads(std::array<bool, Limit>& read, const std::array<bool, M>& kid) {
  for (std::size_t i = 0; i < M; ++i) read[i] = read[i] || kid[i];
}
template <auto... R>
constexpr auto union_of_reads() {
  std::array<bool, std::max({std::size_t{0}, R.size()...})> read{};
  (add_reads(read, R), ...);
  return read;
}
template <class N, bool Argument = is_argument<N>::value, class Kids = child_list_t<N>>
struct arguments_read;
template <class N, class Kids>
struct arguments_read<N, true, Kids> : read_set<one_read<N::index>()> {};
template <class N, template <class...> class List, class... K>
struct arguments_read<N, false, List<K...>> : read_set<union_of_reads<arguments_read<std::remove_cvref_t<K>>::value...>()> {};
}  // namespace detail

/// Whether N's type determines its values, given the arguments: no run-time literal, parameter or
/// value from outside (an sf::variable's read) below it, so that two nodes of type N are always
/// equal (plan/plan.hpp's structurally_equal). A node whose `same_parameters` compares run-time
/// members is not; one whose parameters are all in its type says `parameters_in_type`. A shared
/// node is (the planner checks that every occurrence of a tag holds equal values). One evaluation
/// per node type.
/// (A class per node type with a std::integral_constant base, as the walks below: a lambda in a
/// variable's initializer would be three functions per node type, each with a mangled name that
/// holds the node's type, which g++ computes even for functions only a constant expression calls.)
namespace detail {

template <class N>
concept compares_runtime_parameters =
    requires(const N& n) { n.same_parameters(n); } && !requires { requires N::parameters_in_type; };

// (Each walk recurses class to class, one template level per graph level: deep chains stay
// within -ftemplate-depth.) Case 0: its children decide; 1: a shared node; 2: a run-time literal
// (a static_literal's value is in its type) or a node comparing run-time parameters.
template <class N, int Case = is_shared<N>::value ? 1 : (is_runtime_literal<N>::value || compares_runtime_parameters<N>) ? 2 : 0,
          class Kids = child_list_t<N>>
struct value_free;
template <class N, template <class...> class List, class... K>
struct value_free<N, 0, List<K...>> : std::bool_constant<(value_free<std::remove_cvref_t<K>>::value && ...)> {};
template <class N, class Kids>
struct value_free<N, 1, Kids> : std::true_type {};
template <class N, class Kids>
struct value_free<N, 2, Kids> : std::false_type {};

template <class N, bool Strings = string_dtype<typename N::value_type>, class Kids = child_list_t<N>>
struct mentions_strings;
template <class N, template <class...> class List, class... K>
struct mentions_strings<N, false, List<K...>> : std::bool_constant<(mentions_strings<std::remove_cvref_t<K>>::value || ...)> {};
template <class N, class Kids>
struct mentions_strings<N, true, Kids> : std::true_type {};
}  // namespace detail

template <class N>
inline constexpr bool value_free_v = detail::value_free<N>::value;

/// Whether a string value (core/string.hpp) appears anywhere in the graph N: a call of such a
/// graph opens a string_scope for the bytes its ops make.
template <class N>
inline constexpr bool mentions_strings_v = detail::mentions_strings<N>::value;

/// How deeply graph N nests: 1 for a leaf, else 1 + its deepest child's depth, the graph a shared
/// node holds included. The walks over a graph recurse this deep, in a constant expression too
/// (trace/constant_trace.hpp bounds the compiler's trace by it). One class per node type, no
/// lambda and no variable of its own (its value is its std::integral_constant base's): the bound
/// is asked of every function the compiler may trace.
template <class N, class Kids = detail::child_list_t<N>>
struct nesting_depth;
template <class N, class... K>
struct nesting_depth<N, child_refs<K...>>
    : std::integral_constant<std::size_t, 1 + std::max({std::size_t{0}, nesting_depth<std::remove_cvref_t<K>>::value...})> {};
template <class N>
inline constexpr std::size_t nesting_depth_v = nesting_depth<N>::value;

/// Whether argument I appears anywhere in the graph N (a compile-time walk; a concept: satisfied
/// or not once per pair, with no mangled function per pair).
template <std::size_t I, class N>
concept uses_argument = (I < detail::arguments_read<N>::value.size()) && bool(detail::arguments_read<N>::value[I]);

/// Whether every node under N (N included) has a static shape: then N's extents need no run-time
/// work. A static node over `dyn` children still checks them (`dyn` broadcast against 3 must be 3
/// or 1 at run time).
template <class N, bool Static = N::shape_type::is_static, class Kids = detail::child_list_t<N>>
struct subtree_is_static : std::false_type {};
template <class N, template <class...> class List, class... K>
struct subtree_is_static<N, true, List<K...>> : std::bool_constant<(subtree_is_static<std::remove_cvref_t<K>>::value && ...)> {};

/// Applies f to every node of the graph, children before parents.
template <class N, class F>
constexpr void for_each_node(const N& n, F&& f) {
  apply_children([&](const auto&... kid) { (for_each_node(kid, f), ...); }, children(n));
  f(n);
}

/// Run-time extents of node n, given the extents of every argument (a tuple indexed like the
/// arguments). Static dimensions cost nothing; `dyn` ones are broadcast and checked here, so a
/// shape_error is thrown before any output is written.
template <class N, class ArgExtents>
STATICFLOW_INLINE constexpr extents<N::shape_type::rank> node_extents(const N& n, const ArgExtents& args) {
  using S = typename N::shape_type;
  if constexpr (subtree_is_static<N>::value) {
    return S::dims;
  } else if constexpr (detail::is_argument<N>::value) {
    return staticflow::detail::get<N::index>(args);
  } else if constexpr (requires { N::materialized; } || requires { N::custom_extents; }) {
    return apply_children([&](const auto&... kid) STATICFLOW_LAMBDA_INLINE { return n.result_extents(node_extents(kid, args)...); },
                          children(n));
  } else {
    return apply_children(
        [&](const auto& first, const auto&... rest) STATICFLOW_LAMBDA_INLINE {
          // a binary node broadcasts its operands directly, so an error names their own shapes
          if constexpr (sizeof...(rest) == 1) {
            return staticflow::detail::broadcast_extents<S::rank>(node_extents(first, args), node_extents(rest, args)...);
          } else {
            auto out = staticflow::detail::broadcast_extents<S::rank>(node_extents(first, args), extents<0>{});
            ((out = staticflow::detail::broadcast_extents<S::rank>(out, node_extents(rest, args))), ...);
            return out;
          }
        },
        children(n));
  }
}

}  // namespace staticflow::graph
