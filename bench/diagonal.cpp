// bench_diagonal -- sf::linalg::diag_part, set_diag and trace (backend/cpu/diagonal.hpp) and
// einsum's diagonals, against a hand-written loop, Eigen 3.4 (`.diagonal()`, `.trace()` per
// matrix of a Map) and xtensor (`xt::diagonal`), one thread. A batch of 4096 float32 matrices of
// 32 x 32 (16 MB: larger than the caches, so each diagonal element is a cache line read).
//
//   DiagPart/...  d = diag_part(x): [4096, 32, 32] -> [4096, 32]
//   Trace/...     t = trace(x) -> [4096]; also sf::einsum<"bii->b">(x) (the diagonal, then a sum)
//   SetDiag/...   y = set_diag(x, d): a copy of x with each diagonal replaced (the copy dominates)
//
// Each result is checked after timing.
#include <benchmark/benchmark.h>

#include <Eigen/Dense>

#include <cmath>
#include <cstddef>
#include <random>

#include <xtensor/xtensor.hpp>
#include <xtensor/xview.hpp>

#include <staticflow/staticflow.hpp>

#include "bench_common.hpp"

namespace sf = staticflow;
using sf_bench::timed;

namespace {

constexpr std::size_t batch = 4096, n = 32;

struct data {
  xt::xtensor<float, 3> x, y;
  xt::xtensor<float, 2> d, part;
  xt::xtensor<float, 1> t;
  data()
      : x(xt::zeros<float>({batch, n, n})), y(xt::zeros<float>({batch, n, n})), d(xt::zeros<float>({batch, n})),
        part(xt::zeros<float>({batch, n})), t(xt::zeros<float>({batch})) {
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> u(-1, 1);
    for (auto& v : x) v = u(rng);
    for (auto& v : d) v = u(rng);
  }
  void check_part(benchmark::State& state) const {
    for (std::size_t b = 0; b < batch; b += 131)
      for (std::size_t i = 0; i < n; ++i)
        if (part(b, i) != x(b, i, i)) return state.SkipWithError("wrong result");
  }
  void check_trace(benchmark::State& state) const {
    for (std::size_t b = 0; b < batch; b += 131) {
      double want = 0;
      for (std::size_t i = 0; i < n; ++i) want += x(b, i, i);
      if (!(std::fabs(t(b) - want) <= 1e-4 * (1 + std::fabs(want)))) return state.SkipWithError("wrong result");
    }
  }
  void check_set(benchmark::State& state) const {
    for (std::size_t b = 0; b < batch; b += 131)
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j)
          if (y(b, i, j) != (i == j ? d(b, i) : x(b, i, j))) return state.SkipWithError("wrong result");
  }
};

using matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
Eigen::Map<const matrix> eigen_matrix(const data& d, std::size_t b) { return {d.x.data() + b * n * n, long(n), long(n)}; }

void DiagPart_Staticflow(benchmark::State& state) {
  data d;
  auto fn = sf::function([](auto x) { return sf::linalg::diag_part(x); });
  timed(state, d.part.data(), [&] { fn.call_into(d.part, d.x); });
  d.check_part(state);
}
void DiagPart_HandLoop(benchmark::State& state) {
  data d;
  timed(state, d.part.data(), [&] {
    for (std::size_t b = 0; b < batch; ++b)
      for (std::size_t i = 0; i < n; ++i) d.part(b, i) = d.x.data()[b * n * n + i * (n + 1)];
  });
  d.check_part(state);
}
void DiagPart_Eigen(benchmark::State& state) {
  data d;
  timed(state, d.part.data(), [&] {
    for (std::size_t b = 0; b < batch; ++b) Eigen::Map<Eigen::VectorXf>(d.part.data() + b * n, long(n)) = eigen_matrix(d, b).diagonal();
  });
  d.check_part(state);
}
void DiagPart_Xtensor(benchmark::State& state) {
  data d;
  timed(state, d.part.data(), [&] { d.part = xt::diagonal(d.x, 0, 1, 2); });
  d.check_part(state);
}

void Trace_Staticflow(benchmark::State& state) {
  data d;
  auto fn = sf::function([](auto x) { return sf::linalg::trace(x); });
  timed(state, d.t.data(), [&] { fn.call_into(d.t, d.x); });
  d.check_trace(state);
}
void Trace_StaticflowEinsum(benchmark::State& state) {
  data d;
  auto fn = sf::function([](auto x) { return sf::einsum<"bii->b">(x); });
  timed(state, d.t.data(), [&] { fn.call_into(d.t, d.x); });
  d.check_trace(state);
}
void Trace_HandLoop(benchmark::State& state) {
  data d;
  timed(state, d.t.data(), [&] {
    for (std::size_t b = 0; b < batch; ++b) {
      float s = 0;
      for (std::size_t i = 0; i < n; ++i) s += d.x.data()[b * n * n + i * (n + 1)];
      d.t(b) = s;
    }
  });
  d.check_trace(state);
}
void Trace_Eigen(benchmark::State& state) {
  data d;
  timed(state, d.t.data(), [&] {
    for (std::size_t b = 0; b < batch; ++b) d.t(b) = eigen_matrix(d, b).trace();
  });
  d.check_trace(state);
}

void SetDiag_Staticflow(benchmark::State& state) {
  data d;
  auto fn = sf::function([](auto x, auto v) { return sf::linalg::set_diag(x, v); });
  timed(state, d.y.data(), [&] { fn.call_into(d.y, d.x, d.d); });
  d.check_set(state);
}
void SetDiag_HandLoop(benchmark::State& state) {
  data d;
  timed(state, d.y.data(), [&] {
    std::copy_n(d.x.data(), batch * n * n, d.y.data());
    for (std::size_t b = 0; b < batch; ++b)
      for (std::size_t i = 0; i < n; ++i) d.y.data()[b * n * n + i * (n + 1)] = d.d(b, i);
  });
  d.check_set(state);
}
void SetDiag_Eigen(benchmark::State& state) {
  data d;
  timed(state, d.y.data(), [&] {
    for (std::size_t b = 0; b < batch; ++b) {
      Eigen::Map<matrix> y(d.y.data() + b * n * n, long(n), long(n));
      y = eigen_matrix(d, b);
      y.diagonal() = Eigen::Map<const Eigen::VectorXf>(d.d.data() + b * n, long(n));
    }
  });
  d.check_set(state);
}

}  // namespace

BENCHMARK(DiagPart_Staticflow)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(DiagPart_HandLoop)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(DiagPart_Eigen)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(DiagPart_Xtensor)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Trace_Staticflow)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Trace_StaticflowEinsum)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Trace_HandLoop)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Trace_Eigen)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(SetDiag_Staticflow)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(SetDiag_HandLoop)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(SetDiag_Eigen)->Unit(benchmark::kMicrosecond)->UseRealTime();
