// staticflow/graph/custom_gradient.hpp -- graph::custom_gradient<Y, Vjp, Xs...>: a value y computed
// from inputs xs... whose adjoint is given by the user (sf::custom_gradient, autodiff/custom_gradient.hpp)
// instead of being derived from y's graph.
//
// The node computes nothing of its own: it is y. Its only child is y, so the planner, the backends,
// the listings and every graph walk see y, and the planner lowers the node to y's lowered form
// (plan/plan.hpp), so no kernel ever holds it. What it adds is for the reverse walk
// (autodiff/backprop.hpp): the inputs xs... (not children: nothing evaluates them through this
// node) and `vjp`, a function object that, given the adjoint g of y, returns the adjoint of each
// input. The walk stops at the node and continues from each input with the adjoint vjp gave it.
#pragma once

#include <string>
#include <tuple>
#include <type_traits>

#include "staticflow/core/shape.hpp"
#include "staticflow/graph/child_refs.hpp"
#include "staticflow/graph/node.hpp"

namespace staticflow::graph {

template <class Y, class Vjp, class... Xs>
struct custom_gradient : node<custom_gradient<Y, Vjp, Xs...>> {
  using value_type = typename Y::value_type;
  using shape_type = typename Y::shape_type;
  static constexpr bool custom_extents = true;

  Y y;
  Vjp vjp;
  std::tuple<Xs...> inputs;

  constexpr custom_gradient(Y y_, Vjp vjp_, std::tuple<Xs...> inputs_) : y(y_), vjp(vjp_), inputs(inputs_) {}

  constexpr child_refs<const Y&> children() const { return {y}; }
  template <class C>
  constexpr auto with_children(const C& c) const { return custom_gradient<C, Vjp, Xs...>(c, vjp, inputs); }
  std::string name() const { return "custom_gradient"; }
  extents<shape_type::rank> result_extents(const extents<shape_type::rank>& in) const { return in; }
};

namespace detail {
template <class N> struct is_custom_gradient : std::false_type {};
template <class Y, class Vjp, class... Xs> struct is_custom_gradient<custom_gradient<Y, Vjp, Xs...>> : std::true_type {};
}  // namespace detail

}  // namespace staticflow::graph
