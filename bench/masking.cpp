// bench_masking -- sf::boolean_mask (backend/cpu/masking.hpp) and its gradient against a
// hand-written loop, xtensor's xt::filter and Eigen 3.4's index-list slicing, one thread. Every
// contender produces the result into memory it was given, except where noted.
//
//   Filter/...    boolean_mask(x, x > 0) on 1M float32 (about half kept): the values-filter of
//                 TF code (x[x > 0]); xtensor: xt::filter(x, x > 0) evaluated into a tensor
//   Rows/...      boolean_mask(x, keep): a float32 [100000, 64] tensor, a bool row mask keeping
//                 about 2/3 of the rows; Eigen: the kept row indices listed, then x(rows, all)
//   Gradient/...  d/dx sum(boolean_mask(x, keep) * w): w's rows at the kept rows, zeros elsewhere
//   Repeat/...    repeat(x, counts, axis 0) with an int32 tensor of counts in [1, 2] over the
//                 same [100000, 64] tensor; xtensor: xt::repeat(x, counts, 0) evaluated into a
//                 tensor (counts of 0 are left out: xtensor 0.24.3's repeat then returns the
//                 wrong rows, {0, 2, 0, 1, 1} over 5 rows gives rows 0, 1, 3, 4)
//
// Counter bytes_per_second: the tensor read and the result written. Each result is checked after
// timing.
#include <benchmark/benchmark.h>

#include <Eigen/Dense>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include <xtensor/xindex_view.hpp>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

#include "bench_common.hpp"

namespace sf = staticflow;
using sf_bench::timed;

namespace {

constexpr std::size_t values = 1 << 20, rows = 100000, width = 64;

struct filter_data {
  xt::xtensor<float, 1> x = xt::zeros<float>({values});
  std::vector<float> want;
  filter_data() {
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> u(-1, 1);
    for (auto& v : x) v = u(rng);
    for (const float v : x)
      if (v > 0) want.push_back(v);
  }
  void check(benchmark::State& state, const float* got, std::size_t n) const {
    if (n != want.size() || !std::equal(want.begin(), want.end(), got)) state.SkipWithError("wrong result");
    state.SetBytesProcessed(static_cast<std::int64_t>(sizeof(float) * (values + want.size()) * state.iterations()));
  }
};

void Filter_Staticflow(benchmark::State& state) {
  filter_data d;
  auto fn = sf::function([](auto x) { return sf::boolean_mask(x, x > 0.f); });
  xt::xtensor<float, 1> out = xt::zeros<float>({d.want.size()});
  timed(state, out.data(), [&] { fn.call_into(out, d.x); });
  d.check(state, out.data(), out.size());
}
void Filter_StaticflowByValue(benchmark::State& state) {  // a new result tensor each call
  filter_data d;
  auto fn = sf::function([](auto x) { return sf::boolean_mask(x, x > 0.f); });
  xt::xtensor<float, 1> out;
  timed(state, out.data(), [&] { out = fn(d.x); });
  d.check(state, out.data(), out.size());
}
void Filter_HandLoop(benchmark::State& state) {
  filter_data d;
  std::vector<float> out(values);
  std::size_t n = 0;
  timed(state, out.data(), [&] {
    n = 0;
    const float* x = d.x.data();
    float* to = out.data();
    for (std::size_t i = 0; i < values; ++i)
      if (x[i] > 0) to[n++] = x[i];
  });
  d.check(state, out.data(), n);
}
void Filter_Xtensor(benchmark::State& state) {
  filter_data d;
  xt::xtensor<float, 1> out;
  timed(state, out.data(), [&] { out = xt::filter(d.x, d.x > 0.f); });
  d.check(state, out.data(), out.size());
}

struct row_data {
  xt::xtensor<float, 2> x = xt::zeros<float>({rows, width}), grad = xt::zeros<float>({rows, width}), w;
  xt::xtensor<bool, 1> keep = xt::zeros<bool>({rows});
  std::size_t kept = 0;
  row_data() {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-1, 1);
    for (auto& v : x) v = u(rng);
    for (auto& k : keep) kept += (k = rng() % 3 != 0);
    w = xt::zeros<float>({kept, width});
    for (auto& v : w) v = u(rng);
  }
  void check_rows(benchmark::State& state, const float* got) const {
    const float* row = got;
    for (std::size_t r = 0; r < rows; ++r) {
      if (!keep(r)) continue;
      if (!std::equal(row, row + width, x.data() + r * width)) return state.SkipWithError("wrong result");
      row += width;
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(sizeof(float) * (rows + kept) * width * state.iterations()));
  }
  void check_grad(benchmark::State& state) const {
    std::size_t j = 0;
    for (std::size_t r = 0; r < rows; ++r) {
      for (std::size_t k = 0; k < width; ++k)
        if (grad(r, k) != (keep(r) ? w(j, k) : 0.f)) return state.SkipWithError("wrong result");
      j += keep(r) ? 1 : 0;
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(sizeof(float) * (rows + kept) * width * state.iterations()));
  }
};

