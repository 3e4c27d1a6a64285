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

/// The same fused graphs through Thrust: CUDA on a GPU, or a host device system (OpenMP, TBB,
/// serial) chosen at build time with THRUST_DEVICE_SYSTEM. Its arguments are device tensors
/// (sf::device_tensor, sf::device_view) and C++ scalars; see backend/thrust/thrust.hpp.
struct thrust_t {
  static constexpr const char* name = "thrust";
};

inline constexpr cpu_t cpu{};
inline constexpr eager_t eager{};
inline constexpr thrust_t thrust{};

}  // namespace staticflow::backend

namespace staticflow::thrust_backend {
/// Complete once backend/thrust/thrust.hpp is included (which needs Thrust): a function cannot
/// run on sf::backend::thrust before.
struct enabled;
}  // namespace staticflow::thrust_backend
