// staticflow/graph/child_refs.hpp -- the references to a node's children that graph::children
// returns, and the two ways to use them: graph::apply_children(f, refs) and graph::child<K>(refs).
//
// Why not std::tuple<const A&...>: every walk over a graph (planning, lowering, extents, printing,
// the adjoint) asks each node for its children, so a translation unit instantiates one tuple type
// per node type and walk. libstdc++'s tuple brings a dozen constrained constructors, _Head_base,
// _Tuple_impl and std::apply's __invoke chain with it: 2,000 such uses took 27.5 s of g++ 12 at -O1
// against 4.7 s for these references (one base per child, an aggregate); in the suite,
// test_autodiff_data_movement 48.4 -> 43.2 s and 3.4 -> 3.0 GB of compiler. std::tuple_size
// and std::tuple_element work on it as on a tuple; apply_children and child<K> also accept a
// std::tuple, so a node of another library may still return one.
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>
#include "staticflow/core/value_pack.hpp"

namespace staticflow::graph {

namespace detail {
template <std::size_t K, class T>
struct child_slot {
  T ref;  // a reference: const Child&
};
template <class Seq, class... T>
struct child_slots;
// (aggregates, initialized by brace elision from the children: `return {a, b};` calls no
// constructor, where one per node type and walk was a function named with the node's type)
template <std::size_t... K, class... T>
struct child_slots<std::index_sequence<K...>, T...> : child_slot<K, T>... {};

// The type of slot K, found by overload resolution against the bases (no recursion over the pack)
template <std::size_t K, class T>
T child_slot_type(const child_slot<K, T>&);
}  // namespace detail

/// A node's children, by reference: `child_refs<const A&, const B&> r = {{{a}, {b}}};`, as a
/// node's `children()` returns them (an aggregate: no constructor to instantiate per node type;
/// each child's braces spelled out, as clang's -Wmissing-braces wants; one child: `{a}`), or
/// graph::make_child_refs(a, b).
template <class... T>
struct child_refs : detail::child_slots<std::index_sequence_for<T...>, T...> {};

template <class... A>
constexpr child_refs<const A&...> make_child_refs(const A&... a) noexcept {
  return {{{a}...}};
}

namespace detail {
template <class R>
struct is_child_refs : std::false_type {};
template <class... T>
struct is_child_refs<child_refs<T...>> : std::true_type {};
}  // namespace detail

/// Child K of refs (a child_refs or a std::tuple). (Slot K's type is deduced from refs' base
/// child_slot<K, T>: one function per child, not two.)
template <std::size_t K, class T>
constexpr T child(const detail::child_slot<K, T>& refs) noexcept {
  return refs.ref;
}
template <std::size_t K, class... T>
constexpr decltype(auto) child(const std::tuple<T...>& refs) noexcept {
  return staticflow::detail::get<K>(refs);
}

/// f(children...): std::apply for child_refs (and std::tuple, forwarded to std::apply).
// (the slots' indices are deduced from child_refs' base: no index_sequence lambda, whose closure
// type and call operator were two more instantiations per node type and walk)
template <class F, std::size_t... K, class... T>
constexpr decltype(auto) apply_children(F&& f, const detail::child_slots<std::index_sequence<K...>, T...>& refs) {
  return static_cast<F&&>(f)(static_cast<const detail::child_slot<K, T>&>(refs).ref...);
}
template <class F, class... T>
constexpr decltype(auto) apply_children(F&& f, const std::tuple<T...>& refs) {
  return staticflow::detail::apply(static_cast<F&&>(f), refs);
}

}  // namespace staticflow::graph

template <class... T>
struct std::tuple_size<staticflow::graph::child_refs<T...>> : std::integral_constant<std::size_t, sizeof...(T)> {};
template <std::size_t K, class... T>
struct std::tuple_element<K, staticflow::graph::child_refs<T...>> {
  using type = decltype(staticflow::graph::detail::child_slot_type<K>(
      std::declval<const staticflow::graph::child_refs<T...>&>()));
};
