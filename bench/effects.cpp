// bench/effects.cpp -- issue 6's figures, in one run:
//   * a loop of 1e6 assign_add calls inside one traced function (sf::for_range over a scalar
//     sf::variable, and from an sf::while_loop body) against a hand-written loop that updates the
//     same memory every iteration;
//     the same loop over a 64-float variable against a hand xsimd loop, Eigen and xtensor;
//   * one update of an n-float variable per call (w = 0.9 w + g) against a hand loop: what a call
//     that writes a variable costs beyond its loop (a variable of run-time shape: through its spare
//     buffer; of static shape from a call that returns nothing: in place);
//   * the seeds' many-small-ops case (a chain of 12 elementwise ops on 16 floats): traced and
//     fused, op by op (sf::backend::eager), under sf::run_functions_eagerly (the lambda runs
//     again on every call), against a hand xsimd loop, Eigen and xtensor.
// Quote ratios (docs/benchmarks.md), not absolute times.
#include <benchmark/benchmark.h>

#include <Eigen/Core>
#include <xsimd/xsimd.hpp>
#include <xtensor/xfixed.hpp>
#include <xtensor/xtensor.hpp>

#include <cstdint>
#include <vector>

#include <staticflow/staticflow.hpp>

#include "bench_common.hpp"

namespace sf = staticflow;

