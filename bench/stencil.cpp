// bench_stencil -- issue 20 item 11: a shifted-slice stencil (one explicit heat-equation step),
// written as TF users write it, against a hand loop and the peers' fused expressions, float32.
//
//   out = u[1:-1] + 0.1 * (u[2:] - 2 u[1:-1] + u[:-2])          (n - 2 values of n)
//
// Methods (each writes a preallocated output of n - 2 values; the same input values):
//   Staticflow        sf::function(step).call_into(out, u), run-time spans (x(sf::span(2, sf::none))
//                     ...), right at every length
//   StaticflowStatic  the same with static spans (sf::static_span<2, sf::open_index>{}, ...)
//   HandLoop          the loop over i in [1, n - 1) (GCC vectorizes it)
//   EigenArray        the segment expression on Eigen::ArrayXf (Eigen fuses it into one loop)
//   XtensorLazy       xt::noalias(out) = the view expression (xtensor 0.24, lazy)
// Sizes: 4096 (in L1/L2) and 1M (4 MB per array). Target (the issue): within 1.3x the hand loop
// at both sizes. Each result is checked against the hand loop's after timing.
// The 2-D five-point step (Staticflow2D, HandLoop2D, EigenArray2D; grids of 66^2 and 1026^2): its
// slices cut the columns, so they are strided views (session 51), read row by row.
#include <benchmark/benchmark.h>

#include <Eigen/Core>
#include <xtensor/xnoalias.hpp>
#include <xtensor/xtensor.hpp>
#include <xtensor/xview.hpp>

#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

#include <staticflow/staticflow.hpp>

#include "bench_common.hpp"

namespace sf = staticflow;
using sf_bench::timed;

namespace {
struct data {
  xt::xtensor<float, 1> u, out, want;
  Eigen::ArrayXf eu, eout;
  explicit data(std::size_t n)
      : u(xt::xtensor<float, 1>::from_shape({n})), out(xt::zeros<float>({n - 2})), want(xt::zeros<float>({n - 2})), eu(n),
        eout(static_cast<Eigen::Index>(n - 2)) {
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> d(-1, 1);
    for (std::size_t i = 0; i < n; ++i) eu[static_cast<Eigen::Index>(i)] = u[i] = d(rng);
    for (std::size_t i = 1; i + 1 < n; ++i) want[i - 1] = u[i] + 0.1f * (u[i + 1] - 2.f * u[i] + u[i - 1]);
  }
  template <class Out>
  void check(benchmark::State& state, const Out& got) const {
    for (std::size_t i = 0; i < want.size(); i += 97)
      if (std::fabs(got[i] - want[i]) > 1e-5f) return state.SkipWithError("wrong result");
  }
};

void Staticflow(benchmark::State& state) {
  data d(static_cast<std::size_t>(state.range(0)));
  auto step = sf::function([](auto u) {
    const auto mid = u(sf::span(1, -1));
    return mid + 0.1f * (u(sf::span(2, sf::none)) - 2.f * mid + u(sf::span(sf::none, -2)));
  });
  timed(state, d.out.data(), [&] { step.call_into(d.out, d.u); });
  d.check(state, d.out);
}
void StaticflowStatic(benchmark::State& state) {
  data d(static_cast<std::size_t>(state.range(0)));
  auto step = sf::function([](auto u) {
    const auto mid = u(sf::static_span<1, -1>{});
    return mid + 0.1f * (u(sf::static_span<2, sf::open_index>{}) - 2.f * mid + u(sf::static_span<sf::open_index, -2>{}));
  });
  timed(state, d.out.data(), [&] { step.call_into(d.out, d.u); });
  d.check(state, d.out);
}
void HandLoop(benchmark::State& state) {
  data d(static_cast<std::size_t>(state.range(0)));
  const std::size_t n = d.u.size();
  timed(state, d.out.data(), [&] {
    const float* __restrict u = d.u.data();
    float* __restrict out = d.out.data();
    for (std::size_t i = 1; i + 1 < n; ++i) out[i - 1] = u[i] + 0.1f * (u[i + 1] - 2.f * u[i] + u[i - 1]);
  });
  d.check(state, d.out);
}
void EigenArray(benchmark::State& state) {
  data d(static_cast<std::size_t>(state.range(0)));
  const Eigen::Index m = static_cast<Eigen::Index>(d.u.size() - 2);
  timed(state, d.eout.data(), [&] {
    d.eout = d.eu.segment(1, m) + 0.1f * (d.eu.segment(2, m) - 2.f * d.eu.segment(1, m) + d.eu.segment(0, m));
  });
  d.check(state, d.eout);
}
void XtensorLazy(benchmark::State& state) {
  data d(static_cast<std::size_t>(state.range(0)));
  timed(state, d.out.data(), [&] {
    auto mid = xt::view(d.u, xt::range(1, -1));
    xt::noalias(d.out) = mid + 0.1f * (xt::view(d.u, xt::range(2, xt::placeholders::_)) - 2.f * mid +
                                       xt::view(d.u, xt::range(xt::placeholders::_, -2)));
  });
  d.check(state, d.out);
}

// ---- the 2-D five-point step on an n x n grid: interior (n - 2)^2 values ----
//   out = u[1:-1, 1:-1] + 0.1 * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 u[1:-1, 1:-1])
// Every slice cuts the columns, so none is a stretch of u: each is a strided view of u that the fused
// loop reads row by row (plan/slot_views.hpp); the hand loop and Eigen read u at five offsets.
struct grid {
  std::size_t n;
  xt::xtensor<float, 2> u, out;
  std::vector<float> want;
  Eigen::ArrayXXf eu, eout;  // column-major: eu(j, i) = u(i, j), so Eigen's blocks are the same stencil
  explicit grid(std::size_t n_)
      : n(n_), u(xt::xtensor<float, 2>::from_shape({n_, n_})), out(xt::zeros<float>({n_ - 2, n_ - 2})), want((n_ - 2) * (n_ - 2)),
        eu(static_cast<Eigen::Index>(n_), static_cast<Eigen::Index>(n_)), eout(static_cast<Eigen::Index>(n_ - 2), static_cast<Eigen::Index>(n_ - 2)) {
    std::mt19937 rng(6);
    std::uniform_real_distribution<float> d(-1, 1);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) eu(static_cast<Eigen::Index>(j), static_cast<Eigen::Index>(i)) = u(i, j) = d(rng);
    for (std::size_t i = 1; i + 1 < n; ++i)
      for (std::size_t j = 1; j + 1 < n; ++j)
        want[(i - 1) * (n - 2) + j - 1] = u(i, j) + 0.1f * (u(i + 1, j) + u(i - 1, j) + u(i, j + 1) + u(i, j - 1) - 4.f * u(i, j));
  }
  template <class At>
  void check(benchmark::State& state, At at) const {
    for (std::size_t k = 0; k < want.size(); k += 89)
      if (std::fabs(at(k / (n - 2), k % (n - 2)) - want[k]) > 1e-5f) return state.SkipWithError("wrong result");
  }
};

