// staticflow/plan/cost_rule.hpp -- which nodes the planner materializes (computes into a buffer
// of their own, once per call) and what those buffers hold; plan/plan.hpp states the rule.
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>

#include "staticflow/graph/node.hpp"

namespace staticflow::plan {

// These per-node questions are classes with a std::integral_constant base: a lambda in a
// variable's initializer is three functions per node type, each with a mangled name that holds the
// node's type, which g++ computes even for functions only a constant expression calls
// (docs/architecture.md, "What a call site costs the compiler").

/// Whether the planner materializes node N (plan/plan.hpp's cost rule).
template <class N>
struct materializes : std::false_type {};
template <class N>
  requires requires { N::materialized; }
struct materializes<N> : std::bool_constant<bool(N::materialized)> {};
template <class N>
inline constexpr bool materializes_v = materializes<N>::value;

/// How many values (views) a materialized node produces: one, or the size of its `output_specs`
/// tuple for a node with several results (cond and loops with several outputs or variables).
template <class N>
struct view_count : std::integral_constant<std::size_t, 1> {};
template <class N>
  requires requires { typename N::output_specs; }
struct view_count<N> : std::integral_constant<std::size_t, std::tuple_size<typename N::output_specs>::value> {};
template <class N>
inline constexpr std::size_t view_count_v = view_count<N>::value;

/// The specs of the values a materialized node produces.
template <class N>
struct output_specs_of {
  using type = std::tuple<spec_of_node_t<N>>;
};
template <class N>
  requires requires { typename N::output_specs; }
struct output_specs_of<N> {
  using type = typename N::output_specs;
};

/// Whether node N can be the node a shared node holds, as it is (graph/shared.hpp): materialized,
/// one value, neither a view of another node's values nor a node that allocates its own.
template <class N>
struct shareable_as_is
    : std::bool_constant<materializes<N>::value && !requires { N::self_allocating; } && !requires { N::projected_output; } &&
                         view_count<N>::value == 1> {};
template <class N>
inline constexpr bool shareable_as_is_v = shareable_as_is<N>::value;
}  // namespace staticflow::plan
