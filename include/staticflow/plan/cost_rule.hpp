// staticflow/plan/cost_rule.hpp -- which nodes the planner materializes (computes into a buffer
// of their own, once per call) and what those buffers hold; plan/plan.hpp states the rule.
#pragma once

#include <cstddef>
#include <tuple>

#include "staticflow/graph/node.hpp"

namespace staticflow::plan {

/// Whether the planner materializes node N (plan/plan.hpp's cost rule).
template <class N>
inline constexpr bool materializes_v = [] {
  if constexpr (requires { N::materialized; }) return bool(N::materialized);
  else return false;
}();

/// How many values (views) a materialized node produces: one, or the size of its `output_specs`
/// tuple for a node with several results (cond and loops with several outputs or variables).
template <class N>
inline constexpr std::size_t view_count_v = [] {
  if constexpr (requires { typename N::output_specs; }) return std::tuple_size_v<typename N::output_specs>;
  else return std::size_t{1};
}();

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
inline constexpr bool shareable_as_is_v = [] {
  if constexpr (!materializes_v<N> || requires { N::self_allocating; } || requires { N::projected_output; }) return false;
  else return view_count_v<N> == 1;
}();
}  // namespace staticflow::plan
