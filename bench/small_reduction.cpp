// bench_small_reduction -- issue 20 item 11: small static calls with a reduction, and the axis
// spelled three ways. reduce_mean over the last axis of a static float32 [2, 3] and [16, 64]:
//
//   Axes         sf::reduce_mean(x, sf::axes<-1>{})   (the axis in the type: result static [2])
//   StaticValue  sf::reduce_mean(x, -1_c)             (a static value: sf::axes<-1>)
//   PlainInt     sf::reduce_mean(x, -1)               (a C++ int, read when the function runs:
//                                                      the result's extents are run-time ones)
//   HandLoop     the row means written out over the container's data
//
// Each iteration makes one call_into a preallocated result, on inputs the compiler must assume
// changed (DoNotOptimize before, ClobberMemory after). Targets (the issue): a small reduction
// within 1.5x the hand loop; a plain int axis within 1.2x the time of sf::axes. Softmax over the
// last axis, the kernel against a hand loop with std::exp and Eigen's arrays, completes the
// picture: a few short rows, long rows, and many short rows ([32, 5], [128, 10]).
#include <benchmark/benchmark.h>

#include <Eigen/Core>
#include <xtensor/xfixed.hpp>
#include <xtensor/xtensor.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>

#include <staticflow/staticflow.hpp>

#include "bench_common.hpp"

namespace sf = staticflow;
using namespace sf::literals;

namespace {
template <std::size_t R, std::size_t C>
struct data {
  xt::xtensor_fixed<float, xt::xshape<R, C>> x;
  xt::xtensor_fixed<float, xt::xshape<R>> out;
  xt::xtensor<float, 1> dyn_out = xt::zeros<float>({R});
  data() {
    for (std::size_t i = 0; i < R * C; ++i) x.data()[i] = static_cast<float>(i % 7) * 0.5f;
  }
  template <class Out>
  void check(benchmark::State& state, const Out& got) const {
    for (std::size_t r = 0; r < R; ++r) {
      float want = 0;
      for (std::size_t c = 0; c < C; ++c) want += x(r, c);
      want /= static_cast<float>(C);
      if (got(r) < want - 1e-4f || got(r) > want + 1e-4f) return state.SkipWithError("wrong result");
    }
  }
};

template <std::size_t R, std::size_t C, class F, class Out>
void run(benchmark::State& state, data<R, C>& d, F& f, Out& out) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(d.x);
    f.call_into(out, d.x);
    benchmark::DoNotOptimize(out);
    benchmark::ClobberMemory();
  }
  d.check(state, out);
}

template <std::size_t R, std::size_t C>
void Axes(benchmark::State& state) {
  data<R, C> d;
  auto f = sf::function([](auto x) { return sf::reduce_mean(x, sf::axes<-1>{}); });
  run(state, d, f, d.out);
}
template <std::size_t R, std::size_t C>
void StaticValue(benchmark::State& state) {
  data<R, C> d;
  auto f = sf::function([](auto x) { return sf::reduce_mean(x, -1_c); });
  run(state, d, f, d.out);
}
template <std::size_t R, std::size_t C>
void PlainInt(benchmark::State& state) {
  data<R, C> d;
  auto f = sf::function([](auto x) { return sf::reduce_mean(x, -1); });
  run(state, d, f, d.dyn_out);
}
template <std::size_t R, std::size_t C>
void HandLoop(benchmark::State& state) {
  data<R, C> d;
  for (auto _ : state) {
    benchmark::DoNotOptimize(d.x);
    for (std::size_t r = 0; r < R; ++r) {
      float s = 0;
      for (std::size_t c = 0; c < C; ++c) s += d.x(r, c);
      d.out(r) = s / static_cast<float>(C);
    }
    benchmark::DoNotOptimize(d.out);
    benchmark::ClobberMemory();
  }
  d.check(state, d.out);
}

