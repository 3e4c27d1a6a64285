// bench_segment -- sf::unsorted_segment_sum (backend/cpu/segment.hpp) and its gradient against a
// hand-written loop and Eigen 3.4's sparse one-hot matrix product (out = S * data, S[s, p] = 1
// where ids[p] == s: how a segment sum is written without a segment op), one thread.
//
//   Sum/...       unsorted_segment_sum(data, ids, 1000): a float32 [100000, 64] data, int32 ids in
//                 [-1, 1000) (about 0.1% negative: dropped)
//   Gradient/...  d/ddata sum(unsorted_segment_sum(data, ids, 1000) * w): w's row at each id,
//                 zeros for a negative id (the hand loop: the same gather)
//   Sorted/...    tf.math.segment_sum(data, sorted_ids) on the same data, the ids sorted (0 to
//                 999): without num_segments (counted from the ids: the result allocated per
//                 call), with it, and the hand loop (which counts the rows as TF's op does)
//
// Counter bytes_per_second: data read and the result written (Sum), the result written (Gradient).
// Each result is checked at sampled elements after timing.
#include <benchmark/benchmark.h>

#include <Eigen/Dense>
#include <Eigen/Sparse>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

#include "bench_common.hpp"

namespace sf = staticflow;
using sf_bench::timed;

