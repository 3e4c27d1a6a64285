// bench_creation -- sf::range and sf::eye (graph/creation.hpp, backend/cpu/sequence.hpp) inside a
// computation, against a hand-written loop, xtensor (xt::arange, xt::eye) and Eigen (LinSpaced,
// Identity), one thread.
//
//   Ramp/...      y = x * range(n) on float32 [1M]: the range's n values, then one fused multiply
//   Identity/...  y = m + eye(n) on float32 [1000, 1000]: the identity computed where it is read
//
// Counter bytes_per_second: the input read and the result written once. Each variant's result is
// checked at sampled elements after timing.
#include <benchmark/benchmark.h>

#include <Eigen/Dense>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>

#include <xtensor/xbuilder.hpp>
#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

#include "bench_common.hpp"

namespace sf = staticflow;

namespace {

constexpr std::size_t ramp_size = 1 << 20, side = 1000;

template <std::size_t Rank>
struct data {
  xt::xtensor<float, Rank> x, y;
  explicit data(std::array<std::size_t, Rank> shape) : x(xt::zeros<float>(shape)), y(xt::zeros<float>(shape)) {
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> u(-1, 1);
    for (auto& v : x) v = u(rng);
  }
  /// y at flat element k against want(k), at 64 sampled elements and the first few.
  template <class Want>
  void check(benchmark::State& state, Want want) const {
    std::mt19937 rng(7);
    for (int s = 0; s < 72; ++s) {
      const std::size_t k = s < 8 ? std::size_t(s) : rng() % x.size();
      if (!(std::fabs(y.data()[k] - want(k)) <= 1e-6f * (1 + std::fabs(want(k))))) {
        state.SkipWithError("wrong result");
        return;
      }
    }
  }
  void report(benchmark::State& state) const {
    state.SetBytesProcessed(static_cast<std::int64_t>(2 * sizeof(float) * x.size() * state.iterations()));
  }
};

template <class Body>
void timed(benchmark::State& state, float* y, Body body) {
  body();
  for (auto _ : state) {
    body();
    benchmark::DoNotOptimize(y);
    benchmark::ClobberMemory();
  }
}

// -- y = x * range(n) --------------------------------------------------------------------------
float ramp_want(const data<1>& d, std::size_t k) { return d.x(k) * static_cast<float>(k); }

void Ramp_Staticflow(benchmark::State& state) {
  data<1> d({ramp_size});
  const std::size_t n = ramp_size;
  auto fn = sf::function([&](auto x) { return x * sf::range<float>(n); });
  timed(state, d.y.data(), [&] { fn.call_into(d.y, d.x); });
  d.check(state, [&](std::size_t k) { return ramp_want(d, k); });
  d.report(state);
}
void Ramp_HandLoop(benchmark::State& state) {
  data<1> d({ramp_size});
  timed(state, d.y.data(), [&] {
    const float* x = d.x.data();
    float* y = d.y.data();
    // a 32-bit counter: its conversion to float vectorizes (a 64-bit one does not before AVX-512)
    for (std::int32_t i = 0; i < std::int32_t{ramp_size}; ++i) y[i] = x[i] * static_cast<float>(i);
  });
  d.check(state, [&](std::size_t k) { return ramp_want(d, k); });
  d.report(state);
}
void Ramp_Xtensor(benchmark::State& state) {
  data<1> d({ramp_size});
  timed(state, d.y.data(), [&] { d.y = d.x * xt::arange<float>(static_cast<float>(ramp_size)); });
  d.check(state, [&](std::size_t k) { return ramp_want(d, k); });
  d.report(state);
}
void Ramp_Eigen(benchmark::State& state) {
  data<1> d({ramp_size});
  const auto n = static_cast<Eigen::Index>(ramp_size);
  Eigen::Map<Eigen::ArrayXf> x(d.x.data(), n), y(d.y.data(), n);
  timed(state, d.y.data(), [&] { y = x * Eigen::ArrayXf::LinSpaced(n, 0.f, static_cast<float>(n - 1)); });
  d.check(state, [&](std::size_t k) { return ramp_want(d, k); });
  d.report(state);
}

// -- y = m + eye(n) ----------------------------------------------------------------------------
float identity_want(const data<2>& d, std::size_t k) { return d.x.data()[k] + (k / side == k % side ? 1.f : 0.f); }

void Identity_Staticflow(benchmark::State& state) {
  data<2> d({side, side});
  const std::size_t n = side;
  auto fn = sf::function([&](auto m) { return m + sf::eye(n); });
  timed(state, d.y.data(), [&] { fn.call_into(d.y, d.x); });
  d.check(state, [&](std::size_t k) { return identity_want(d, k); });
  d.report(state);
}
void Identity_HandLoop(benchmark::State& state) {
  data<2> d({side, side});
  timed(state, d.y.data(), [&] {
    const float* x = d.x.data();
    float* y = d.y.data();
    for (std::size_t i = 0; i < side; ++i) {
      for (std::size_t j = 0; j < side; ++j) y[i * side + j] = x[i * side + j];
      y[i * side + i] += 1.f;
    }
  });
  d.check(state, [&](std::size_t k) { return identity_want(d, k); });
  d.report(state);
}
void Identity_Xtensor(benchmark::State& state) {
  data<2> d({side, side});
  timed(state, d.y.data(), [&] { d.y = d.x + xt::eye<float>(side); });
  d.check(state, [&](std::size_t k) { return identity_want(d, k); });
  d.report(state);
}
void Identity_Eigen(benchmark::State& state) {
  data<2> d({side, side});
  const auto n = static_cast<Eigen::Index>(side);
  using matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Eigen::Map<matrix> x(d.x.data(), n, n), y(d.y.data(), n, n);
  timed(state, d.y.data(), [&] { y = x + matrix::Identity(n, n); });
  d.check(state, [&](std::size_t k) { return identity_want(d, k); });
  d.report(state);
}

}  // namespace

BENCHMARK(Ramp_Staticflow)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Ramp_HandLoop)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Ramp_Xtensor)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Ramp_Eigen)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Identity_Staticflow)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Identity_HandLoop)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Identity_Xtensor)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Identity_Eigen)->Unit(benchmark::kMicrosecond)->UseRealTime();
