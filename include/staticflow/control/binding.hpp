// staticflow/control/binding.hpp -- the nodes control flow adds to a graph: variables bound by a
// loop, the outputs of a node with several results, and the substitution that turns a loop's
// variables into plain arguments when its body is planned.
//
// A loop body is traced once, with `bound_variable<Scope, K, ...>` leaves standing for the loop's
// variables; `Scope` is a type unique to the loop (its body's closure type), so the variables of
// nested loops never mix. When the planner plans the body (`with_plans<ArgCount>()`), variable K
// becomes `argument<ArgCount + K>`: the fused loops then read it like any argument, from the
// loop's state buffer.
#pragma once

#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/graph/child_refs.hpp"
#include "staticflow/graph/traversal.hpp"

namespace staticflow::graph {

/// Variable K of the loop (or scan) identified by Scope, of dtype T and shape S.
template <class Scope, std::size_t K, class T, class S>
struct bound_variable : node<bound_variable<Scope, K, T, S>> {
  using value_type = T;
  using shape_type = S;
  using scope_type = Scope;  // a listing names the variable after the loop's parameter
  static constexpr std::size_t index = K;
  constexpr child_refs<> children() const { return {}; }
  std::string name() const { return "loop_var" + std::to_string(K); }
};

/// Result K of a node with several results (the planner reads it from that node's K-th view).
template <std::size_t K, class N>
struct output_of : node<output_of<K, N>> {
  using spec_type = std::tuple_element_t<K, typename N::output_specs>;
  using value_type = typename spec_type::value_type;
  using shape_type = typename spec_type::shape_type;
  static constexpr std::size_t projected_output = K;
  N source;
  constexpr explicit output_of(N n) : source(std::move(n)) {}
  constexpr child_refs<const N&> children() const { return {source}; }
  template <class M>
  constexpr auto with_children(const M& m) const { return output_of<K, M>(m); }
  std::string name() const { return "get[" + std::to_string(K) + "]"; }
};

/// The results of node n (which has `output_specs`) as a tuple of output_of nodes.
template <class N>
constexpr auto outputs_of(const N& n) {
  return [&]<std::size_t... K>(std::index_sequence<K...>) {
    return std::tuple{output_of<K, N>(n)...};
  }(std::make_index_sequence<std::tuple_size<typename N::output_specs>::value>{});
}

namespace detail {
template <class N, class Scope> struct is_bound_in : std::false_type {};
template <class Scope, std::size_t K, class T, class S>
struct is_bound_in<bound_variable<Scope, K, T, S>, Scope> : std::true_type {};
}  // namespace detail

/// Graph n with the variables of Scope replaced by arguments: variable K becomes argument Base + K.
/// Nodes that hold graphs of their own substitute inside them too (`bind_variables<Scope, Base>()`),
/// unless they bind Scope themselves.
template <class Scope, std::size_t Base, class N>
constexpr auto bind_variables(const N& n) {
  if constexpr (detail::is_bound_in<N, Scope>::value) {
    return argument<Base + N::index, typename N::value_type, typename N::shape_type>{};
  } else if constexpr (requires { n.template bind_variables<Scope, Base>(); }) {
    return n.template bind_variables<Scope, Base>();
  } else if constexpr (std::tuple_size<decltype(children(n))>::value == 0) {
    return n;
  } else {
    return apply_children([&](const auto&... kid) { return with_children(n, bind_variables<Scope, Base>(kid)...); },
                          children(n));
  }
}

/// bind_variables over every node of a tuple of graphs.
template <class Scope, std::size_t Base, class... N>
constexpr auto bind_variables(const std::tuple<N...>& graphs) {
  return staticflow::detail::apply([](const auto&... g) { return std::tuple{bind_variables<Scope, Base>(g)...}; }, graphs);
}

/// Whether graph N reads a variable of Scope (a body that ignores a variable may skip copying it).
template <class Scope, class N>
constexpr bool reads_scope() {
  if constexpr (detail::is_bound_in<N, Scope>::value) {
    return true;
  } else if constexpr (requires { N::template reads_scope<Scope>(); }) {
    return N::template reads_scope<Scope>();
  } else {
    using kids = decltype(children(std::declval<const N&>()));
    return []<std::size_t... K>(std::index_sequence<K...>) {
      return (reads_scope<Scope, std::remove_cvref_t<std::tuple_element_t<K, kids>>>() || ...);
    }(std::make_index_sequence<std::tuple_size<kids>::value>{});
  }
}

}  // namespace staticflow::graph
