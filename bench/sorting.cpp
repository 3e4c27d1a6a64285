// bench_sorting -- sf::argsort, sf::sort and sf::top_k (backend/cpu/sorting.hpp) on float32
// [256, 1024] rows (the last axis), against a hand-written loop (std::stable_sort of positions,
// std::partial_sort for top_k) and xtensor's xt::argsort / xt::sort, one thread.
//
//   Argsort/...  the positions that sort each row
//   Sort/...     each row sorted
//   TopK/...     the 10 largest of each row and their positions
//
// Counter items_per_second: the elements sorted. Each result is checked after timing.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include <xtensor/xsort.hpp>
#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

#include "bench_common.hpp"

namespace sf = staticflow;

namespace {

constexpr std::size_t rows = 256, n = 1024, k = 10;

xt::xtensor<float, 2> data() {
  xt::xtensor<float, 2> x = xt::zeros<float>({rows, n});
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1, 1);
  for (auto& v : x) v = u(rng);
  return x;
}

template <class Body>
void timed(benchmark::State& state, const void* out, Body body) {
  body();
  for (auto _ : state) {
    body();
    benchmark::DoNotOptimize(out);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(rows * n * state.iterations()));
}

template <class P>
void check_order(benchmark::State& state, const xt::xtensor<float, 2>& x, const P& positions) {
  for (std::size_t r = 0; r < rows; r += 17)
    for (std::size_t j = 1; j < n; ++j)
      if (x(r, std::size_t(positions(r, j - 1))) > x(r, std::size_t(positions(r, j)))) return state.SkipWithError("wrong result");
}

void Argsort_Staticflow(benchmark::State& state) {
  const auto x = data();
  xt::xtensor<std::int32_t, 2> out = xt::zeros<std::int32_t>({rows, n});
  auto fn = sf::function([](auto a) { return sf::argsort(a); });
  timed(state, out.data(), [&] { fn.call_into(out, x); });
  check_order(state, x, out);
}
void Argsort_HandLoop(benchmark::State& state) {
  const auto x = data();
  xt::xtensor<std::int32_t, 2> out = xt::zeros<std::int32_t>({rows, n});
  timed(state, out.data(), [&] {
    for (std::size_t r = 0; r < rows; ++r) {
      std::int32_t* p = out.data() + r * n;
      const float* v = x.data() + r * n;
      std::iota(p, p + n, 0);
      std::stable_sort(p, p + n, [v](std::int32_t a, std::int32_t b) { return v[a] < v[b]; });
    }
  });
  check_order(state, x, out);
}
void Argsort_Xtensor(benchmark::State& state) {
  const auto x = data();
  xt::xtensor<std::size_t, 2> out = xt::zeros<std::size_t>({rows, n});
  timed(state, out.data(), [&] { out = xt::argsort(x, 1); });
  check_order(state, x, out);
}

void Sort_Staticflow(benchmark::State& state) {
  const auto x = data();
  xt::xtensor<float, 2> out = xt::zeros<float>({rows, n});
  auto fn = sf::function([](auto a) { return sf::sort(a); });
  timed(state, out.data(), [&] { fn.call_into(out, x); });
  for (std::size_t r = 0; r < rows; ++r)
    if (!std::is_sorted(out.data() + r * n, out.data() + (r + 1) * n)) return state.SkipWithError("wrong result");
}
void Sort_HandLoop(benchmark::State& state) {
  const auto x = data();
  xt::xtensor<float, 2> out = xt::zeros<float>({rows, n});
  timed(state, out.data(), [&] {
    std::copy(x.begin(), x.end(), out.begin());
    for (std::size_t r = 0; r < rows; ++r) std::sort(out.data() + r * n, out.data() + (r + 1) * n);
  });
  for (std::size_t r = 0; r < rows; ++r)
    if (!std::is_sorted(out.data() + r * n, out.data() + (r + 1) * n)) return state.SkipWithError("wrong result");
}
void Sort_Xtensor(benchmark::State& state) {
  const auto x = data();
  xt::xtensor<float, 2> out = xt::zeros<float>({rows, n});
  timed(state, out.data(), [&] { out = xt::sort(x, 1); });
  for (std::size_t r = 0; r < rows; ++r)
    if (!std::is_sorted(out.data() + r * n, out.data() + (r + 1) * n)) return state.SkipWithError("wrong result");
}

void check_top(benchmark::State& state, const xt::xtensor<float, 2>& x, const xt::xtensor<float, 2>& values) {
  for (std::size_t r = 0; r < rows; r += 13) {
    std::vector<float> row(x.data() + r * n, x.data() + (r + 1) * n);
    std::sort(row.begin(), row.end(), std::greater<>());
    for (std::size_t j = 0; j < k; ++j)
      if (values(r, j) != row[j]) return state.SkipWithError("wrong result");
  }
}
void TopK_Staticflow(benchmark::State& state) {
  const auto x = data();
  xt::xtensor<float, 2> values = xt::zeros<float>({rows, k});
  xt::xtensor<std::int32_t, 2> positions = xt::zeros<std::int32_t>({rows, k});
  auto fn = sf::function([](auto a) { return sf::top_k(a, sf::static_value<int(k)>{}); });
  timed(state, values.data(), [&] { std::tie(values, positions) = fn(x); });
  check_top(state, x, values);
}
void TopK_HandLoop(benchmark::State& state) {
  const auto x = data();
  xt::xtensor<float, 2> values = xt::zeros<float>({rows, k});
  xt::xtensor<std::int32_t, 2> positions = xt::zeros<std::int32_t>({rows, k});
  std::vector<std::int32_t> order(n);
  timed(state, values.data(), [&] {
    for (std::size_t r = 0; r < rows; ++r) {
      const float* v = x.data() + r * n;
      std::iota(order.begin(), order.end(), 0);
      std::partial_sort(order.begin(), order.begin() + k, order.end(),
                        [v](std::int32_t a, std::int32_t b) { return v[a] > v[b] || (v[a] == v[b] && a < b); });
      for (std::size_t j = 0; j < k; ++j) values(r, j) = v[order[j]], positions(r, j) = order[j];
    }
  });
  check_top(state, x, values);
}

}  // namespace

#define SF_SORTING(name) BENCHMARK(name)->Unit(benchmark::kMicrosecond)->UseRealTime()
SF_SORTING(Argsort_Staticflow);
SF_SORTING(Argsort_HandLoop);
SF_SORTING(Argsort_Xtensor);
SF_SORTING(Sort_Staticflow);
SF_SORTING(Sort_HandLoop);
SF_SORTING(Sort_Xtensor);
SF_SORTING(TopK_Staticflow);
SF_SORTING(TopK_HandLoop);