namespace {
constexpr std::int64_t iterations = 1'000'000;

// --- scalar assign_add in a loop -------------------------------------------------------------

void AssignAdd_Scalar_Hand(benchmark::State& state) {
  std::int64_t v = 0;
  for (auto _ : state) {
    std::int64_t* p = &v;
    benchmark::DoNotOptimize(p);
    for (std::int64_t i = 0; i < iterations; ++i) {
      *p += i;
      benchmark::ClobberMemory();  // the memory is updated every iteration, as the variable is
    }
  }
  benchmark::DoNotOptimize(v);
}

void AssignAdd_Scalar_Staticflow(benchmark::State& state) {
  sf::variable<std::int64_t> v{0};
  auto f = sf::function([&](auto n) { sf::for_range(n, [&](auto i) { v.assign_add(i); }); });
  f(iterations);
  for (auto _ : state) f(iterations);
  benchmark::DoNotOptimize(v.value());
}

// The same updates from the body of an sf::while_loop that carries the counter (effects in a loop
// body: the loop runs as an effect, the body's effect once per iteration).
void AssignAdd_Scalar_WhileLoop(benchmark::State& state) {
  sf::variable<std::int64_t> v{0};
  auto f = sf::function([&](auto n) {
    return sf::while_loop([&](auto k) { return k < n; }, [&](auto k) { v.assign_add(k); return k + 1; }, std::int64_t{0});
  });
  f(iterations);
  for (auto _ : state) benchmark::DoNotOptimize(f(iterations));
  benchmark::DoNotOptimize(v.value());
}

void AssignAdd_Scalar_RunEagerly(benchmark::State& state) {
  sf::variable<std::int64_t> v{0};
  auto f = sf::function([&](auto n) { sf::for_range(n, [&](auto i) { v.assign_add(i); }); });
  sf::run_functions_eagerly_scope eager;
  for (auto _ : state) f(iterations);
  benchmark::DoNotOptimize(v.value());
}

// --- vector assign_add in a loop: acc += x * i over 64 floats, 1e5 iterations ------------------
constexpr int vector_size = 64;
constexpr std::int32_t vector_iterations = 100'000;

void AssignAdd_Vector_HandXsimd(benchmark::State& state) {
  alignas(64) float acc[vector_size] = {};
  alignas(64) float x[vector_size];
  for (int j = 0; j < vector_size; ++j) x[j] = 1e-6f * j;
  using batch = xsimd::batch<float>;
  for (auto _ : state) {
    for (std::int32_t i = 0; i < vector_iterations; ++i) {
      const batch s(static_cast<float>(i));
      for (int j = 0; j < vector_size; j += batch::size)
        (batch::load_aligned(acc + j) + batch::load_aligned(x + j) * s).store_aligned(acc + j);
      benchmark::ClobberMemory();
    }
  }
  benchmark::DoNotOptimize(acc);
}

void AssignAdd_Vector_Eigen(benchmark::State& state) {
  Eigen::Array<float, vector_size, 1> acc = Eigen::Array<float, vector_size, 1>::Zero(), x;
  for (int j = 0; j < vector_size; ++j) x[j] = 1e-6f * j;
  for (auto _ : state) {
    for (std::int32_t i = 0; i < vector_iterations; ++i) {
      acc += x * static_cast<float>(i);
      benchmark::ClobberMemory();
    }
  }
  benchmark::DoNotOptimize(acc.data());
}

void AssignAdd_Vector_Xtensor(benchmark::State& state) {
  xt::xtensor_fixed<float, xt::xshape<vector_size>> acc{}, x;
  acc.fill(0.f);
  for (int j = 0; j < vector_size; ++j) x[j] = 1e-6f * j;
  for (auto _ : state) {
    for (std::int32_t i = 0; i < vector_iterations; ++i) {
      acc += x * static_cast<float>(i);
      benchmark::ClobberMemory();
    }
  }
  benchmark::DoNotOptimize(acc.data());
}

void AssignAdd_Vector_Staticflow(benchmark::State& state) {
  sf::variable<float, vector_size> acc{};
  xt::xtensor_fixed<float, xt::xshape<vector_size>> x;
  for (int j = 0; j < vector_size; ++j) x[j] = 1e-6f * j;
  auto f = sf::function([&](auto xs, auto n) {
    sf::for_range(n, [&](auto i) { acc.assign_add(xs * sf::cast<float>(i)); });
  });
  f(x, vector_iterations);
  for (auto _ : state) f(x, vector_iterations);
  benchmark::DoNotOptimize(acc.value().data());
}

// --- one update per call: w = 0.9 w + g over n floats (an optimizer step's shape) --------------
// What a call that writes a variable costs beyond the loop: until session 44 every call copied the
// variable first (its rollback backup); now its first write goes to a spare buffer swapped in.
void AssignPerCall_Hand(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  std::vector<float> w(n, 1.f), g(n);
  for (std::size_t j = 0; j < n; ++j) g[j] = 1e-6f * static_cast<float>(j);
  for (auto _ : state) {
    float* __restrict wp = w.data();
    const float* __restrict gp = g.data();
    for (std::size_t j = 0; j < n; ++j) wp[j] = 0.9f * wp[j] + gp[j];
    benchmark::ClobberMemory();
  }
  benchmark::DoNotOptimize(w.data());
}

/// One call per iteration updating w (n floats) as w = 0.9 w + g.
template <class Variable>
void time_assign_per_call(benchmark::State& state, Variable& w, std::size_t n) {
  xt::xtensor<float, 1> g = xt::xtensor<float, 1>::from_shape({n});
  for (std::size_t j = 0; j < n; ++j) g[j] = 1e-6f * static_cast<float>(j);
  auto step = sf::function([&](auto grad) { w.assign(0.9f * w + grad); });
  step(g);
  for (auto _ : state) {
    step(g);
    benchmark::ClobberMemory();
  }
  benchmark::DoNotOptimize(w.value().data());
}

void AssignPerCall_Staticflow(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  sf::variable<float, sf::dyn> w{xt::xtensor<float, 1>(xt::ones<float>({n}))};
  time_assign_per_call(state, w, n);
}

// The same update of a variable of static shape, from a call that returns nothing: nothing after
// the write can throw, so it goes in place (effect_program::find_in_place_writes), no spare buffer.
template <std::size_t N>
void AssignPerCall_StaticShape(benchmark::State& state) {
  sf::variable<float, N> w{xt::xtensor<float, 1>(xt::ones<float>({N}))};
  time_assign_per_call(state, w, N);
}

// --- many small ops: 12 elementwise ops on 16 floats -------------------------------------------
constexpr int small = 16;
auto small_chain = [](auto x) {
  auto a = x * 2.f + 1.f;
  auto b = a * x - 3.f;
  auto c = b / 2.f + x;
  auto d = c * c - a;
  auto e = sf::maximum(d, 0.f) + b;
  return e * 0.5f - c;
};
using small_tensor = xt::xtensor_fixed<float, xt::xshape<small>>;

small_tensor small_input() {
  small_tensor x;
  for (int j = 0; j < small; ++j) x[j] = 0.1f * j - 0.7f;
  return x;
}

void SmallOps_HandXsimd(benchmark::State& state) {
  alignas(64) float x[small], out[small];
  const auto in = small_input();
  for (int j = 0; j < small; ++j) x[j] = in[j];
  using batch = xsimd::batch<float>;
  for (auto _ : state) {
    benchmark::DoNotOptimize(x);
    for (int j = 0; j < small; j += batch::size) {
      const batch v = batch::load_aligned(x + j);
      const batch a = v * 2.f + 1.f, b = a * v - 3.f, c = b / 2.f + v, d = c * c - a;
      const batch e = xsimd::max(d, batch(0.f)) + b;
      (e * 0.5f - c).store_aligned(out + j);
    }
    benchmark::DoNotOptimize(out);
  }
}

void SmallOps_Eigen(benchmark::State& state) {
  Eigen::Array<float, small, 1> x, out;
  const auto in = small_input();
  for (int j = 0; j < small; ++j) x[j] = in[j];
  for (auto _ : state) {
    benchmark::DoNotOptimize(x.data());
    const auto a = x * 2.f + 1.f;
    const auto b = a * x - 3.f;
    const auto c = b / 2.f + x;
    const auto d = c * c - a;
    const auto e = d.max(0.f) + b;
    out = e * 0.5f - c;
    benchmark::DoNotOptimize(out.data());
  }
}

void SmallOps_Xtensor(benchmark::State& state) {
  const auto x = small_input();
  small_tensor out;
  for (auto _ : state) {
    benchmark::DoNotOptimize(x.data());
    auto a = x * 2.f + 1.f;
    auto b = a * x - 3.f;
    auto c = b / 2.f + x;
    auto d = c * c - a;
    auto e = xt::maximum(d, 0.f) + b;
    out = e * 0.5f - c;
    benchmark::DoNotOptimize(out.data());
  }
}

void SmallOps_Traced(benchmark::State& state) {
  auto f = sf::function(small_chain);
  const auto x = small_input();
  for (auto _ : state) {
    benchmark::DoNotOptimize(x.data());
    auto r = f(x);
    benchmark::DoNotOptimize(r.data());
  }
}

void SmallOps_EagerBackend(benchmark::State& state) {
  auto f = sf::function(small_chain, sf::backend::eager);
  const auto x = small_input();
  for (auto _ : state) {
    benchmark::DoNotOptimize(x.data());
    auto r = f(x);
    benchmark::DoNotOptimize(r.data());
  }
}

void SmallOps_RunEagerly(benchmark::State& state) {
  auto f = sf::function(small_chain);
  const auto x = small_input();
  sf::run_functions_eagerly_scope eager;
  for (auto _ : state) {
    benchmark::DoNotOptimize(x.data());
    auto r = f(x);
    benchmark::DoNotOptimize(r.data());
  }
}
}  // namespace