namespace {

constexpr std::size_t rows = 100000, width = 64, segments = 1000;

struct data {
  xt::xtensor<float, 2> x, w, sums, grad;
  xt::xtensor<std::int32_t, 1> ids, sorted;
  data()
      : x(xt::zeros<float>({rows, width})), w(xt::zeros<float>({segments, width})), sums(xt::zeros<float>({segments, width})),
        grad(xt::zeros<float>({rows, width})), ids(xt::zeros<std::int32_t>({rows})) {
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> u(-1, 1);
    for (auto& v : x) v = u(rng);
    for (auto& v : w) v = u(rng);
    for (auto& v : ids) v = static_cast<std::int32_t>(rng() % (segments + 1)) - 1;  // -1: dropped
    sorted = xt::maximum(ids, 0);
    std::sort(sorted.begin(), sorted.end());
    sorted(rows - 1) = static_cast<std::int32_t>(segments - 1);
  }
  void check_sums(benchmark::State& state, bool by_sorted = false) const {
    std::mt19937 rng(9);
    const auto& by = by_sorted ? sorted : ids;
    if (sums.shape(0) != segments) return state.SkipWithError("wrong row count");
    for (int s = 0; s < 32; ++s) {
      const std::size_t r = rng() % segments, k = rng() % width;
      double want = 0;
      for (std::size_t p = 0; p < rows; ++p)
        if (by(p) == static_cast<std::int32_t>(r)) want += x(p, k);
      if (!(std::fabs(sums(r, k) - want) <= 1e-3 * (1 + std::fabs(want)))) return state.SkipWithError("wrong result");
    }
  }
  void check_grad(benchmark::State& state) const {
    for (std::size_t p = 0; p < rows; p += 997)
      for (std::size_t k = 0; k < width; k += 13)
        if (grad(p, k) != (ids(p) < 0 ? 0.f : w(static_cast<std::size_t>(ids(p)), k))) return state.SkipWithError("wrong result");
  }
};

void sum_bytes(benchmark::State& state) {
  state.SetBytesProcessed(static_cast<std::int64_t>(sizeof(float) * (rows + segments) * width * state.iterations()));
}
void gradient_bytes(benchmark::State& state) {
  state.SetBytesProcessed(static_cast<std::int64_t>(sizeof(float) * rows * width * state.iterations()));
}

void Sum_Staticflow(benchmark::State& state) {
  data d;
  auto fn = sf::function([](auto x, auto i) { return sf::unsorted_segment_sum(x, i, segments); });
  timed(state, d.sums.data(), [&] { fn.call_into(d.sums, d.x, d.ids); });
  d.check_sums(state);
  sum_bytes(state);
}
// The width in the input signature (tf.TensorSpec([None, 64])), as the hand loop has it (a
// static num_segments too would make the result a 256 KB static array: over the stack limit).
void Sum_StaticflowStaticWidth(benchmark::State& state) {
  data d;
  auto fn = sf::function<sf::spec<float, sf::dyn, width>, sf::spec<std::int32_t, sf::dyn>>(
      [](auto x, auto i) { return sf::unsorted_segment_sum(x, i, segments); });
  timed(state, d.sums.data(), [&] { fn.call_into(d.sums, d.x, d.ids); });
  d.check_sums(state);
  sum_bytes(state);
}
void Sum_HandLoop(benchmark::State& state) {
  data d;
  timed(state, d.sums.data(), [&] {
    float* out = d.sums.data();
    std::fill_n(out, segments * width, 0.f);
    for (std::size_t p = 0; p < rows; ++p) {
      if (d.ids(p) < 0) continue;
      float* to = out + static_cast<std::size_t>(d.ids(p)) * width;
      const float* from = d.x.data() + p * width;
      for (std::size_t k = 0; k < width; ++k) to[k] += from[k];
    }
  });
  d.check_sums(state);
  sum_bytes(state);
}
void Sum_EigenSparse(benchmark::State& state) {
  data d;
  using matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Eigen::Map<const matrix> x(d.x.data(), long(rows), long(width));
  Eigen::Map<matrix> out(d.sums.data(), long(segments), long(width));
  std::vector<Eigen::Triplet<float>> ones;
  for (std::size_t p = 0; p < rows; ++p)
    if (d.ids(p) >= 0) ones.emplace_back(d.ids(p), static_cast<int>(p), 1.f);
  Eigen::SparseMatrix<float, Eigen::RowMajor> s{long(segments), long(rows)};  // built once, untimed
  s.setFromTriplets(ones.begin(), ones.end());
  timed(state, d.sums.data(), [&] { out.noalias() = s * x; });
  d.check_sums(state);
  sum_bytes(state);
}

void Gradient_Staticflow(benchmark::State& state) {
  data d;
  auto fn = sf::grad<0>([](auto x, auto i, auto w) { return sf::reduce_sum(sf::unsorted_segment_sum(x, i, segments) * w); });
  timed(state, d.grad.data(), [&] { fn.call_into(d.grad, d.x, d.ids, d.w); });
  d.check_grad(state);
  gradient_bytes(state);
}
void Gradient_HandLoop(benchmark::State& state) {
  data d;
  timed(state, d.grad.data(), [&] {
    for (std::size_t p = 0; p < rows; ++p) {
      float* to = d.grad.data() + p * width;
      if (d.ids(p) < 0) {
        std::fill_n(to, width, 0.f);
        continue;
      }
      const float* from = d.w.data() + static_cast<std::size_t>(d.ids(p)) * width;
      for (std::size_t k = 0; k < width; ++k) to[k] = from[k];
    }
  });
  d.check_grad(state);
  gradient_bytes(state);
}

void Sorted_Staticflow(benchmark::State& state) {
  data d;
  auto fn = sf::function([](auto x, auto i) { return sf::segment_sum(x, i); });
  timed(state, d.sums.data(), [&] { d.sums = fn(d.x, d.sorted); });
  d.check_sums(state, true);
  sum_bytes(state);
}
void Sorted_StaticflowNumSegments(benchmark::State& state) {
  data d;
  auto fn = sf::function([](auto x, auto i) { return sf::segment_sum(x, i, segments); });
  timed(state, d.sums.data(), [&] { d.sums = fn(d.x, d.sorted); });
  d.check_sums(state, true);
  sum_bytes(state);
}
void Sorted_HandLoop(benchmark::State& state) {
  data d;
  timed(state, d.sums.data(), [&] {
    const std::size_t count = rows == 0 ? 0 : static_cast<std::size_t>(d.sorted(rows - 1)) + 1;
    d.sums = xt::xtensor<float, 2>::from_shape({count, width});
    float* out = d.sums.data();
    std::fill_n(out, count * width, 0.f);
    for (std::size_t p = 0; p < rows; ++p) {
      float* to = out + static_cast<std::size_t>(d.sorted(p)) * width;
      const float* from = d.x.data() + p * width;
      for (std::size_t k = 0; k < width; ++k) to[k] += from[k];
    }
  });
  d.check_sums(state, true);
  sum_bytes(state);
}

}  // namespace

BENCHMARK(Sum_Staticflow)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Sum_StaticflowStaticWidth)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Sum_HandLoop)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Sum_EigenSparse)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Gradient_Staticflow)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Gradient_HandLoop)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Sorted_Staticflow)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Sorted_StaticflowNumSegments)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Sorted_HandLoop)->Unit(benchmark::kMicrosecond)->UseRealTime();