// softmax over the last axis (two reductions and an exp per element): the kernel's row, narrowed
// to one 4-lane batch for rows of 3 (backend/cpu/softmax.hpp), against the hand loop with std::exp
template <std::size_t R, std::size_t C>
void Softmax(benchmark::State& state) {
  data<R, C> d;
  xt::xtensor_fixed<float, xt::xshape<R, C>> out;
  auto f = sf::function([](auto x) { return sf::softmax(x); });
  for (auto _ : state) {
    benchmark::DoNotOptimize(d.x);
    f.call_into(out, d.x);
    benchmark::DoNotOptimize(out);
    benchmark::ClobberMemory();
  }
  for (std::size_t r = 0; r < R; ++r) {  // each row sums to 1
    float s = 0;
    for (std::size_t c = 0; c < C; ++c) s += out(r, c);
    if (std::abs(s - 1.f) > 1e-5f) return state.SkipWithError("wrong result");
  }
}
template <std::size_t R, std::size_t C>
void SoftmaxHand(benchmark::State& state) {
  data<R, C> d;
  xt::xtensor_fixed<float, xt::xshape<R, C>> out;
  for (auto _ : state) {
    benchmark::DoNotOptimize(d.x);
    for (std::size_t r = 0; r < R; ++r) {
      const float* x = d.x.data() + r * C;
      float* o = out.data() + r * C;
      float m = x[0];
      for (std::size_t c = 1; c < C; ++c) m = std::max(m, x[c]);
      float s = 0;
      for (std::size_t c = 0; c < C; ++c) s += (o[c] = std::exp(x[c] - m));
      const float inv = 1.f / s;
      for (std::size_t c = 0; c < C; ++c) o[c] *= inv;
    }
    benchmark::DoNotOptimize(out);
    benchmark::ClobberMemory();
  }
}
// the same with Eigen's arrays (its vectorized exp), static extents
template <std::size_t R, std::size_t C>
void SoftmaxEigen(benchmark::State& state) {
  data<R, C> d;
  using M = Eigen::Array<float, int(R), int(C), C == 1 ? Eigen::ColMajor : Eigen::RowMajor>;
  Eigen::Map<const M> x(d.x.data());
  M out;
  for (auto _ : state) {
    benchmark::DoNotOptimize(d.x);
    out = (x.colwise() - x.rowwise().maxCoeff()).exp();
    out.colwise() /= out.rowwise().sum();
    benchmark::DoNotOptimize(out);
    benchmark::ClobberMemory();
  }
  if (std::abs(out.row(0).sum() - 1.f) > 1e-5f) state.SkipWithError("wrong result");
}
}  // namespace

BENCHMARK(Axes<2, 3>)->Apply(sf_bench::add_min);
BENCHMARK(StaticValue<2, 3>)->Apply(sf_bench::add_min);
BENCHMARK(PlainInt<2, 3>)->Apply(sf_bench::add_min);
BENCHMARK(HandLoop<2, 3>)->Apply(sf_bench::add_min);
BENCHMARK(Axes<16, 64>)->Apply(sf_bench::add_min);
BENCHMARK(StaticValue<16, 64>)->Apply(sf_bench::add_min);
BENCHMARK(PlainInt<16, 64>)->Apply(sf_bench::add_min);
BENCHMARK(HandLoop<16, 64>)->Apply(sf_bench::add_min);
BENCHMARK(Softmax<2, 3>)->Apply(sf_bench::add_min);
BENCHMARK(SoftmaxHand<2, 3>)->Apply(sf_bench::add_min);
BENCHMARK(SoftmaxEigen<2, 3>)->Apply(sf_bench::add_min);
BENCHMARK(Softmax<16, 64>)->Apply(sf_bench::add_min);
BENCHMARK(SoftmaxHand<16, 64>)->Apply(sf_bench::add_min);
BENCHMARK(SoftmaxEigen<16, 64>)->Apply(sf_bench::add_min);
// many short rows (a classifier's 10 classes over a batch of 128; rows of 5): W rows to a batch
BENCHMARK(Softmax<32, 5>)->Apply(sf_bench::add_min);
BENCHMARK(SoftmaxHand<32, 5>)->Apply(sf_bench::add_min);
BENCHMARK(SoftmaxEigen<32, 5>)->Apply(sf_bench::add_min);
BENCHMARK(Softmax<128, 10>)->Apply(sf_bench::add_min);
BENCHMARK(SoftmaxHand<128, 10>)->Apply(sf_bench::add_min);
BENCHMARK(SoftmaxEigen<128, 10>)->Apply(sf_bench::add_min);
