// bench_random -- stateless random numbers and dropout (graph/random.hpp, backend/cpu/random.hpp)
// against a hand-written loop over the same Philox functions (core/philox.hpp: what the kernel
// costs around them), the C++ standard library (std::mt19937 with its distributions), xtensor
// (xt::random, an mt19937 inside) and Eigen (ArrayXf::Random, std::rand), one thread, float32 [1M].
//
//   Uniform/...  u in [0, 1) (Eigen's Random is in [-1, 1])
//   Normal/...   standard normals (Eigen has none)
//   Dropout/...  y = dropout(x, 0.5): the uniform draw, the comparison and the scale in one pass
//
// The staticflow and hand-loop results are TF's numbers and are checked equal element for element
// after timing; the others are checked to lie in their range.
#include <benchmark/benchmark.h>

#include <Eigen/Dense>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>

#include <xtensor/xrandom.hpp>
#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

namespace {

constexpr std::size_t size = 1 << 20;
const xt::xtensor_fixed<std::int64_t, xt::xshape<2>> seed{1, 2};

struct data {
  xt::xtensor<float, 1> x = xt::ones<float>({size}), y = xt::zeros<float>({size});
  void report(benchmark::State& state) const {
    state.SetBytesProcessed(static_cast<std::int64_t>(sizeof(float) * size * state.iterations()));
  }
};

template <class Body>
void timed(benchmark::State& state, xt::xtensor<float, 1>& y, Body body) {
  body();
  for (auto _ : state) {
    body();
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
}

/// Value k of TF's stateless draw with seed (1, 2), by Fill: the reference of the checks.
template <class Fill>
void check_against(benchmark::State& state, const xt::xtensor<float, 1>& y, Fill fill) {
  const auto start = sf::philox::from_seed(1, 2);
  for (std::size_t k = 0; k < size; k += 4099) {
    float v[4];
    fill(sf::philox::generate(sf::philox::advance(start.counter, k / 4), start.key), v);
    if (y(k) != v[k % 4]) return state.SkipWithError("not TF's value");
  }
}
void check_range(benchmark::State& state, const xt::xtensor<float, 1>& y, float lo, float hi) {
  for (float v : y)
    if (!(v >= lo && v <= hi)) return state.SkipWithError("value out of range");
}

void uniform_block(const sf::philox::block& r, float* v) {
  for (std::size_t k = 0; k < 4; ++k) v[k] = sf::philox::unit_float(r[k]);
}
void normal_block(const sf::philox::block& r, float* v) {
  sf::philox::box_muller(sf::philox::unit_float(r[0]), sf::philox::unit_float(r[1]), v, v + 1);
  sf::philox::box_muller(sf::philox::unit_float(r[2]), sf::philox::unit_float(r[3]), v + 2, v + 3);
}
/// The seed's key and counter as a kernel finds them: from values read at run time (a constant
/// seed would let the compiler fold the key schedule into the loop, which no caller with a
/// per-step seed gets).
sf::philox::key_counter run_time_start() {
  std::int64_t s0 = seed(0), s1 = seed(1);
  benchmark::DoNotOptimize(s0);
  benchmark::DoNotOptimize(s1);
  return sf::philox::from_seed(static_cast<std::uint64_t>(s0), static_cast<std::uint64_t>(s1));
}
/// The hand loop: one Philox call per 4 values, written straight into y.
template <class Block>
void hand_fill(float* y, Block block) {
  const auto start = run_time_start();
  for (std::size_t b = 0; b < size / 4; ++b) block(sf::philox::generate(sf::philox::advance(start.counter, b), start.key), y + 4 * b);
}

// -- uniform -----------------------------------------------------------------------------------
void Uniform_Staticflow(benchmark::State& state) {
  data d;
  auto fn = sf::function([](auto x, auto s) { return sf::random::stateless_uniform(sf::shape_of(x), s); });
  timed(state, d.y, [&] { fn.call_into(d.y, d.x, seed); });
  check_against(state, d.y, uniform_block);
  d.report(state);
}
void Uniform_HandLoop(benchmark::State& state) {
  data d;
  timed(state, d.y, [&] { hand_fill(d.y.data(), uniform_block); });
  check_against(state, d.y, uniform_block);
  d.report(state);
}
void Uniform_StdMt19937(benchmark::State& state) {
  data d;
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  timed(state, d.y, [&] {
    for (auto& v : d.y) v = u(rng);
  });
  check_range(state, d.y, 0.f, 1.f);
  d.report(state);
}
void Uniform_Xtensor(benchmark::State& state) {
  data d;
  timed(state, d.y, [&] { d.y = xt::random::rand<float>({size}); });
  check_range(state, d.y, 0.f, 1.f);
  d.report(state);
}
void Uniform_Eigen(benchmark::State& state) {
  data d;
  Eigen::Map<Eigen::ArrayXf> y(d.y.data(), static_cast<Eigen::Index>(size));
  timed(state, d.y, [&] { y = Eigen::ArrayXf::Random(static_cast<Eigen::Index>(size)); });
  check_range(state, d.y, -1.f, 1.f);
  d.report(state);
}

// -- normal ------------------------------------------------------------------------------------
void Normal_Staticflow(benchmark::State& state) {
  data d;
  auto fn = sf::function([](auto x, auto s) { return sf::random::stateless_normal(sf::shape_of(x), s); });
  timed(state, d.y, [&] { fn.call_into(d.y, d.x, seed); });
  check_against(state, d.y, normal_block);
  d.report(state);
}
void Normal_HandLoop(benchmark::State& state) {
  data d;
  timed(state, d.y, [&] { hand_fill(d.y.data(), normal_block); });
  check_against(state, d.y, normal_block);
  d.report(state);
}
void Normal_StdMt19937(benchmark::State& state) {
  data d;
  std::mt19937 rng(1);
  std::normal_distribution<float> z;
  timed(state, d.y, [&] {
    for (auto& v : d.y) v = z(rng);
  });
  check_range(state, d.y, -10.f, 10.f);
  d.report(state);
}
void Normal_Xtensor(benchmark::State& state) {
  data d;
  timed(state, d.y, [&] { d.y = xt::random::randn<float>({size}); });
  check_range(state, d.y, -10.f, 10.f);
  d.report(state);
}

// -- dropout -----------------------------------------------------------------------------------
void dropout_block(const sf::philox::block& r, float* v) {
  for (std::size_t k = 0; k < 4; ++k) v[k] = sf::philox::unit_float(r[k]) >= 0.5f ? 2.f : 0.f;  // x = 1
}
void Dropout_Staticflow(benchmark::State& state) {
  data d;
  auto fn = sf::function([](auto x, auto s) { return sf::stateless_dropout(x, 0.5, s); });
  timed(state, d.y, [&] { fn.call_into(d.y, d.x, seed); });
  check_against(state, d.y, dropout_block);
  d.report(state);
}
void Dropout_HandLoop(benchmark::State& state) {
  data d;
  timed(state, d.y, [&] {
    const float* x = d.x.data();
    float* y = d.y.data();
    const auto start = run_time_start();
    for (std::size_t b = 0; b < size / 4; ++b) {
      const auto r = sf::philox::generate(sf::philox::advance(start.counter, b), start.key);
      // branch-free: a kept element is x * 2, a dropped one x * 0 (x is finite)
      for (std::size_t k = 0; k < 4; ++k) y[4 * b + k] = x[4 * b + k] * (sf::philox::unit_float(r[k]) >= 0.5f ? 2.f : 0.f);
    }
  });
  check_against(state, d.y, dropout_block);
  d.report(state);
}

}  // namespace

BENCHMARK(Uniform_Staticflow)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Uniform_HandLoop)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Uniform_StdMt19937)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Uniform_Xtensor)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Uniform_Eigen)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Normal_Staticflow)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Normal_HandLoop)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Normal_StdMt19937)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Normal_Xtensor)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Dropout_Staticflow)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Dropout_HandLoop)->Unit(benchmark::kMicrosecond)->UseRealTime();
