// staticflow/effects/loop_effects.hpp -- what a while loop whose body has effects (variable
// assignments, sf::print) shares between its trace, its effect and the backend's loop kernel.
//
// Such a loop runs as an effect, in program order with the function's other effects
// (effects/loop_statement.hpp): the effect evaluates the loop's node, whose kernel, seeing
// `running`, publishes the loop's variables in `cells` and runs the body's effects after the
// condition of every iteration; the final variables land in `results`. The node in the
// function's graph, which carries a pointer to this object, reads them instead of running the
// loop a second time. The body's effects read the loop's variables through `cells`: while the
// body is traced, `loop_trace_scope` registers them, and an effect's graph (cpu::effect_graph)
// turns every variable of the loop into an external leaf over its cell. The CPU and Thrust loop
// kernels (backend/cpu/control.hpp, backend/thrust/control.hpp) both drive it.
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "staticflow/effects/recorder.hpp"
#include "staticflow/graph/external.hpp"

namespace staticflow::detail {

struct loop_effects {
  /// Where loop variable K is in the current iteration.
  struct cell {
    const void* data = nullptr;
    std::array<std::size_t, max_variable_rank> ext{};
    graph::external_source source{&data, ext.data(), "loop_variable"};
    cell() = default;
    cell(const cell&) = delete;
    cell& operator=(const cell&) = delete;
  };
  /// A final variable, row-major, with its extents.
  struct result {
    std::vector<unsigned char> bytes;
    std::array<std::size_t, max_variable_rank> ext{};
  };

  explicit loop_effects(std::size_t variables) : results(variables) {
    for (std::size_t k = 0; k < variables; ++k) cells.push_back(std::make_unique<cell>());
  }

  std::vector<std::unique_ptr<cell>> cells;
  std::vector<std::unique_ptr<effect>> body;  // the body's effects, in program order
  std::vector<result> results;                // the final variables of the last run
  erased_args args = nullptr;                 // the call's arguments, while the loop's effect runs
  bool running = false;                       // the effect evaluates the loop now

  /// Called by the loop kernel once the condition held: the variables' current values (in the
  /// device system's memory when `device_memory`: a Thrust kernel's), then the body's effects.
  void publish(std::size_t k, const void* data, const std::size_t* ext, std::size_t rank, bool device_memory = false) {
    cell& c = *cells[k];
    c.data = data;
    c.source.device_memory = device_memory;
    for (std::size_t d = 0; d < rank; ++d) c.ext[d] = ext[d];
  }
  void run_body() {
    for (auto& e : body) run_effect(*e, args);
  }

  /// Final variable k of the last run: its elements and its extents (what a loop kernel copies
  /// into its slot when the effect has run the loop).
  template <class T, std::size_t R>
  std::pair<const T*, extents<R>> result(std::size_t k) const {
    extents<R> ext{};
    for (std::size_t d = 0; d < R; ++d) ext[d] = results[k].ext[d];
    return {reinterpret_cast<const T*>(results[k].bytes.data()), ext};
  }

  /// Where final variable k goes (called once its extents are known).
  template <class T, std::size_t R, class Extents>
  T* result_buffer(std::size_t k, const Extents& ext) {
    std::size_t n = 1;
    for (std::size_t d = 0; d < R; ++d) {
      results[k].ext[d] = ext[d];
      n *= ext[d];
    }
    results[k].bytes.resize(n * sizeof(T));
    return reinterpret_cast<T*>(results[k].bytes.data());
  }
};

/// The loops whose bodies are being traced on this thread with their effects recorded, innermost
/// last: a loop's identity (the address of a variable of its Scope type) and its cells.
struct traced_loop {
  const void* scope;
  loop_effects* effects;
};
inline std::vector<traced_loop>& traced_loops() {
  thread_local std::vector<traced_loop> loops;
  return loops;
}
template <class Scope>
inline constexpr char loop_scope_identity = 0;

/// While alive, effects recorded for the body of the loop identified by Scope read its variables
/// from `effects`' cells.
class loop_trace_scope {
 public:
  loop_trace_scope(const void* scope, loop_effects* effects) { traced_loops().push_back({scope, effects}); }
  ~loop_trace_scope() { traced_loops().pop_back(); }
  loop_trace_scope(const loop_trace_scope&) = delete;
  loop_trace_scope& operator=(const loop_trace_scope&) = delete;
};

/// The source of variable K of the loop identified by Scope, whose body is being traced; throws
/// when that loop is not (an effect of a loop body that cannot hold effects).
template <class Scope>
const graph::external_source* loop_variable_source(std::size_t k) {
  const auto& loops = traced_loops();
  for (auto it = loops.rbegin(); it != loops.rend(); ++it)
    if (it->scope == &loop_scope_identity<Scope>) return &it->effects->cells[k]->source;
  throw trace_error("an effect reads a loop variable outside the body of its loop");
}

}  // namespace staticflow::detail