BENCHMARK(AssignAdd_Scalar_Hand)->Unit(benchmark::kMillisecond)->Apply(sf_bench::add_min);
BENCHMARK(AssignAdd_Scalar_Staticflow)->Unit(benchmark::kMillisecond)->Apply(sf_bench::add_min);
BENCHMARK(AssignAdd_Scalar_WhileLoop)->Unit(benchmark::kMillisecond)->Apply(sf_bench::add_min);
BENCHMARK(AssignAdd_Scalar_RunEagerly)->Unit(benchmark::kMillisecond)->Apply(sf_bench::add_min);
BENCHMARK(AssignAdd_Vector_HandXsimd)->Unit(benchmark::kMillisecond)->Apply(sf_bench::add_min);
BENCHMARK(AssignAdd_Vector_Eigen)->Unit(benchmark::kMillisecond)->Apply(sf_bench::add_min);
BENCHMARK(AssignAdd_Vector_Xtensor)->Unit(benchmark::kMillisecond)->Apply(sf_bench::add_min);
BENCHMARK(AssignAdd_Vector_Staticflow)->Unit(benchmark::kMillisecond)->Apply(sf_bench::add_min);
BENCHMARK(AssignPerCall_Hand)->Arg(4096)->Arg(1 << 20)->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(AssignPerCall_Staticflow)->Arg(4096)->Arg(1 << 20)->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(AssignPerCall_StaticShape<4096>)->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(AssignPerCall_StaticShape<std::size_t{1} << 20>)->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(SmallOps_HandXsimd)->Apply(sf_bench::add_min);
BENCHMARK(SmallOps_Eigen)->Apply(sf_bench::add_min);
BENCHMARK(SmallOps_Xtensor)->Apply(sf_bench::add_min);
BENCHMARK(SmallOps_Traced)->Apply(sf_bench::add_min);
BENCHMARK(SmallOps_EagerBackend)->Apply(sf_bench::add_min);
BENCHMARK(SmallOps_RunEagerly)->Apply(sf_bench::add_min);
