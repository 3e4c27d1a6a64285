// staticflow/trace/eager_mode.hpp -- sf::run_functions_eagerly (tf.config.run_functions_eagerly):
// a debugging switch under which every call of an sf::function runs its lambda again and
// evaluates the graph op by op, instead of reusing a traced, fused concrete function.
#pragma once

#include <atomic>

#include "staticflow/core/config.hpp"
#include "staticflow/core/errors.hpp"

namespace staticflow {
namespace detail {
inline constinit std::atomic<bool> eager_functions{false};
}  // namespace detail

/// Whether call sites compile the eager path (STATICFLOW_EAGER_MODE, core/config.hpp).
inline constexpr bool eager_mode_compiled = STATICFLOW_EAGER_MODE != 0;

/// Turns eager execution of every sf::function on or off (process-wide). While on, each call runs
/// the lambda with eager values over its arguments (its C++ side effects, such as std::cout,
/// happen on every call and show values; effects run as they are met; sf::cond runs one branch;
/// sf::for_range is a C++ loop: effects/eager.hpp), then evaluates every node into a buffer of
/// its own (sf::backend::eager). The function's cache is neither used nor filled, and
/// tracing_count() does not change.
/// With STATICFLOW_EAGER_MODE=0 there is no eager path to switch to: turning it on throws
/// sf::trace_error (turning it off is allowed, and changes nothing).
inline void run_functions_eagerly(bool on) {
  if constexpr (!eager_mode_compiled) {
    if (on)
      throw trace_error(
          "run_functions_eagerly(true) in a program compiled with STATICFLOW_EAGER_MODE=0: calls always run "
          "traced (define STATICFLOW_EAGER_MODE=1, the default, to debug eagerly)");
  }
  detail::eager_functions.store(on, std::memory_order_relaxed);
}

/// Whether sf::function calls run eagerly now (always false with STATICFLOW_EAGER_MODE=0).
STATICFLOW_INLINE bool functions_run_eagerly() {
  if constexpr (!eager_mode_compiled) return false;
  else return detail::eager_functions.load(std::memory_order_relaxed);
}

/// Runs functions eagerly (or not) while alive, then restores the previous setting.
class run_functions_eagerly_scope {
 public:
  explicit run_functions_eagerly_scope(bool on = true) : saved_(functions_run_eagerly()) { run_functions_eagerly(on); }
  ~run_functions_eagerly_scope() { run_functions_eagerly(saved_); }
  run_functions_eagerly_scope(const run_functions_eagerly_scope&) = delete;
  run_functions_eagerly_scope& operator=(const run_functions_eagerly_scope&) = delete;

 private:
  bool saved_;
};

}  // namespace staticflow
