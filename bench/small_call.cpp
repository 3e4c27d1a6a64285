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
//   *Opaque                 the same call on x, y, o in three separate heap blocks whose
//                           addresses are hidden from the compiler each iteration: it can no
//                           longer prove at compile time that o does not overlap x or y, so
//                           staticflow's run-time alias check is really executed (with the
//                           inputs on the stack, as above, it folds away)
//
// Each timed iteration makes kCalls = 8 independent calls, on 8 different (x, y, o) triples,
// unrolled; before each call benchmark::DoNotOptimize(x) and (y) make the compiler assume the
// inputs changed (it can neither fold nor hoist the computation), after it DoNotOptimize(o)
// keeps the result, and ClobberMemory ends the iteration. All methods pay exactly the same
// barriers. The counter time_per_call is CPU time / (iterations * 8), printed with an SI prefix
// (n = nanoseconds). Why 8 calls and not 1: with one call per iteration the loop is ~5
// instructions, and identical machine code ran 0.45 ns or 0.95 ns per iteration depending on
// whether the loop crossed a 64-byte boundary (measured here: HandLoop vs HandXsimd4, same
// instructions). Eight calls per iteration make that artifact small next to the call.
#include <benchmark/benchmark.h>

#include <xsimd/xsimd.hpp>
#include <xtensor/xfixed.hpp>
#include <xtensor/xnoalias.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include <staticflow/staticflow.hpp>

#include "bench_common.hpp"

namespace sf = staticflow;

