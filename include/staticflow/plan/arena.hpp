// staticflow/plan/arena.hpp -- the per-thread arena that holds the run-time-shaped buffers of a
// call (materialized nodes of dynamic shape). It keeps its chunks between calls, so a steady
// stream of calls allocates nothing; chunks never move, so buffers of an outer call stay valid
// while a nested call (a function calling another) takes more.
#pragma once

#include <cstddef>

#include "staticflow/core/chunk_stack.hpp"

namespace staticflow::plan {

class arena : public staticflow::detail::chunk_stack {
 public:
  /// This thread's arena.
  static arena& local() {
    thread_local arena instance;
    return instance;
  }

  /// `bytes` bytes aligned to 64 (a cache line, and any xsimd batch).
  void* allocate(std::size_t bytes) { return chunk_stack::allocate(bytes, 64, std::size_t{1} << 16); }
};

/// Releases what a call took from the arena when the call ends (also when it throws).
class arena_scope {
 public:
  arena_scope() : arena_(arena::local()), mark_(arena_.top()) {}
  ~arena_scope() { arena_.release(mark_); }
  arena_scope(const arena_scope&) = delete;
  arena_scope& operator=(const arena_scope&) = delete;
  arena& get() { return arena_; }

 private:
  arena& arena_;
  arena::mark mark_;
};

}  // namespace staticflow::plan

#include "staticflow/core/config.hpp"
#include "staticflow/core/shape.hpp"

namespace staticflow::plan {
/// Where a materialized node's buffer lives: on the stack when its shape is static and small
/// (below STATICFLOW_MAX_STATIC_BYTES), in the arena otherwise.
template <class Node, class T = typename Node::value_type, class S = typename Node::shape_type,
          bool OnStack = S::is_static && (S::size * sizeof(T) <= STATICFLOW_MAX_STATIC_BYTES)>
struct slot_storage {
  T* get(arena& a, const extents<S::rank>& ext) {
    return static_cast<T*>(a.allocate(sizeof(T) * staticflow::detail::product(ext)));
  }
};
template <class Node, class T, class S>
struct slot_storage<Node, T, S, true> {
  alignas(64) std::array<T, (S::size > 0 ? S::size : 1)> data;  // never a null pointer, even for no elements
  T* get(arena&, const extents<S::rank>&) { return data.data(); }
};
}  // namespace staticflow::plan
