// bench_reused_values -- a value reused by hand at every level: v = v * v + v, seven levels deep,
// over a float32 array (issue 25). Written out by hand, the traced graph reads x 3^7 times; the
// planner stores each level's product once its fused tree passes the fusion budget
// (plan/repeats.hpp), so the program compiles (it could not before) and runs a loop per stored
// level.
//
//   StaticflowHandChain  sf::function over chain<7>(x) (the levels written by a template), call_into
//   StaticflowLoop       the same with sf::fori_loop(static_value<0>, static_value<7>, ...): its
//                        steps are shared boxes (control/fori_loop.hpp)
//   HandLoop             for each element, the seven levels in registers (GCC vectorizes it)
//   EigenLevels          Eigen::ArrayXf: out = x, then seven passes out = out * out + out (Eigen's
//                        expressions copy their operands too: one expression would be 3^7 nodes)
// Three sizes: 64 (the call's fixed cost), 4096 (L1/L2-resident) and 1M elements. The outputs are
// checked against the hand loop after timing.
#include <benchmark/benchmark.h>

#include <Eigen/Core>
#include <xtensor/xtensor.hpp>

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

namespace {

constexpr int kLevels = 7;

template <int K, class V>
auto chain(const V& v) {
  if constexpr (K == 0) return v;
  else return chain<K - 1>(v * v + v);
}

xt::xtensor<float, 1> input(std::size_t n) {
  xt::xtensor<float, 1> x = xt::xtensor<float, 1>::from_shape({n});
  for (std::size_t i = 0; i < n; ++i) x(i) = -0.9f + 0.8f * float(i % 1000) / 1000.f;  // bounded chain
  return x;
}

float reference(float v) {
  for (int k = 0; k < kLevels; ++k) v = v * v + v;
  return v;
}

void check(const float* out, const xt::xtensor<float, 1>& x, const char* name) {
  for (std::size_t i = 0; i < x.size(); i += 1 + x.size() / 7) {
    const float want = reference(x(i));
    if (std::abs(out[i] - want) > 1e-5f * (1.f + std::abs(want))) {
      std::fprintf(stderr, "%s: element %zu is %g, want %g\n", name, i, double(out[i]), double(want));
      std::abort();
    }
  }
}

// times f.call_into over the chain's input of state.range(0) elements, then checks the output
template <class F>
void time_call_into(benchmark::State& state, F& f, const char* name) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto x = input(n);
  xt::xtensor<float, 1> out = xt::xtensor<float, 1>::from_shape({n});
  for (auto _ : state) {
    f.call_into(out, x);
    benchmark::DoNotOptimize(out.data());
  }
  check(out.data(), x, name);
}

void StaticflowHandChain(benchmark::State& state) {
  auto f = sf::function([](auto v) { return chain<kLevels>(v); });
  time_call_into(state, f, "StaticflowHandChain");
}

void StaticflowLoop(benchmark::State& state) {
  auto f = sf::function([](auto v) {
    return sf::fori_loop(sf::static_value<0>{}, sf::static_value<kLevels>{}, [](auto, auto w) { return w * w + w; }, v);
  });
  time_call_into(state, f, "StaticflowLoop");
}

void HandLoop(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto x = input(n);
  xt::xtensor<float, 1> out = xt::xtensor<float, 1>::from_shape({n});
  for (auto _ : state) {
    const float* __restrict in = x.data();
    float* __restrict o = out.data();
    for (std::size_t i = 0; i < n; ++i) {
      float v = in[i];
      for (int k = 0; k < kLevels; ++k) v = v * v + v;
      o[i] = v;
    }
    benchmark::DoNotOptimize(out.data());
  }
  check(out.data(), x, "HandLoop");
}

void EigenLevels(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto x = input(n);
  const Eigen::ArrayXf ex = Eigen::Map<const Eigen::ArrayXf>(x.data(), Eigen::Index(n));
  Eigen::ArrayXf out(static_cast<Eigen::Index>(n));
  for (auto _ : state) {
    out = ex;
    for (int k = 0; k < kLevels; ++k) out = out * out + out;
    benchmark::DoNotOptimize(out.data());
  }
  check(out.data(), x, "EigenLevels");
}

void sizes(benchmark::internal::Benchmark* b) {
  for (const std::int64_t n : {64, 4096, 1 << 20}) b->Arg(n);
}

}  // namespace

BENCHMARK(HandLoop)->Apply(sizes);
BENCHMARK(StaticflowHandChain)->Apply(sizes);
BENCHMARK(StaticflowLoop)->Apply(sizes);
BENCHMARK(EigenLevels)->Apply(sizes);
