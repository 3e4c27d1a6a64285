// staticflow/graph/shared.hpp -- graph::shared<Tag, M>: one materialized node M that a graph holds
// in several places, marked so that the planner computes it once *and compiles it once*.
//
// A graph is a tree of types, so a node used in several places is copied, and the planner made
// each copy its own slot: the copies lower to reads of different slot indices, which makes every
// node above them a different type, and every kernel above them was compiled once per copy (the
// run-time common-subexpression rule then skipped the repeats). The adjoint of a graph copies the
// forward nodes it reads into every gradient, so this is what made gradients expensive to compile.
//
// The gradient builder (autodiff/gradients.hpp) wraps each materialized forward node in a
// shared<Tag, M> whose Tag names the differentiated root's type and the node's path from it: every
// copy has the same type, and nodes that are not copies of one another have different tags. The
// planner (plan/plan.hpp) computes each distinct shared type once, before the other slots, and
// lowers every occurrence to a read of that one slot, so every copy lowers to one type. When the
// plan is made it checks that all occurrences of a tag hold equal values (two sf::gradients calls
// over roots of one type but different values would not) and throws sf::trace_error otherwise.
// Anywhere else a shared node is its child: it computes nothing and prints as nothing.
#pragma once

#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticflow/core/shape.hpp"
#include "staticflow/graph/node.hpp"

namespace staticflow::graph {

/// The tag of a shared node: the type of the graph it was found in and its path from that root
/// (child indices, as a std::index_sequence).
template <class Root, class Path>
struct path_tag {};

template <class Tag, class M>
struct shared : node<shared<Tag, M>> {
  using value_type = typename M::value_type;
  using shape_type = typename M::shape_type;
  using tag_type = Tag;
  static constexpr bool custom_extents = true;
  M m;
  constexpr explicit shared(M m_) : m(m_) {}
  constexpr std::tuple<const M&> children() const { return {m}; }
  template <class C>
  constexpr auto with_children(const C& c) const { return shared<Tag, C>(c); }
  std::string name() const { return "shared"; }
  extents<shape_type::rank> result_extents(const extents<shape_type::rank>& in) const { return in; }
};

namespace detail {
template <class N> struct is_shared : std::false_type {};
template <class Tag, class M> struct is_shared<shared<Tag, M>> : std::true_type {};
}  // namespace detail

}  // namespace staticflow::graph
