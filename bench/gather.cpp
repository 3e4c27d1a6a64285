// bench_gather -- sf::gather (backend/cpu/gather.hpp) as an embedding lookup and its gradient,
// against a hand-written loop, Eigen 3.4's index-list slicing (`table(ids, Eigen::all)`) and
// xtensor's `xt::view(table, xt::keep(ids), xt::all())`, one thread.
//
//   Lookup/...    rows = gather(table, ids): a float32 [50000, 64] table, 4096 int32 ids
//   Gradient/...  d/dtable sum(gather(table, ids) * w): zeros of the table's shape, then each of
//                 w's 4096 rows added at its id (repeated ids add up); no peer has a scatter-add,
//                 so the hand loop is the anchor
//   GatherNd/...  gather_nd(table, ids as [4096, 1] tuples): the lookup through graph/scatter.hpp
//   ScatterAdd/.. tensor_scatter_nd_add(table, ids as tuples, w): a copy of the table with w's rows
//                 added at their ids, in order (the hand loop: copy, then add)
//
// Counter bytes_per_second: the rows read and written (Lookup), the table written plus w read
// (Gradient). Each result is checked at sampled elements after timing.
#include <benchmark/benchmark.h>

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include <xtensor/xtensor.hpp>
#include <xtensor/xview.hpp>

#include <staticflow/staticflow.hpp>

#include "bench_common.hpp"

namespace sf = staticflow;
using sf_bench::timed;

