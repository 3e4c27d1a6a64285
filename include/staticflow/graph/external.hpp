// staticflow/graph/external.hpp -- a leaf whose value lives outside the call's arguments: a
// variable read, a captured container, a constant copied at trace time, a for_range counter.
//
// The leaf holds a pointer to an `external_source`, which says where the data is *now* (through
// a pointer to a pointer, so storage that moves or a read that is redirected to a snapshot is
// seen by the next evaluation) and what its extents are. The planner treats it as a slot that
// computes nothing: its view points at the data.
#pragma once

#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>

#include "staticflow/core/shape.hpp"
#include "staticflow/graph/child_refs.hpp"
#include "staticflow/graph/node.hpp"

namespace staticflow::graph {

/// Where an external value is: `*data` is its first element, `ext` its extents (rank entries;
/// unused for a static shape), `label` its name in graph listings, `origin` the object the value
/// belongs to (the sf::variable a read is of; null for other values): every read of one variable
/// has its own source, and gradients with respect to the variable gather them by their origin.
struct external_source {
  const void* const* data = nullptr;
  const std::size_t* ext = nullptr;
  const char* label = "external";
  const void* origin = nullptr;
  /// Whether `*data` is in the Thrust device system's memory rather than host memory (the loop
  /// variables a CUDA loop kernel publishes to its body's effects); host memory otherwise.
  bool device_memory = false;
};

/// The kind of external leaf that eager mode hands the lambda (trace/eager_mode.hpp): its value
/// is known while the lambda runs, so sf::cond can pick a branch and std::cout can show it.
struct eager_kind {};
/// The kind of an eager call's argument I: every leaf of it in the call's graph reads the one
/// source the call made for that argument, so two leaves of one such type hold the same values
/// (graph::value_free_v), and the planner may make the materialized nodes above them one node
/// (plan/repeats.hpp). Other eager values (results computed on the spot, a loop counter) are
/// eager_kind: two of one type may differ.
template <std::size_t I>
struct eager_argument_kind : eager_kind {};

/// A tensor of dtype T and shape S read from an external source when the graph runs. `Kind` is
/// void, or eager_kind (or an eager_argument_kind) for the values of an eager call.
template <class T, class S, class Kind = void>
struct external_leaf : node<external_leaf<T, S, Kind>> {
  using value_type = T;
  using shape_type = S;
  static constexpr bool materialized = true;     // a slot of its own: its view points at the data
  static constexpr bool self_allocating = true;  // ... which it does not allocate
  static constexpr bool parameters_in_type = !std::is_same<Kind, void>::value && !std::is_same<Kind, eager_kind>::value;
  const external_source* source;

  constexpr explicit external_leaf(const external_source* s) : source(s) {}
  constexpr child_refs<> children() const { return {}; }
  constexpr external_leaf with_children() const { return *this; }
  constexpr bool same_parameters(const external_leaf& o) const { return source == o.source; }
  std::string name() const { return source->label; }
  extents<S::rank> result_extents() const {
    extents<S::rank> e = S::dims;
    for (std::size_t d = 0; d < S::rank; ++d)
      if (e[d] == dyn) e[d] = source->ext[d];
    return e;
  }
  const T* data() const { return static_cast<const T*>(*source->data); }
};

template <class T, class S>
using external = external_leaf<T, S, void>;
template <class T, class S>
using eager_value = external_leaf<T, S, eager_kind>;
template <class T, class S, std::size_t I>
using eager_argument_value = external_leaf<T, S, eager_argument_kind<I>>;

namespace detail {
template <class N> struct is_eager_value : std::false_type {};
template <class T, class S, class K> struct is_eager_value<external_leaf<T, S, K>> : std::is_base_of<eager_kind, K> {};
}  // namespace detail

}  // namespace staticflow::graph