void Staticflow2D(benchmark::State& state) {
  grid g(static_cast<std::size_t>(state.range(0)));
  auto step = sf::function([](auto u) {
    const auto inner = sf::span(1, -1);
    const auto mid = u(inner, inner);
    return mid + 0.1f * (u(sf::span(2, sf::none), inner) + u(sf::span(sf::none, -2), inner) + u(inner, sf::span(2, sf::none)) +
                         u(inner, sf::span(sf::none, -2)) - 4.f * mid);
  });
  timed(state, g.out.data(), [&] { step.call_into(g.out, g.u); });
  g.check(state, [&](std::size_t i, std::size_t j) { return g.out(i, j); });
}
void HandLoop2D(benchmark::State& state) {
  grid g(static_cast<std::size_t>(state.range(0)));
  const std::size_t n = g.n;
  timed(state, g.out.data(), [&] {
    const float* __restrict u = g.u.data();
    float* __restrict out = g.out.data();
    for (std::size_t i = 1; i + 1 < n; ++i) {
      const float* row = u + i * n;
      float* to = out + (i - 1) * (n - 2) - 1;
      for (std::size_t j = 1; j + 1 < n; ++j)
        to[j] = row[j] + 0.1f * (row[j + n] + row[j - n] + row[j + 1] + row[j - 1] - 4.f * row[j]);
    }
  });
  g.check(state, [&](std::size_t i, std::size_t j) { return g.out(i, j); });
}
void EigenArray2D(benchmark::State& state) {
  grid g(static_cast<std::size_t>(state.range(0)));
  const auto m = static_cast<Eigen::Index>(g.n - 2);
  timed(state, g.eout.data(), [&] {
    g.eout = g.eu.block(1, 1, m, m) + 0.1f * (g.eu.block(1, 2, m, m) + g.eu.block(1, 0, m, m) + g.eu.block(2, 1, m, m) +
                                              g.eu.block(0, 1, m, m) - 4.f * g.eu.block(1, 1, m, m));
  });
  g.check(state, [&](std::size_t i, std::size_t j) { return g.eout(static_cast<Eigen::Index>(j), static_cast<Eigen::Index>(i)); });
}
}  // namespace

BENCHMARK(Staticflow)->Arg(4096)->Arg(1 << 20)->Unit(benchmark::kMicrosecond);
BENCHMARK(StaticflowStatic)->Arg(4096)->Arg(1 << 20)->Unit(benchmark::kMicrosecond);
BENCHMARK(HandLoop)->Arg(4096)->Arg(1 << 20)->Unit(benchmark::kMicrosecond);
BENCHMARK(EigenArray)->Arg(4096)->Arg(1 << 20)->Unit(benchmark::kMicrosecond);
BENCHMARK(XtensorLazy)->Arg(4096)->Arg(1 << 20)->Unit(benchmark::kMicrosecond);
BENCHMARK(Staticflow2D)->Arg(66)->Arg(1026)->Unit(benchmark::kMicrosecond);
BENCHMARK(HandLoop2D)->Arg(66)->Arg(1026)->Unit(benchmark::kMicrosecond);
BENCHMARK(EigenArray2D)->Arg(66)->Arg(1026)->Unit(benchmark::kMicrosecond);