namespace {

constexpr std::size_t vocabulary = 50000, width = 64, lookups = 4096;

struct data {
  xt::xtensor<float, 2> table, w, rows, grad;
  xt::xtensor<std::int32_t, 1> ids;
  xt::xtensor<std::int32_t, 2> tuples;  // ids as [lookups, 1]
  data()
      : table(xt::zeros<float>({vocabulary, width})), w(xt::zeros<float>({lookups, width})),
        rows(xt::zeros<float>({lookups, width})), grad(xt::zeros<float>({vocabulary, width})),
        ids(xt::zeros<std::int32_t>({lookups})) {
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> u(-1, 1);
    for (auto& v : table) v = u(rng);
    for (auto& v : w) v = u(rng);
    for (auto& v : ids) v = static_cast<std::int32_t>(rng() % 2000);  // a small working set: repeats
    tuples = xt::zeros<std::int32_t>({lookups, std::size_t{1}});
    std::copy(ids.begin(), ids.end(), tuples.begin());
  }
  /// grad holding table + the scatter-add of w's rows at ids, checked at sampled rows
  void check_scattered(benchmark::State& state) const {
    std::mt19937 rng(10);
    for (int s = 0; s < 64; ++s) {
      const std::size_t r = static_cast<std::size_t>(ids(rng() % lookups)), k = rng() % width;
      double want = table(r, k);
      for (std::size_t p = 0; p < lookups; ++p)
        if (static_cast<std::size_t>(ids(p)) == r) want += w(p, k);
      if (!(std::fabs(grad(r, k) - want) <= 1e-4 * (1 + std::fabs(want)))) return state.SkipWithError("wrong result");
    }
    if (grad(vocabulary - 1, 3) != table(vocabulary - 1, 3)) state.SkipWithError("wrong result: a row never updated");
  }
  void check_rows(benchmark::State& state) const {
    for (std::size_t p = 0; p < lookups; p += 97)
      for (std::size_t k = 0; k < width; k += 13)
        if (rows(p, k) != table(static_cast<std::size_t>(ids(p)), k)) return state.SkipWithError("wrong result");
  }
  void check_grad(benchmark::State& state) const {
    std::mt19937 rng(9);
    for (int s = 0; s < 64; ++s) {
      const std::size_t r = static_cast<std::size_t>(ids(rng() % lookups)), k = rng() % width;
      double want = 0;
      for (std::size_t p = 0; p < lookups; ++p)
        if (static_cast<std::size_t>(ids(p)) == r) want += w(p, k);
      if (!(std::fabs(grad(r, k) - want) <= 1e-4 * (1 + std::fabs(want)))) return state.SkipWithError("wrong result");
    }
    if (grad(vocabulary - 1, 0) != 0.f) state.SkipWithError("wrong result: a row never looked up");
  }
};

void lookup_bytes(benchmark::State& state) {
  state.SetBytesProcessed(static_cast<std::int64_t>(2 * sizeof(float) * lookups * width * state.iterations()));
}
void gradient_bytes(benchmark::State& state) {
  state.SetBytesProcessed(static_cast<std::int64_t>(sizeof(float) * (vocabulary + lookups) * width * state.iterations()));
}

void Lookup_Staticflow(benchmark::State& state) {
  data d;
  auto fn = sf::function([](auto t, auto i) { return sf::gather(t, i); });
  timed(state, d.rows.data(), [&] { fn.call_into(d.rows, d.table, d.ids); });
  d.check_rows(state);
  lookup_bytes(state);
}
// The table's width in the input signature (tf.TensorSpec([None, 64])), as the hand loop has it.
void Lookup_StaticflowStaticWidth(benchmark::State& state) {
  data d;
  auto fn = sf::function<sf::spec<float, sf::dyn, width>, sf::spec<std::int32_t, sf::dyn>>(
      [](auto t, auto i) { return sf::gather(t, i); });
  timed(state, d.rows.data(), [&] { fn.call_into(d.rows, d.table, d.ids); });
  d.check_rows(state);
  lookup_bytes(state);
}
void Lookup_HandLoop(benchmark::State& state) {
  data d;
  timed(state, d.rows.data(), [&] {
    for (std::size_t p = 0; p < lookups; ++p)
      std::copy_n(d.table.data() + static_cast<std::size_t>(d.ids(p)) * width, width, d.rows.data() + p * width);
  });
  d.check_rows(state);
  lookup_bytes(state);
}
void Lookup_Eigen(benchmark::State& state) {
  data d;
  using matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Eigen::Map<const matrix> table(d.table.data(), long(vocabulary), long(width));
  Eigen::Map<matrix> rows(d.rows.data(), long(lookups), long(width));
  const std::vector<std::int32_t> ids(d.ids.begin(), d.ids.end());
  timed(state, d.rows.data(), [&] { rows = table(ids, Eigen::all); });
  d.check_rows(state);
  lookup_bytes(state);
}
void Lookup_Xtensor(benchmark::State& state) {
  data d;
  const std::vector<std::size_t> ids(d.ids.begin(), d.ids.end());
  timed(state, d.rows.data(), [&] { d.rows = xt::view(d.table, xt::keep(ids), xt::all()); });
  d.check_rows(state);
  lookup_bytes(state);
}

void Gradient_Staticflow(benchmark::State& state) {
  data d;
  auto fn = sf::grad<0>([](auto t, auto i, auto w) { return sf::reduce_sum(sf::gather(t, i) * w); });
  timed(state, d.grad.data(), [&] { fn.call_into(d.grad, d.table, d.ids, d.w); });
  d.check_grad(state);
  gradient_bytes(state);
}
void Gradient_HandLoop(benchmark::State& state) {
  data d;
  timed(state, d.grad.data(), [&] {
    float* g = d.grad.data();
    std::fill_n(g, vocabulary * width, 0.f);
    for (std::size_t p = 0; p < lookups; ++p) {
      float* to = g + static_cast<std::size_t>(d.ids(p)) * width;
      const float* from = d.w.data() + p * width;
      for (std::size_t k = 0; k < width; ++k) to[k] += from[k];
    }
  });
  d.check_grad(state);
  gradient_bytes(state);
}

void GatherNd_Staticflow(benchmark::State& state) {
  data d;
  auto fn = sf::function<sf::spec<float, sf::dyn, width>, sf::spec<std::int32_t, sf::dyn, 1>>(
      [](auto t, auto i) { return sf::gather_nd(t, i); });
  timed(state, d.rows.data(), [&] { fn.call_into(d.rows, d.table, d.tuples); });
  d.check_rows(state);
  lookup_bytes(state);
}

void ScatterAdd_Staticflow(benchmark::State& state) {
  data d;
  auto fn = sf::function<sf::spec<float, sf::dyn, width>, sf::spec<std::int32_t, sf::dyn, 1>, sf::spec<float, sf::dyn, width>>(
      [](auto t, auto i, auto w) { return sf::tensor_scatter_nd_add(t, i, w); });
  timed(state, d.grad.data(), [&] { fn.call_into(d.grad, d.table, d.tuples, d.w); });
  d.check_scattered(state);
  gradient_bytes(state);
}
void ScatterAdd_HandLoop(benchmark::State& state) {
  data d;
  timed(state, d.grad.data(), [&] {
    float* g = d.grad.data();
    std::copy_n(d.table.data(), vocabulary * width, g);
    for (std::size_t p = 0; p < lookups; ++p) {
      float* to = g + static_cast<std::size_t>(d.ids(p)) * width;
      const float* from = d.w.data() + p * width;
      for (std::size_t k = 0; k < width; ++k) to[k] += from[k];
    }
  });
  d.check_scattered(state);
  gradient_bytes(state);
}

}  // namespace

BENCHMARK(Lookup_Staticflow)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Lookup_StaticflowStaticWidth)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Lookup_HandLoop)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Lookup_Eigen)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Lookup_Xtensor)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Gradient_Staticflow)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Gradient_HandLoop)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(GatherNd_Staticflow)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(ScatterAdd_Staticflow)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(ScatterAdd_HandLoop)->Unit(benchmark::kMicrosecond)->UseRealTime();