void Rows_Staticflow(benchmark::State& state) {
  row_data d;
  auto fn = sf::function([](auto x, auto k) { return sf::boolean_mask(x, k); });
  xt::xtensor<float, 2> out = xt::zeros<float>({d.kept, width});
  timed(state, out.data(), [&] { fn.call_into(out, d.x, d.keep); });
  d.check_rows(state, out.data());
}
// The width in the input signature (tf.TensorSpec([None, 64])), as the hand loop has it.
void Rows_StaticflowStaticWidth(benchmark::State& state) {
  row_data d;
  auto fn = sf::function<sf::spec<float, sf::dyn, width>, sf::spec<bool, sf::dyn>>([](auto x, auto k) { return sf::boolean_mask(x, k); });
  xt::xtensor<float, 2> out = xt::zeros<float>({d.kept, width});
  timed(state, out.data(), [&] { fn.call_into(out, d.x, d.keep); });
  d.check_rows(state, out.data());
}
void Rows_HandLoop(benchmark::State& state) {
  row_data d;
  xt::xtensor<float, 2> out = xt::zeros<float>({d.kept, width});
  timed(state, out.data(), [&] {
    float* to = out.data();
    for (std::size_t r = 0; r < rows; ++r) {
      if (!d.keep(r)) continue;
      const float* from = d.x.data() + r * width;
      for (std::size_t k = 0; k < width; ++k) to[k] = from[k];
      to += width;
    }
  });
  d.check_rows(state, out.data());
}
void Rows_Eigen(benchmark::State& state) {
  row_data d;
  using matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Eigen::Map<const matrix> x(d.x.data(), long(rows), long(width));
  xt::xtensor<float, 2> out = xt::zeros<float>({d.kept, width});
  Eigen::Map<matrix> result(out.data(), long(d.kept), long(width));
  std::vector<long> kept_rows;
  timed(state, out.data(), [&] {
    kept_rows.clear();
    for (std::size_t r = 0; r < rows; ++r)
      if (d.keep(r)) kept_rows.push_back(long(r));
    result = x(kept_rows, Eigen::all);
  });
  d.check_rows(state, out.data());
}

void Gradient_Staticflow(benchmark::State& state) {
  row_data d;
  auto fn = sf::grad<0>([](auto x, auto k, auto w) { return sf::reduce_sum(sf::boolean_mask(x, k) * w); });
  timed(state, d.grad.data(), [&] { fn.call_into(d.grad, d.x, d.keep, d.w); });
  d.check_grad(state);
}
void Gradient_HandLoop(benchmark::State& state) {
  row_data d;
  timed(state, d.grad.data(), [&] {
    const float* from = d.w.data();
    for (std::size_t r = 0; r < rows; ++r) {
      float* to = d.grad.data() + r * width;
      if (!d.keep(r)) {
        std::fill_n(to, width, 0.f);
        continue;
      }
      for (std::size_t k = 0; k < width; ++k) to[k] = from[k];
      from += width;
    }
  });
  d.check_grad(state);
}

struct repeat_data {
  row_data tensor;
  xt::xtensor<std::int32_t, 1> counts = xt::zeros<std::int32_t>({rows});
  std::vector<std::size_t> counts_for_xtensor;
  std::size_t total = 0;
  repeat_data() {
    std::mt19937 rng(11);
    for (auto& c : counts) total += static_cast<std::size_t>(c = static_cast<std::int32_t>(1 + rng() % 2));
    counts_for_xtensor.assign(counts.begin(), counts.end());
  }
  void check(benchmark::State& state, const float* got) const {
    const float* row = got;
    for (std::size_t r = 0; r < rows; ++r)
      for (std::int32_t c = 0; c < counts(r); ++c, row += width)
        if (!std::equal(row, row + width, tensor.x.data() + r * width)) return state.SkipWithError("wrong result");
    state.SetBytesProcessed(static_cast<std::int64_t>(sizeof(float) * (rows + total) * width * state.iterations()));
  }
};

void Repeat_Staticflow(benchmark::State& state) {
  repeat_data d;
  auto fn = sf::function([](auto x, auto c) { return sf::repeat(x, c, sf::axes<0>{}); });
  xt::xtensor<float, 2> out = xt::zeros<float>({d.total, width});
  timed(state, out.data(), [&] { fn.call_into(out, d.tensor.x, d.counts); });
  d.check(state, out.data());
}
void Repeat_HandLoop(benchmark::State& state) {
  repeat_data d;
  xt::xtensor<float, 2> out = xt::zeros<float>({d.total, width});
  timed(state, out.data(), [&] {
    float* to = out.data();
    for (std::size_t r = 0; r < rows; ++r) {
      const float* from = d.tensor.x.data() + r * width;
      for (std::int32_t c = 0; c < d.counts(r); ++c, to += width)
        for (std::size_t k = 0; k < width; ++k) to[k] = from[k];
    }
  });
  d.check(state, out.data());
}
void Repeat_Xtensor(benchmark::State& state) {
  repeat_data d;
  xt::xtensor<float, 2> out = xt::zeros<float>({d.total, width});
  timed(state, out.data(), [&] { out = xt::repeat(d.tensor.x, d.counts_for_xtensor, 0); });
  d.check(state, out.data());
}

}  // namespace

BENCHMARK(Filter_Staticflow)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Filter_StaticflowByValue)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Filter_HandLoop)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Filter_Xtensor)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Rows_Staticflow)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Rows_StaticflowStaticWidth)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Rows_HandLoop)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Rows_Eigen)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Gradient_Staticflow)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Gradient_HandLoop)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Repeat_Staticflow)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Repeat_HandLoop)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Repeat_Xtensor)->Unit(benchmark::kMicrosecond)->UseRealTime();
