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
//
// A shared node holds its child once, in a reference-counted box, however often the graph copies
// it: an unrolled loop whose body reads its variable twice (control/fori_loop.hpp) would otherwise
// make a graph whose size, and whose trace and plan time, grow as 2^steps. Traversals that meet one
// box many times (the planner's prelude search and equality checks, the listing) look at the box
// once. The box works in a constant expression too (C++20 transient allocation), so a graph with
// shared nodes can still be traced and planned by the compiler (trace/constant_trace.hpp).
#pragma once

#include <atomic>
#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticflow/core/shape.hpp"
#include "staticflow/graph/child_refs.hpp"
#include "staticflow/graph/node.hpp"

namespace staticflow::graph {

/// The tag of a shared node: the type of the graph it was found in and its path from that root
/// (child indices, as a std::index_sequence).
template <class Root, class Path>
struct path_tag {};

namespace detail {
/// A node held once: copies share it and count references (atomically at run time, since a graph
/// may be copied on several threads; plainly in a constant expression, where atomics cannot run).
template <class M>
class held_node {
  struct box {
    M value;
    std::size_t refs;
  };
  box* box_;

  constexpr void acquire() const noexcept {
    // A moved-from node (box_ null) copies as another empty one. Without the test GCC 12 at -O2
    // also warned, on that path, of an atomic write "into a region of size 0" in user programs
    // (a gradient through a materialized node, e.g. reduce_sum(cumsum(x) * w)).
    if (box_ == nullptr) return;
    if (std::is_constant_evaluated()) ++box_->refs;
    else std::atomic_ref<std::size_t>(box_->refs).fetch_add(1, std::memory_order_relaxed);
  }
  constexpr void release() noexcept {
    if (box_ == nullptr) return;
    if (std::is_constant_evaluated()) {
      if (--box_->refs == 0) delete box_;
    } else if (std::atomic_ref<std::size_t>(box_->refs).fetch_sub(1, std::memory_order_acq_rel) == 1) {
      destroy(box_);
    }
    box_ = nullptr;
  }
  // Out of line: GCC 12 at -O2, seeing the delete inlined into a function that releases two copies
  // of one node, warned that the second release reads the box after the first deleted it
  // (-Wuse-after-free in examples/08_training.cpp); the count makes that path impossible.
  [[gnu::noinline]] static void destroy(box* b) noexcept { delete b; }

 public:
  constexpr explicit held_node(const M& m) : box_(new box{m, 1}) {}
  constexpr held_node(const held_node& o) noexcept : box_(o.box_) { acquire(); }
  constexpr held_node(held_node&& o) noexcept : box_(o.box_) { o.box_ = nullptr; }
  constexpr held_node& operator=(const held_node& o) noexcept {
    if (box_ != o.box_) {
      o.acquire();
      release();
      box_ = o.box_;
    }
    return *this;
  }
  constexpr held_node& operator=(held_node&& o) noexcept {
    if (this != &o) {
      release();
      box_ = o.box_;
      o.box_ = nullptr;
    }
    return *this;
  }
  constexpr ~held_node() { release(); }
  constexpr const M& get() const noexcept { return box_->value; }
  /// The same box: the same node, whatever path led to it.
  constexpr bool same_box(const held_node& o) const noexcept { return box_ == o.box_; }
  const void* identity() const noexcept { return box_; }
};
}  // namespace detail

/// What a shared node holds, as a type: a class naming its tag (`tag_type`) and the node it shares
/// (`held_type`). The planner tells shared nodes apart by this key alone.
template <class Tag, class M>
struct shared_key {
  using tag_type = Tag;
  using held_type = M;
};

/// A shared node keyed by Key. A key may be any class with those two names, a local class
/// included: an unrolled loop's steps (control/fori_loop.hpp) use one, so that a step's node type
/// is not a template of the previous step's type. Nested that way, a type that copies the
/// previous step k times makes GCC's overload resolution (constructing a std::tuple of it) take
/// time that grows as k^steps, although the type itself is stored once.
namespace detail {
/// A node with several results (a loop, a cond) is shared with them: read through output_of.
template <class M>
struct held_outputs {};
template <class M>
  requires requires { typename M::output_specs; }
struct held_outputs<M> {
  using output_specs = typename M::output_specs;
};
}  // namespace detail

template <class Key>
struct shared_node : node<shared_node<Key>>, detail::held_outputs<typename Key::held_type> {
  using tag_type = typename Key::tag_type;
  using held_type = typename Key::held_type;
  using value_type = typename held_type::value_type;
  using shape_type = typename held_type::shape_type;
  static constexpr bool custom_extents = true;
  detail::held_node<held_type> held;
  constexpr explicit shared_node(const held_type& m_) : held(m_) {}
  /// The node it shares.
  constexpr const held_type& value() const noexcept { return held.get(); }
  constexpr child_refs<const held_type&> children() const { return {held.get()}; }
  template <class C>
  constexpr auto with_children(const C& c) const {
    if constexpr (std::is_same<C, held_type>::value) return shared_node(c);
    else return shared_node<shared_key<tag_type, C>>(c);
  }
  std::string name() const { return "shared"; }
  extents<shape_type::rank> result_extents(const extents<shape_type::rank>& in) const { return in; }
};

/// The shared node with tag Tag over M.
template <class Tag, class M>
using shared = shared_node<shared_key<Tag, M>>;

/// The tag of a materialized node whose type determines its values (graph::value_free_v): every
/// copy of it, wherever it is in a graph, has this one key, a local class, so that the shared
/// node's type does not nest the types inside it (see control/fori_loop.hpp's unrolled_step_key).
/// The planner marks a node a program reads twice this way (plan/repeats.hpp), and so does the
/// gradient builder (autodiff/backprop.hpp).
template <class M>
struct typed_value {};
template <class M>
constexpr auto typed_value_key() {
  struct key : shared_key<typed_value<M>, M> {};
  return key{};
}

namespace detail {
template <class N> struct is_shared : std::false_type {};
template <class Key> struct is_shared<shared_node<Key>> : std::true_type {};
}  // namespace detail

}  // namespace staticflow::graph
