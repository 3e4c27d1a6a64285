// staticflow/trace/log.hpp -- where staticflow's warnings go (the retracing warning): a callback
// the user may replace, process-wide or per polymorphic function. Default: one line on stderr.
#pragma once

#include <cstdio>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

namespace staticflow {

/// Receives one warning message per call (no trailing newline).
using log_callback = std::function<void(std::string_view)>;

namespace detail {
struct global_log_state {
  std::mutex mutex;
  log_callback callback;
};
inline global_log_state& global_log() {
  static global_log_state state;
  return state;
}
inline void default_log(std::string_view message) {
  std::fprintf(stderr, "%.*s\n", static_cast<int>(message.size()), message.data());
}
}  // namespace detail

/// Sets the process-wide log callback (an empty one restores the default, stderr) and returns
/// the previous one. A polymorphic function's own callback (set_log_callback) takes precedence.
inline log_callback set_log_callback(log_callback callback) {
  auto& state = detail::global_log();
  std::lock_guard<std::mutex> lock(state.mutex);
  return std::exchange(state.callback, std::move(callback));
}

namespace detail {
/// Sends a message to `own` if set, else to the process-wide callback, else to stderr. The
/// callback runs with no staticflow lock held.
inline void log_message(const log_callback& own, std::string_view message) {
  if (own) return own(message);
  log_callback global;
  {
    auto& state = global_log();
    std::lock_guard<std::mutex> lock(state.mutex);
    global = state.callback;
  }
  if (global) global(message);
  else default_log(message);
}
}  // namespace detail
}  // namespace staticflow
