// bench_dispatch -- the call overhead of the signature kinds of issue 4, on 4 floats.
//
//   f(x, y) = x * x + y
//
// The arithmetic is one SSE multiply-add; what is measured is everything around it.
//
//   (a) static signature      xt::xtensor_fixed<float, xshape<4>> arguments: the direct path
//       StaticCallInto          sf::function(body).call_into(o, x, y)
//       SignatureStaticCallInto sf::function<spec<float, 4>, spec<float, 4>>(body): the same path
//       StaticOpaqueCallInto    the static call on containers reached through pointers the
//                               compiler must reload every iteration: it cannot hoist the
//                               output/argument overlap test out of the loop, as it does above
//                               (and cannot for (b), whose data pointers live in the containers)
//   (b) run-time dims         xt::xtensor<float, 1> of 4: one kernel for every length
//       RuntimeDimsCallInto     sf::function(body)
//       SignatureDynCallInto    sf::function<spec<float, dyn>, spec<float, dyn>>(body)
//       SpecializedCallInto     sf::function<sf::specialize<sf::shape<4>>>(body): the run-time
//                               shape (4,) is dispatched to the static variant
//       HandRuntimeCallInto     a hand-written function on run-time sizes (shape checks, loop):
//                               the floor for (b)
//   (c) the dispatch map      xt::xarray<float> arguments and output (run-time rank; ranks 0..4
//                             compiled, 25 variants for the two arguments)
//       XarrayCallInto          call_into an xt::xarray of shape (4,)
//       TensorCallInto          sf::tensor arguments and output (run-time dtype and rank; float
//                               and double x ranks 0..4, 100 variants)
//   and the same by value (the result is allocated, except for the static signature):
//       StaticReturn, RuntimeDimsReturn, XarrayReturn
//
// Every iteration starts with benchmark::DoNotOptimize on the inputs and ends with DoNotOptimize
// on the output and ClobberMemory; the first call (the trace) happens before the timed loop.
#include <benchmark/benchmark.h>

#include <xtensor/xarray.hpp>
#include <xtensor/xfixed.hpp>
#include <xtensor/xtensor.hpp>

#include <cmath>
#include <cstdio>
#include <stdexcept>

#include <staticflow/staticflow.hpp>

#include "bench_common.hpp"

namespace sf = staticflow;

namespace {

auto body = [](auto x, auto y) { return x * x + y; };

constexpr float xs[4] = {1.5f, -2.0f, 0.25f, 3.0f};
constexpr float ys[4] = {0.5f, 1.0f, -1.0f, 2.0f};

template <class C>
void fill(C& x, C& y) {
  for (std::size_t i = 0; i < 4; ++i) x.data()[i] = xs[i], y.data()[i] = ys[i];
}

void check(benchmark::State& state, const float* o) {
  for (std::size_t i = 0; i < 4; ++i) {
    const float want = xs[i] * xs[i] + ys[i];
    if (std::fabs(o[i] - want) > 1e-6f) {
      char msg[96];
      std::snprintf(msg, sizeof msg, "mismatch at %zu: got %g, want %g", i, o[i], want);
      state.SkipWithError(msg);
      return;
    }
  }
}

#define SF_BENCH_LOOP(x, y, o, ...)   \
  for (auto _ : state) {              \
    benchmark::DoNotOptimize(x);      \
    benchmark::DoNotOptimize(y);      \
    __VA_ARGS__;                      \
    benchmark::DoNotOptimize(o);      \
    benchmark::ClobberMemory();       \
  }                                   \
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));

using fixed4 = xt::xtensor_fixed<float, xt::xshape<4>>;
using vec = xt::xtensor<float, 1>;
using arr = xt::xarray<float>;

template <class F, class C>
void run_call_into(benchmark::State& state, F& f, C x, C y, C o) {
  fill(x, y);
  f.call_into(o, x, y);  // traces outside the timed loop
  SF_BENCH_LOOP(x, y, o, f.call_into(o, x, y))
  check(state, o.data());
}

template <class F, class C>
void run_return(benchmark::State& state, F& f, C x, C y) {
  fill(x, y);
  C o = f(x, y);
  SF_BENCH_LOOP(x, y, o, o = f(x, y))
  check(state, o.data());
}

void StaticCallInto(benchmark::State& state) {
  auto f = sf::function(body);
  run_call_into(state, f, fixed4{}, fixed4{}, fixed4{});
}

void SignatureStaticCallInto(benchmark::State& state) {
  auto f = sf::function<sf::spec<float, 4>, sf::spec<float, 4>>(body);
  run_call_into(state, f, fixed4{}, fixed4{}, fixed4{});
}

