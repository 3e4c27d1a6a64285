// staticflow/backend/backend.hpp -- the tags that choose who runs a function's kernels.
#pragma once

namespace staticflow::backend {

/// Fused loops vectorized with xsimd (the default).
struct cpu_t {
  static constexpr const char* name = "cpu";
};
/// Op by op with a temporary per node: the reference and debugging mode.
struct eager_t {
  static constexpr const char* name = "eager";
};

inline constexpr cpu_t cpu{};
inline constexpr eager_t eager{};

}  // namespace staticflow::backend
