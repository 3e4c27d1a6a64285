// bench/bench_common.hpp -- shared by the benchmark executables (not a benchmark itself).
#pragma once

#include <benchmark/benchmark.h>

#include <xsimd/xsimd.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace sf_bench {

/// Adds the SIMD instruction set xsimd picked (and its float lane count) to the benchmark
/// context printed at the top of every run and stored in the JSON output. (staticflow's fused
/// loops use this default architecture in optimized builds.)
inline const bool context_registered = [] {
  benchmark::AddCustomContext("xsimd_arch", xsimd::default_arch::name());
  benchmark::AddCustomContext("xsimd_float_lanes", std::to_string(xsimd::batch<float>::size));
  return true;
}();

/// Repetition statistics: besides Google Benchmark's mean/median/stddev/cv, the minimum, which
/// is the least noise-sensitive estimate on a shared machine.
inline void add_min(benchmark::internal::Benchmark* b) {
  b->ComputeStatistics("min", [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); });
}

/// Runs body once (warm-up: first-touch pages, the function's trace), then once per iteration;
/// `out` is the result's storage, kept observable so the work is not optimized away.
template <class Body>
void timed(benchmark::State& state, const void* out, Body body) {
  body();
  for (auto _ : state) {
    body();
    benchmark::DoNotOptimize(out);
    benchmark::ClobberMemory();
  }
}

}  // namespace sf_bench