void StaticOpaqueCallInto(benchmark::State& state) {
  auto f = sf::function(body);
  fixed4 x{}, y{}, o{};
  fill(x, y);
  fixed4* px = &x;
  fixed4* py = &y;
  fixed4* po = &o;
  f.call_into(o, x, y);
  for (auto _ : state) {
    benchmark::DoNotOptimize(px);  // the addresses may have changed: the overlap test runs
    benchmark::DoNotOptimize(py);
    benchmark::DoNotOptimize(po);
    f.call_into(*po, *px, *py);
    benchmark::DoNotOptimize(*po);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
  check(state, o.data());
}

void RuntimeDimsCallInto(benchmark::State& state) {
  auto f = sf::function(body);
  run_call_into(state, f, vec::from_shape({4}), vec::from_shape({4}), vec::from_shape({4}));
}

void SignatureDynCallInto(benchmark::State& state) {
  auto f = sf::function<sf::spec<float, sf::dyn>, sf::spec<float, sf::dyn>>(body);
  run_call_into(state, f, vec::from_shape({4}), vec::from_shape({4}), vec::from_shape({4}));
}

void SpecializedCallInto(benchmark::State& state) {
  auto f = sf::function<sf::specialize<sf::shape<4>>>(body);
  run_call_into(state, f, vec::from_shape({4}), vec::from_shape({4}), vec::from_shape({4}));
}

// A hand-written function over run-time sizes, the fair floor for (b): the two shape checks a
// call must make, then a plain loop over __restrict pointers (which GCC vectorizes, with its own
// run-time dispatch on n). No overlap test: it assumes distinct buffers.
void hand_runtime(const vec& x, const vec& y, vec& o) {
  const std::size_t n = x.shape()[0];
  if (y.shape()[0] != n || o.shape()[0] != n) throw std::invalid_argument("shapes differ");
  const float* __restrict xp = x.data();
  const float* __restrict yp = y.data();
  float* __restrict op = o.data();
  for (std::size_t i = 0; i < n; ++i) op[i] = xp[i] * xp[i] + yp[i];
}
void HandRuntimeCallInto(benchmark::State& state) {
  vec x = vec::from_shape({4}), y = vec::from_shape({4}), o = vec::from_shape({4});
  fill(x, y);
  SF_BENCH_LOOP(x, y, o, hand_runtime(x, y, o))
  check(state, o.data());
}

void XarrayCallInto(benchmark::State& state) {
  auto f = sf::function(body);
  run_call_into(state, f, arr::from_shape({4}), arr::from_shape({4}), arr::from_shape({4}));
}

void TensorCallInto(benchmark::State& state) {
  auto f = sf::function(body);
  sf::tensor x = arr::from_shape({4}), y = arr::from_shape({4}), o = arr::from_shape({4});
  for (std::size_t i = 0; i < 4; ++i) x.data<float>()[i] = xs[i], y.data<float>()[i] = ys[i];
  f.call_into(o, x, y);
  SF_BENCH_LOOP(x, y, o, f.call_into(o, x, y))
  check(state, o.data<float>());
}

void StaticReturn(benchmark::State& state) {
  auto f = sf::function(body);
  run_return(state, f, fixed4{}, fixed4{});
}

void RuntimeDimsReturn(benchmark::State& state) {
  auto f = sf::function(body);
  run_return(state, f, vec::from_shape({4}), vec::from_shape({4}));
}

void XarrayReturn(benchmark::State& state) {
  auto f = sf::function(body);
  run_return(state, f, arr::from_shape({4}), arr::from_shape({4}));
}

}  // namespace

BENCHMARK(StaticCallInto)->Apply(sf_bench::add_min);
BENCHMARK(SignatureStaticCallInto)->Apply(sf_bench::add_min);
BENCHMARK(StaticOpaqueCallInto)->Apply(sf_bench::add_min);
BENCHMARK(RuntimeDimsCallInto)->Apply(sf_bench::add_min);
BENCHMARK(SignatureDynCallInto)->Apply(sf_bench::add_min);
BENCHMARK(SpecializedCallInto)->Apply(sf_bench::add_min);
BENCHMARK(HandRuntimeCallInto)->Apply(sf_bench::add_min);
BENCHMARK(XarrayCallInto)->Apply(sf_bench::add_min);
BENCHMARK(TensorCallInto)->Apply(sf_bench::add_min);
BENCHMARK(StaticReturn)->Apply(sf_bench::add_min);
BENCHMARK(RuntimeDimsReturn)->Apply(sf_bench::add_min);
BENCHMARK(XarrayReturn)->Apply(sf_bench::add_min);