namespace {

using fixed4 = xt::xtensor_fixed<float, xt::xshape<4>>;

constexpr std::size_t kCalls = 8;

struct inputs {
  std::array<fixed4, kCalls> x, y, o;
  inputs() {
    for (std::size_t k = 0; k < kCalls; ++k) {
      const float s = 1.f + 0.125f * static_cast<float>(k);
      x[k] = {1.5f * s, -2.0f * s, 0.25f * s, 3.0f * s};
      y[k] = {0.5f * s, 1.0f * s, -1.0f * s, 2.0f * s};
      o[k] = {0.f, 0.f, 0.f, 0.f};
    }
  }
};

auto body = [](auto x, auto y) { return x * x + y; };

void check(benchmark::State& state, const inputs& in) {
  for (std::size_t k = 0; k < kCalls; ++k) {
    for (std::size_t i = 0; i < 4; ++i) {
      const float want = in.x[k][i] * in.x[k][i] + in.y[k][i];
      if (std::fabs(in.o[k][i] - want) > 1e-5f * std::fabs(want)) {
        char msg[96];
        std::snprintf(msg, sizeof msg, "mismatch at call %zu, element %zu: got %g, want %g", k, i, in.o[k][i], want);
        state.SkipWithError(msg);
        return;
      }
    }
  }
}

void set_counters(benchmark::State& state) {
  const double calls = static_cast<double>(state.iterations()) * kCalls;
  state.SetItemsProcessed(static_cast<int64_t>(calls));
  state.counters["time_per_call"] = benchmark::Counter(calls, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// The timed loop: kCalls calls per iteration, each fenced by the same barriers. In CALL,
// x, y and o name the k-th triple.
#define SF_BENCH_LOOP(in, ...)                                  \
  for (auto _ : state) {                                        \
    _Pragma("GCC unroll 8") for (std::size_t k = 0; k < kCalls; ++k) { \
      auto& x = in.x[k];                                        \
      auto& y = in.y[k];                                        \
      auto& o = in.o[k];                                        \
      benchmark::DoNotOptimize(x);                              \
      benchmark::DoNotOptimize(y);                              \
      __VA_ARGS__;                                              \
      benchmark::DoNotOptimize(o);                              \
    }                                                           \
    benchmark::ClobberMemory();                                 \
  }                                                             \
  set_counters(state);

void StaticflowCallInto(benchmark::State& state) {
  inputs in;
  auto g = sf::function(body);
  g.call_into(in.o[0], in.x[0], in.y[0]);  // trace outside the timed loop
  SF_BENCH_LOOP(in, g.call_into(o, x, y))
  check(state, in);
}

void StaticflowReturn(benchmark::State& state) {
  inputs in;
  auto g = sf::function(body);
  in.o[0] = g(in.x[0], in.y[0]);  // trace outside the timed loop
  SF_BENCH_LOOP(in, o = g(x, y))
  check(state, in);
}

void ConcreteCallInto(benchmark::State& state) {
  inputs in;
  auto g = sf::function(body);
  auto& cf = g.get_concrete_function(in.x[0], in.y[0]);
  SF_BENCH_LOOP(in, cf.call_into(o, x, y))
  check(state, in);
}

void ConcreteReturn(benchmark::State& state) {
  inputs in;
  auto g = sf::function(body);
  auto& cf = g.get_concrete_function(in.x[0], in.y[0]);
  SF_BENCH_LOOP(in, o = cf(x, y))
  check(state, in);
}

inline void hand_loop(const float* x, const float* y, float* o) {
  for (int i = 0; i < 4; ++i) o[i] = x[i] * x[i] + y[i];
}

void HandLoop(benchmark::State& state) {
  inputs in;
  SF_BENCH_LOOP(in, hand_loop(x.data(), y.data(), o.data()))
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
  SF_BENCH_LOOP(in, hand_xsimd4(x.data(), y.data(), o.data()))
  check(state, in);
}

inline fixed4 hand_return(const fixed4& x, const fixed4& y) {
  fixed4 r;  // default-initialized: the loop writes every element
  for (std::size_t i = 0; i < 4; ++i) r[i] = x[i] * x[i] + y[i];
  return r;
}

void HandReturn(benchmark::State& state) {
  inputs in;
  SF_BENCH_LOOP(in, o = hand_return(x, y))
  check(state, in);
}

// The opaque variant of the loop: x, y, o live in separate heap blocks and the pointers are
// laundered through DoNotOptimize every iteration.
#define SF_BENCH_LOOP_OPAQUE(in, ...)                           \
  for (auto _ : state) {                                        \
    fixed4* px = in.x.data();                                   \
    fixed4* py = in.y.data();                                   \
    fixed4* po = in.o.data();                                   \
    benchmark::DoNotOptimize(px);                               \
    benchmark::DoNotOptimize(py);                               \
    benchmark::DoNotOptimize(po);                               \
    _Pragma("GCC unroll 8") for (std::size_t k = 0; k < kCalls; ++k) { \
      auto& x = px[k];                                          \
      auto& y = py[k];                                          \
      auto& o = po[k];                                          \
      benchmark::DoNotOptimize(x);                              \
      benchmark::DoNotOptimize(y);                              \
      __VA_ARGS__;                                              \
      benchmark::DoNotOptimize(o);                              \
    }                                                           \
    benchmark::ClobberMemory();                                 \
  }                                                             \
  set_counters(state);

void ConcreteCallIntoOpaque(benchmark::State& state) {
  auto in = std::make_unique<inputs>();
  auto g = sf::function(body);
  auto& cf = g.get_concrete_function(in->x[0], in->y[0]);
  SF_BENCH_LOOP_OPAQUE((*in), cf.call_into(o, x, y))
  check(state, *in);
}

void StaticflowCallIntoOpaque(benchmark::State& state) {
  auto in = std::make_unique<inputs>();
  auto g = sf::function(body);
  g.call_into(in->o[0], in->x[0], in->y[0]);
  SF_BENCH_LOOP_OPAQUE((*in), g.call_into(o, x, y))
  check(state, *in);
}

void HandLoopOpaque(benchmark::State& state) {
  auto in = std::make_unique<inputs>();
  SF_BENCH_LOOP_OPAQUE((*in), hand_loop(x.data(), y.data(), o.data()))
  check(state, *in);
}

void HandXsimd4Opaque(benchmark::State& state) {
  auto in = std::make_unique<inputs>();
  SF_BENCH_LOOP_OPAQUE((*in), hand_xsimd4(x.data(), y.data(), o.data()))
  check(state, *in);
}

void XtensorFixed(benchmark::State& state) {
  inputs in;
  SF_BENCH_LOOP(in, xt::noalias(o) = x * x + y)
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
BENCHMARK(HandLoopOpaque)->Apply(sf_bench::add_min);
BENCHMARK(HandXsimd4Opaque)->Apply(sf_bench::add_min);
BENCHMARK(StaticflowCallIntoOpaque)->Apply(sf_bench::add_min);
BENCHMARK(ConcreteCallIntoOpaque)->Apply(sf_bench::add_min);
