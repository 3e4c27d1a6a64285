// bench_cumulative -- sf::cumsum (backend/cpu/cumulative.hpp) against a hand-written loop,
// xtensor's xt::cumsum and Eigen's Tensor cumsum, float32 [1000, 1000], one thread.
//
//   Rows/...     along the last axis: 1000 sequential scans of 1000 elements
//   Columns/...  along axis 0: a row of 1000 running sums carried down (vectorizable)
//
// Counter bytes_per_second: the input read and the result written once. Each variant is checked
// against a double-precision reference at sampled elements after timing.
#include <benchmark/benchmark.h>

#include <unsupported/Eigen/CXX11/Tensor>

#include <cmath>
#include <cstddef>
#include <random>

#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

#include "bench_common.hpp"

namespace sf = staticflow;

namespace {

constexpr std::size_t rows = 1000, cols = 1000;

struct data {
  xt::xtensor<float, 2> x, y;
  data() : x(xt::zeros<float>({rows, cols})), y(xt::zeros<float>({rows, cols})) {
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> u(-1, 1);
    for (auto& v : x) v = u(rng);
  }
  void check(benchmark::State& state, int axis) const {
    std::mt19937 rng(7);
    for (int s = 0; s < 64; ++s) {
      const std::size_t i = rng() % rows, j = rng() % cols;
      double want = 0;
      if (axis == 1)
        for (std::size_t k = 0; k <= j; ++k) want += x(i, k);
      else
        for (std::size_t k = 0; k <= i; ++k) want += x(k, j);
      if (!(std::fabs(y(i, j) - want) <= 1e-3 * (1 + std::fabs(want)))) {
        state.SkipWithError("wrong result");
        return;
      }
    }
  }
};

void report(benchmark::State& state) {
  state.SetBytesProcessed(static_cast<std::int64_t>(2 * sizeof(float) * rows * cols * state.iterations()));
}

template <int Axis>
void run_staticflow(benchmark::State& state) {
  data d;
  auto fn = sf::function([](auto x) { return sf::cumsum(x, sf::axes<Axis>{}); });
  fn.call_into(d.y, d.x);
  for (auto _ : state) {
    fn.call_into(d.y, d.x);
    benchmark::DoNotOptimize(d.y.data());
    benchmark::ClobberMemory();
  }
  d.check(state, Axis);
  report(state);
}

template <int Axis>
void run_hand_loop(benchmark::State& state) {
  data d;
  for (auto _ : state) {
    const float* x = d.x.data();
    float* y = d.y.data();
    if constexpr (Axis == 1) {
      for (std::size_t i = 0; i < rows; ++i) {
        float acc = 0;
        for (std::size_t j = 0; j < cols; ++j) y[i * cols + j] = acc += x[i * cols + j];
      }
    } else {
      std::copy_n(x, cols, y);
      for (std::size_t i = 1; i < rows; ++i)
        for (std::size_t j = 0; j < cols; ++j) y[i * cols + j] = y[(i - 1) * cols + j] + x[i * cols + j];
    }
    benchmark::DoNotOptimize(d.y.data());
    benchmark::ClobberMemory();
  }
  d.check(state, Axis);
  report(state);
}

template <int Axis>
void run_xtensor(benchmark::State& state) {
  data d;
  for (auto _ : state) {
    d.y = xt::cumsum(d.x, Axis);
    benchmark::DoNotOptimize(d.y.data());
    benchmark::ClobberMemory();
  }
  d.check(state, Axis);
  report(state);
}

template <int Axis>
void run_eigen(benchmark::State& state) {
  data d;
  using map = Eigen::TensorMap<Eigen::Tensor<float, 2, Eigen::RowMajor>>;
  map x(d.x.data(), long(rows), long(cols)), y(d.y.data(), long(rows), long(cols));
  for (auto _ : state) {
    y = x.cumsum(Axis);
    benchmark::DoNotOptimize(d.y.data());
    benchmark::ClobberMemory();
  }
  d.check(state, Axis);
  report(state);
}

void Rows_Staticflow(benchmark::State& s) { run_staticflow<1>(s); }
void Rows_HandLoop(benchmark::State& s) { run_hand_loop<1>(s); }
void Rows_Xtensor(benchmark::State& s) { run_xtensor<1>(s); }
void Rows_EigenTensor(benchmark::State& s) { run_eigen<1>(s); }
void Columns_Staticflow(benchmark::State& s) { run_staticflow<0>(s); }
void Columns_HandLoop(benchmark::State& s) { run_hand_loop<0>(s); }
void Columns_Xtensor(benchmark::State& s) { run_xtensor<0>(s); }
void Columns_EigenTensor(benchmark::State& s) { run_eigen<0>(s); }

}  // namespace

BENCHMARK(Rows_Staticflow)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Rows_HandLoop)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Rows_Xtensor)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Rows_EigenTensor)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Columns_Staticflow)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Columns_HandLoop)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Columns_Xtensor)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Columns_EigenTensor)->Unit(benchmark::kMicrosecond)->UseRealTime();
