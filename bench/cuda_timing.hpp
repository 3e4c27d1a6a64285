// bench/cuda_timing.hpp -- timing shared by the CUDA benchmarks (thrust_cuda.cu, nccl_all_reduce.cu);
// not a benchmark itself.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>

namespace sf_bench {

/// Wall-clock milliseconds per call of f: the best of five runs of `reps` calls, each run ended by
/// a device synchronization, after three warm-up calls (traces, allocations, first launches).
template <class F>
double best_wall_ms_per_call(F&& f, int reps) {
  for (int i = 0; i < 3; ++i) f();
  cudaDeviceSynchronize();
  double best = 1e30;
  for (int run = 0; run < 5; ++run) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < reps; ++i) f();
    cudaDeviceSynchronize();
    best = std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() / reps);
  }
  return best;
}

}  // namespace sf_bench
