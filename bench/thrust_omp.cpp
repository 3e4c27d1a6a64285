// bench_thrust_omp -- the Thrust backend on the OpenMP device system against the xsimd CPU
// backend, on this machine: the same traced graphs, the same threads.
//
//   chain: out = (a*b + c*d - a/(b+1)) * 0.5    (bench_fused_chain's chain: 4 reads, 1 write)
//   tanh:  out = tanh(x*x + y)                   (the example: 2 reads, 1 write)
//   sum:   reduce_sum(a*b)                       (2 reads)
//
// Methods (16M float32 elements, outputs preallocated, call_into):
//   Xsimd<threads>        sf::backend::cpu with sf::set_num_threads(threads)
//   ThrustOmp<threads>    sf::backend::thrust, THRUST_DEVICE_SYSTEM_OMP, omp_set_num_threads(threads)
//   Memcpy                std::copy of one array: the streaming roofline (2 arrays of traffic)
// Bytes processed count the arrays read and written once each.
#include <benchmark/benchmark.h>

#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <random>
#include <vector>

#include <staticflow/staticflow.hpp>
#include <staticflow/backend/thrust/thrust.hpp>

#include "bench_common.hpp"

namespace sf = staticflow;

namespace {
constexpr std::size_t kN = std::size_t{1} << 24;
using tensor = xt::xtensor<float, 1>;

struct data_set {
  tensor a, b, c, d, out;
  sf::device_tensor<float, 1> da, db, dc, dd, dout;
  data_set() : a(fill(1)), b(fill(2)), c(fill(3)), d(fill(4)), out(tensor::from_shape({kN})) {
    da = sf::to_device(a);
    db = sf::to_device(b);
    dc = sf::to_device(c);
    dd = sf::to_device(d);
    dout = sf::to_device(out);
  }
  static tensor fill(unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(0.5f, 2.0f);
    auto t = tensor::from_shape({kN});
    for (auto& v : t) v = dist(rng);
    return t;
  }
};
data_set& data() {
  static data_set d;
  return d;
}

const auto chain = [](auto a, auto b, auto c, auto d) { return (a * b + c * d - a / (b + 1.f)) * 0.5f; };
const auto tanh_chain = [](auto x, auto y) { return sf::tanh(x * x + y); };
const auto sum = [](auto a, auto b) { return sf::reduce_sum(a * b); };

void set_threads(int threads) {
  sf::set_num_threads(static_cast<std::size_t>(threads));
  omp_set_num_threads(threads);
}

void Chain_Xsimd(benchmark::State& state) {
  auto& s = data();
  set_threads(static_cast<int>(state.range(0)));
  auto f = sf::function(chain);
  for (auto _ : state) {
    f.call_into(s.out, s.a, s.b, s.c, s.d);
    benchmark::DoNotOptimize(s.out.data());
  }
  state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(kN) * 5 * 4);
}
void Chain_ThrustOmp(benchmark::State& state) {
  auto& s = data();
  set_threads(static_cast<int>(state.range(0)));
  auto f = sf::function(chain, sf::backend::thrust);
  for (auto _ : state) {
    f.call_into(s.dout, s.da, s.db, s.dc, s.dd);
    benchmark::DoNotOptimize(s.dout.data());
  }
  state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(kN) * 5 * 4);
}
void Tanh_Xsimd(benchmark::State& state) {
  auto& s = data();
  set_threads(static_cast<int>(state.range(0)));
  auto f = sf::function(tanh_chain);
  for (auto _ : state) f.call_into(s.out, s.a, s.b);
  state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(kN) * 3 * 4);
}
void Tanh_ThrustOmp(benchmark::State& state) {
  auto& s = data();
  set_threads(static_cast<int>(state.range(0)));
  auto f = sf::function(tanh_chain, sf::backend::thrust);
  for (auto _ : state) f.call_into(s.dout, s.da, s.db);
  state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(kN) * 3 * 4);
}
void Sum_Xsimd(benchmark::State& state) {
  auto& s = data();
  set_threads(static_cast<int>(state.range(0)));
  auto f = sf::function(sum);
  for (auto _ : state) benchmark::DoNotOptimize(f(s.a, s.b));
  state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(kN) * 2 * 4);
}
void Sum_ThrustOmp(benchmark::State& state) {
  auto& s = data();
  set_threads(static_cast<int>(state.range(0)));
  auto f = sf::function(sum, sf::backend::thrust);
  for (auto _ : state) benchmark::DoNotOptimize(f(s.da, s.db));
  state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(kN) * 2 * 4);
}
void Memcpy(benchmark::State& state) {
  auto& s = data();
  for (auto _ : state) {
    std::copy(s.a.begin(), s.a.end(), s.out.begin());
    benchmark::DoNotOptimize(s.out.data());
  }
  state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(kN) * 2 * 4);
}
}  // namespace

BENCHMARK(Chain_Xsimd)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->Apply(sf_bench::add_min);
BENCHMARK(Chain_ThrustOmp)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->Apply(sf_bench::add_min);
BENCHMARK(Tanh_Xsimd)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->Apply(sf_bench::add_min);
BENCHMARK(Tanh_ThrustOmp)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->Apply(sf_bench::add_min);
BENCHMARK(Sum_Xsimd)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->Apply(sf_bench::add_min);
BENCHMARK(Sum_ThrustOmp)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->Apply(sf_bench::add_min);
BENCHMARK(Memcpy)->Unit(benchmark::kMillisecond)->Apply(sf_bench::add_min);
