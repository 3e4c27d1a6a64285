// bench_small_call -- benchmark (b): the per-call cost of a tiny fully static call.
//
//   f(x, y) = x*x + y   on xt::xtensor_fixed<float, xt::xshape<4>> (4 floats)
//
// With 4 elements the arithmetic is one SSE multiply-add, so what is measured is everything
// around it: the signature lookup, argument views, shape checks, the alias check and the loop.
//
// Methods:
//   StaticflowCallInto      g.call_into(o, x, y)   (polymorphic function: thread-local lookup)
//   StaticflowReturn        o = g(x, y)            (result returned by value, an xtensor_fixed)
//   ConcreteCallInto        cf.call_into(o, x, y)  (concrete function: no lookup)
//   ConcreteReturn          o = cf(x, y)
//   HandLoop                a plain 4-iteration loop over the containers' data
//   HandXsimd4              one 4-wide xsimd batch (xsimd::batch<float, xsimd::sse4_2>)
//   HandReturn              the plain loop writing a local xtensor_fixed returned by value,
//                           o = hand_return(x, y): the baseline for the by-value methods
//   XtensorFixed            xt::noalias(o) = x * x + y  (xtensor's own fixed-size expression)
//
// Every iteration starts with benchmark::DoNotOptimize(x) and (y): the compiler must assume the
// inputs changed (it cannot fold or hoist the computation), and ends with DoNotOptimize(o) and
// ClobberMemory so the result is written each time. All methods pay exactly the same barriers.
#include <benchmark/benchmark.h>

#include <xsimd/xsimd.hpp>
#include <xtensor/xfixed.hpp>
#include <xtensor/xnoalias.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include <staticflow/staticflow.hpp>

#include "bench_common.hpp"

namespace sf = staticflow;

namespace {

using fixed4 = xt::xtensor_fixed<float, xt::xshape<4>>;

struct inputs {
  fixed4 x{1.5f, -2.0f, 0.25f, 3.0f};
  fixed4 y{0.5f, 1.0f, -1.0f, 2.0f};
  fixed4 o{0.f, 0.f, 0.f, 0.f};
};

auto body = [](auto x, auto y) { return x * x + y; };

void check(benchmark::State& state, const inputs& in) {
  for (std::size_t i = 0; i < 4; ++i) {
    const float want = in.x[i] * in.x[i] + in.y[i];
    if (std::fabs(in.o[i] - want) > 1e-6f) {
      char msg[96];
      std::snprintf(msg, sizeof msg, "mismatch at %zu: got %g, want %g", i, in.o[i], want);
      state.SkipWithError(msg);
      return;
    }
  }
}

// The barriers every method pays around its call.
#define SF_BENCH_LOOP(in, ...)              \
  for (auto _ : state) {                    \
    benchmark::DoNotOptimize(in.x);         \
    benchmark::DoNotOptimize(in.y);         \
    __VA_ARGS__;                            \
    benchmark::DoNotOptimize(in.o);         \
    benchmark::ClobberMemory();             \
  }                                         \
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));

void StaticflowCallInto(benchmark::State& state) {
  inputs in;
  auto g = sf::function(body);
  g.call_into(in.o, in.x, in.y);  // trace outside the timed loop
  SF_BENCH_LOOP(in, g.call_into(in.o, in.x, in.y))
  check(state, in);
}

void StaticflowReturn(benchmark::State& state) {
  inputs in;
  auto g = sf::function(body);
  in.o = g(in.x, in.y);
  SF_BENCH_LOOP(in, in.o = g(in.x, in.y))
  check(state, in);
}

void ConcreteCallInto(benchmark::State& state) {
  inputs in;
  auto g = sf::function(body);
  auto& cf = g.get_concrete_function(in.x, in.y);
  SF_BENCH_LOOP(in, cf.call_into(in.o, in.x, in.y))
  check(state, in);
}

void ConcreteReturn(benchmark::State& state) {
  inputs in;
  auto g = sf::function(body);
  auto& cf = g.get_concrete_function(in.x, in.y);
  SF_BENCH_LOOP(in, in.o = cf(in.x, in.y))
  check(state, in);
}

inline void hand_loop(const float* x, const float* y, float* o) {
  for (int i = 0; i < 4; ++i) o[i] = x[i] * x[i] + y[i];
}

void HandLoop(benchmark::State& state) {
  inputs in;
  SF_BENCH_LOOP(in, hand_loop(in.x.data(), in.y.data(), in.o.data()))
  check(state, in);
}

inline void hand_xsimd4(const float* x, const float* y, float* o) {
  using B = xsimd::batch<float, xsimd::sse4_2>;
  static_assert(B::size == 4);
  const B bx = B::load_unaligned(x), by = B::load_unaligned(y);
  (bx * bx + by).store_unaligned(o);
}

void HandXsimd4(benchmark::State& state) {
  inputs in;
  SF_BENCH_LOOP(in, hand_xsimd4(in.x.data(), in.y.data(), in.o.data()))
  check(state, in);
}

inline fixed4 hand_return(const fixed4& x, const fixed4& y) {
  fixed4 r;  // default-initialized: the loop writes every element
  for (std::size_t i = 0; i < 4; ++i) r[i] = x[i] * x[i] + y[i];
  return r;
}

void HandReturn(benchmark::State& state) {
  inputs in;
  SF_BENCH_LOOP(in, in.o = hand_return(in.x, in.y))
  check(state, in);
}

void XtensorFixed(benchmark::State& state) {
  inputs in;
  SF_BENCH_LOOP(in, xt::noalias(in.o) = in.x * in.x + in.y)
  check(state, in);
}

}  // namespace

BENCHMARK(HandLoop)->Apply(sf_bench::add_min);
BENCHMARK(HandXsimd4)->Apply(sf_bench::add_min);
BENCHMARK(HandReturn)->Apply(sf_bench::add_min);
BENCHMARK(StaticflowCallInto)->Apply(sf_bench::add_min);
BENCHMARK(StaticflowReturn)->Apply(sf_bench::add_min);
BENCHMARK(ConcreteCallInto)->Apply(sf_bench::add_min);
BENCHMARK(ConcreteReturn)->Apply(sf_bench::add_min);
BENCHMARK(XtensorFixed)->Apply(sf_bench::add_min);
