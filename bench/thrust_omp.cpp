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
//
//   LoopUpdate / LoopCount: effects in loop bodies, one thread (see below), against a hand loop.
//   TopK: top_k(x, 5)'s positions of 1024 lines of 1000 float32, one thread: the CPU backend's
//         partial sort per line against the Thrust backend's selection per line
//         (backend/thrust/sorting.hpp; before session 64 every line was sorted whole).
#include <benchmark/benchmark.h>

#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
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

// --- effects in loop bodies (issue 21): one call runs a loop whose body updates a variable ---
// Update: w -= 0.01 * (w - t) on 2^20 floats, 20 times in a fori_loop (a memory-bound effect per
// iteration); Count: v += k, 1000 times in a while_loop (the per-iteration cost of an effect).
constexpr std::size_t kUpdateN = std::size_t{1} << 20;
constexpr int kUpdateSteps = 20, kCountSteps = 1000;

template <class Backend, class In>
void run_update(benchmark::State& state, Backend backend, const In& t) {
  set_threads(1);
  sf::variable<float, sf::dyn> w{tensor(xt::ones<float>({kUpdateN}))};
  auto f = sf::function(
      [&](auto target, auto n) {
        return sf::fori_loop(0, n, [&](auto, auto k) { w.assign_sub(0.01f * (w - target)); return k + 1; }, 0);
      },
      backend);
  for (auto _ : state) benchmark::DoNotOptimize(f(t, kUpdateSteps));
  state.SetBytesProcessed(std::int64_t(state.iterations()) * kUpdateSteps * std::int64_t(kUpdateN) * 3 * 4);
}
void LoopUpdate_Hand(benchmark::State& state) {
  const tensor t = xt::zeros<float>({kUpdateN});
  tensor w = xt::ones<float>({kUpdateN});
  for (auto _ : state) {
    for (int step = 0; step < kUpdateSteps; ++step)
      for (std::size_t j = 0; j < kUpdateN; ++j) w[j] -= 0.01f * (w[j] - t[j]);
    benchmark::DoNotOptimize(w.data());
  }
  state.SetBytesProcessed(std::int64_t(state.iterations()) * kUpdateSteps * std::int64_t(kUpdateN) * 3 * 4);
}
void LoopUpdate_Xsimd(benchmark::State& state) {
  const tensor t = xt::zeros<float>({kUpdateN});
  run_update(state, sf::backend::cpu, t);
}
void LoopUpdate_ThrustOmp(benchmark::State& state) {
  const auto t = sf::to_device(tensor(xt::zeros<float>({kUpdateN})));
  run_update(state, sf::backend::thrust, t);
}

template <class Backend>
void run_count(benchmark::State& state, Backend backend) {
  set_threads(1);
  sf::variable<std::int64_t> v{0};
  auto f = sf::function(
      [&](auto n) {
        return sf::while_loop([&](auto k) { return k < n; }, [&](auto k) { v.assign_add(k); return k + 1; },
                              std::int64_t{0});
      },
      backend);
  for (auto _ : state) benchmark::DoNotOptimize(f(std::int64_t{kCountSteps}));
  state.SetItemsProcessed(std::int64_t(state.iterations()) * kCountSteps);
}
void LoopCount_Hand(benchmark::State& state) {
  std::int64_t v = 0;
  for (auto _ : state) {
    std::int64_t* p = &v;
    benchmark::DoNotOptimize(p);
    for (std::int64_t k = 0; k < kCountSteps; ++k) {
      *p += k;
      benchmark::ClobberMemory();
    }
  }
  state.SetItemsProcessed(std::int64_t(state.iterations()) * kCountSteps);
}
void LoopCount_Xsimd(benchmark::State& state) { run_count(state, sf::backend::cpu); }
void LoopCount_ThrustOmp(benchmark::State& state) { run_count(state, sf::backend::thrust); }
const xt::xtensor<float, 2>& top_k_input() {
  static const xt::xtensor<float, 2> x = [] {
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> dist(-1.f, 1.f);
    auto t = xt::xtensor<float, 2>::from_shape({1024, 1000});
    for (auto& v : t) v = dist(rng);
    return t;
  }();
  return x;
}
const auto top_k_positions = [](auto x) { return std::get<1>(sf::top_k(x, 5)); };
void TopK_Xsimd(benchmark::State& state) {
  set_threads(1);
  auto f = sf::function(top_k_positions);
  xt::xtensor<std::int32_t, 2> out = xt::xtensor<std::int32_t, 2>::from_shape({1024, 5});
  for (auto _ : state) {
    f.call_into(out, top_k_input());
    benchmark::DoNotOptimize(out.data());
  }
}
void TopK_ThrustOmp(benchmark::State& state) {
  set_threads(1);
  auto f = sf::function(top_k_positions, sf::backend::thrust);
  const auto x = sf::to_device(top_k_input());
  auto expected = sf::function(top_k_positions)(top_k_input());
  for (auto _ : state) benchmark::DoNotOptimize(f(x));
  if (!(f(x).to_host() == expected)) state.SkipWithError("top_k's positions differ from the CPU backend's");
}
}  // namespace

BENCHMARK(Chain_Xsimd)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->Apply(sf_bench::add_min);
BENCHMARK(Chain_ThrustOmp)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->Apply(sf_bench::add_min);
BENCHMARK(Tanh_Xsimd)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->Apply(sf_bench::add_min);
BENCHMARK(Tanh_ThrustOmp)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->Apply(sf_bench::add_min);
BENCHMARK(Sum_Xsimd)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->Apply(sf_bench::add_min);
BENCHMARK(Sum_ThrustOmp)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->Apply(sf_bench::add_min);
BENCHMARK(Memcpy)->Unit(benchmark::kMillisecond)->Apply(sf_bench::add_min);
BENCHMARK(LoopUpdate_Hand)->Unit(benchmark::kMillisecond)->Apply(sf_bench::add_min);
BENCHMARK(LoopUpdate_Xsimd)->Unit(benchmark::kMillisecond)->Apply(sf_bench::add_min);
BENCHMARK(LoopUpdate_ThrustOmp)->Unit(benchmark::kMillisecond)->Apply(sf_bench::add_min);
BENCHMARK(LoopCount_Hand)->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(LoopCount_Xsimd)->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(LoopCount_ThrustOmp)->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(TopK_Xsimd)->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(TopK_ThrustOmp)->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
