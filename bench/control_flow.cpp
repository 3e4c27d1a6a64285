// bench/control_flow.cpp -- issue 3's loops against hand-written C++ loops, in one run:
//   * a scalar while_loop: the Collatz step count of every n in [1, 1e6), one call per n;
//   * a fori_loop vector update v = v * a + b, 100 iterations over 1024 floats, against a hand
//     xsimd loop, Eigen, xtensor, and staticflow's eager mode.
// Quote ratios of the per-iteration times (docs/benchmarks.md), not absolute times.
#include <benchmark/benchmark.h>

#include <Eigen/Core>
#include <xsimd/xsimd.hpp>
#include <xtensor/xfixed.hpp>
#include <xtensor/xtensor.hpp>

#include <cstdint>

#include <staticflow/staticflow.hpp>

#include "bench_common.hpp"

namespace sf = staticflow;

namespace {
// int64: the orbits of n < 1e6 pass 2^31 (n = 113383 does), so int32 would overflow
constexpr std::int64_t collatz_limit = 1'000'000;

auto collatz_body = [](auto n) {
  auto [steps, m] = sf::while_loop([](auto, auto m) { return m != 1; },
                                   [](auto s, auto m) { return std::tuple{s + 1, sf::where(m % 2 == 0, m / 2, 3 * m + 1)}; },
                                   0, n);
  return steps;
};

// The same loop with its constants as static values (`2_c`): the compiler sees them, as it sees
// the literals of the hand-written loop, so `m / 2_c` is a shift and `3_c * m` an lea.
auto collatz_static_body = [](auto n) {
  using namespace sf::literals;
  auto [steps, m] = sf::while_loop([](auto, auto m) { return m != 1_c; },
                                   [](auto s, auto m) {
                                     return std::tuple{s + 1_c, sf::where(m % 2_c == 0_c, m / 2_c, 3_c * m + 1_c)};
                                   },
                                   0, n);
  return steps;
};

void Collatz_Hand(benchmark::State& state) {
  std::int64_t total = 0;
  for (auto _ : state) {
    total = 0;
    for (std::int64_t n = 1; n < collatz_limit; ++n) {
      std::int64_t m = n;
      std::int32_t steps = 0;
      while (m != 1) {
        m = m % 2 == 0 ? m / 2 : 3 * m + 1;
        ++steps;
      }
      total += steps;
    }
    benchmark::DoNotOptimize(total);
  }
  state.counters["steps"] = double(total);
}

template <class Backend, class Body = decltype(collatz_body)>
void collatz_staticflow(benchmark::State& state, Backend backend, Body body = collatz_body) {
  auto collatz = sf::function(body, backend);
  std::int64_t total = 0;
  for (auto _ : state) {
    total = 0;
    for (std::int64_t n = 1; n < collatz_limit; ++n) total += collatz(n);
    benchmark::DoNotOptimize(total);
  }
  state.counters["steps"] = double(total);
}
void Collatz_Staticflow(benchmark::State& state) { collatz_staticflow(state, sf::backend::cpu); }
void Collatz_Eager(benchmark::State& state) { collatz_staticflow(state, sf::backend::eager); }
void Collatz_StaticflowStaticValues(benchmark::State& state) {
  collatz_staticflow(state, sf::backend::cpu, collatz_static_body);
}

constexpr std::size_t vec_n = 1024;
constexpr int iterations = 100;
using fixed_vec = xt::xtensor_fixed<float, xt::xshape<vec_n>>;

struct update_inputs {
  fixed_vec v0, a, b;
  update_inputs() {
    for (std::size_t i = 0; i < vec_n; ++i) {
      v0[i] = 1.f + 0.001f * float(i);
      a[i] = 0.5f + 0.0001f * float(i % 7);
      b[i] = 0.25f;
    }
  }
};

void Update_HandXsimd(benchmark::State& state) {
  update_inputs in;
  fixed_vec v;
  using B = xsimd::batch<float>;
  for (auto _ : state) {
    v = in.v0;
    for (int it = 0; it < iterations; ++it)
      for (std::size_t j = 0; j < vec_n; j += B::size) {
        const B r = xsimd::fma(B::load_unaligned(v.data() + j), B::load_unaligned(in.a.data() + j),
                               B::load_unaligned(in.b.data() + j));
        r.store_unaligned(v.data() + j);
      }
    benchmark::DoNotOptimize(v.data());
  }
}

void Update_Eigen(benchmark::State& state) {
  update_inputs in;
  Eigen::Map<const Eigen::ArrayXf> a(in.a.data(), vec_n), b(in.b.data(), vec_n);
  Eigen::ArrayXf v(vec_n);
  for (auto _ : state) {
    v = Eigen::Map<const Eigen::ArrayXf>(in.v0.data(), vec_n);
    for (int it = 0; it < iterations; ++it) v = v * a + b;
    benchmark::DoNotOptimize(v.data());
  }
}

void Update_Xtensor(benchmark::State& state) {
  update_inputs in;
  fixed_vec v;
  for (auto _ : state) {
    v = in.v0;
    for (int it = 0; it < iterations; ++it) v = v * in.a + in.b;
    benchmark::DoNotOptimize(v.data());
  }
}

template <class Backend>
void update_staticflow(benchmark::State& state, Backend backend) {
  update_inputs in;
  auto f = sf::function(
      [](auto v, auto a, auto b) {
        return sf::fori_loop(0, iterations, [&](auto, auto v) { return v * a + b; }, v);
      },
      backend);
  fixed_vec v;
  for (auto _ : state) {
    f.call_into(v, in.v0, in.a, in.b);
    benchmark::DoNotOptimize(v.data());
  }
}
void Update_Staticflow(benchmark::State& state) { update_staticflow(state, sf::backend::cpu); }
void Update_Eager(benchmark::State& state) { update_staticflow(state, sf::backend::eager); }
}  // namespace

BENCHMARK(Collatz_Hand)->Unit(benchmark::kMillisecond)->Apply(sf_bench::add_min);
BENCHMARK(Collatz_Staticflow)->Unit(benchmark::kMillisecond)->Apply(sf_bench::add_min);
BENCHMARK(Collatz_StaticflowStaticValues)->Unit(benchmark::kMillisecond)->Apply(sf_bench::add_min);
BENCHMARK(Collatz_Eager)->Unit(benchmark::kMillisecond)->Apply(sf_bench::add_min);
BENCHMARK(Update_HandXsimd)->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(Update_Eigen)->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(Update_Xtensor)->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(Update_Staticflow)->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(Update_Eager)->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
