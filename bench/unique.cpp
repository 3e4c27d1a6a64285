// bench_unique -- sf::unique (backend/cpu/unique.hpp: one pass with an open-addressing hash table,
// then boolean_mask's gather for y) against hand-written loops and xtensor's xt::unique.
//
//   FewInt/...    1M int32 values drawn from 1000 distinct ones
//   ManyFloat/... 1M float32 values uniform in [0, 1) (almost all distinct)
//
//   Staticflow        fn(x): y and idx, the traced function (y allocated per call, as TF's)
//   HandHashMap       the obvious hand version: a std::unordered_map from value to index, y
//                     pushed back in order of first appearance, idx written per element
//   HandOpenTable     the same algorithm as the kernel written by hand (an open-addressing table
//                     of positions, a second pass for y): the kernel's floor
//   XtensorUnique     xt::unique(x): the sorted distinct values only (no idx; NumPy's order), the
//                     C++ peer's nearest op
//
// Every variant's y and idx (xt::unique: its y's size) are checked against the hand map's after
// timing. When tensorflow-cpu is pip-installed, bench/unique.py times tf.unique on the same data.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <unordered_map>
#include <vector>

#include <xtensor/xsort.hpp>
#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

#include "bench_common.hpp"

namespace sf = staticflow;

namespace {
constexpr std::size_t size = 1 << 20;

template <class T>
xt::xtensor<T, 1> data() {
  std::mt19937 rng(5);
  auto x = xt::xtensor<T, 1>::from_shape({size});
  if constexpr (std::is_integral_v<T>) {
    std::uniform_int_distribution<T> pick(0, 999);
    for (auto& v : x) v = pick(rng) * 7919;
  } else {
    std::uniform_real_distribution<T> pick(0, 1);
    for (auto& v : x) v = pick(rng);
  }
  return x;
}

template <class T>
void hand_hash_map(const xt::xtensor<T, 1>& x, std::vector<T>& y, std::vector<std::int32_t>& idx) {
  std::unordered_map<T, std::int32_t> index;
  y.clear();
  idx.resize(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const auto [it, inserted] = index.try_emplace(x(i), std::int32_t(y.size()));
    if (inserted) y.push_back(x(i));
    idx[i] = it->second;
  }
}

template <class T>
void hand_open_table(const xt::xtensor<T, 1>& x, std::vector<std::size_t>& slots, std::vector<T>& y, std::vector<std::int32_t>& idx) {
  std::size_t capacity = 16;
  while (capacity < 2 * x.size()) capacity *= 2;
  slots.assign(capacity, 0);
  std::vector<std::int32_t> slot_index(capacity);
  y.clear();
  idx.resize(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    std::uint64_t h = 0;
    const T v = x(i);
    std::memcpy(&h, &v, sizeof(T));
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    std::size_t s = h & (capacity - 1);
    while (slots[s] != 0 && !(x(slots[s] - 1) == v)) s = (s + 1) & (capacity - 1);
    if (slots[s] == 0) {
      slots[s] = i + 1;
      slot_index[s] = std::int32_t(y.size());
      y.push_back(v);
    }
    idx[i] = slot_index[s];
  }
}

template <class T>
bool same_as_hand(const xt::xtensor<T, 1>& x, const xt::xtensor<T, 1>& y, const xt::xtensor<std::int32_t, 1>& idx) {
  std::vector<T> want_y;
  std::vector<std::int32_t> want_idx;
  hand_hash_map(x, want_y, want_idx);
  if (y.size() != want_y.size() || idx.size() != want_idx.size()) return false;
  for (std::size_t k = 0; k < want_y.size(); ++k)
    if (y(k) != want_y[k]) return false;
  for (std::size_t i = 0; i < want_idx.size(); ++i)
    if (idx(i) != want_idx[i]) return false;
  return true;
}

template <class T>
void run_staticflow(benchmark::State& state) {
  const auto x = data<T>();
  auto fn = sf::function([](auto v) { return sf::unique(v); });
  auto result = fn(x);
  for (auto _ : state) {
    result = fn(x);
    benchmark::DoNotOptimize(std::get<1>(result).data());
  }
  if (!same_as_hand(x, std::get<0>(result), std::get<1>(result))) state.SkipWithError("wrong y or idx");
  state.counters["distinct"] = double(std::get<0>(result).size());
}

template <class T>
void run_hand_hash_map(benchmark::State& state) {
  const auto x = data<T>();
  std::vector<T> y;
  std::vector<std::int32_t> idx;
  for (auto _ : state) {
    hand_hash_map(x, y, idx);
    benchmark::DoNotOptimize(idx.data());
  }
  state.counters["distinct"] = double(y.size());
}

template <class T>
void run_hand_open_table(benchmark::State& state) {
  const auto x = data<T>();
  std::vector<std::size_t> slots;
  std::vector<T> y;
  std::vector<std::int32_t> idx;
  for (auto _ : state) {
    hand_open_table(x, slots, y, idx);
    benchmark::DoNotOptimize(idx.data());
  }
  xt::xtensor<T, 1> yt = xt::adapt(y, {y.size()});
  xt::xtensor<std::int32_t, 1> it = xt::adapt(idx, {idx.size()});
  if (!same_as_hand(x, yt, it)) state.SkipWithError("wrong y or idx");
  state.counters["distinct"] = double(y.size());
}

template <class T>
void run_xtensor_unique(benchmark::State& state) {
  const auto x = data<T>();
  xt::xtensor<T, 1> y;
  for (auto _ : state) {
    y = xt::unique(x);
    benchmark::DoNotOptimize(y.data());
  }
  std::vector<T> want_y;
  std::vector<std::int32_t> want_idx;
  hand_hash_map(x, want_y, want_idx);
  if (y.size() != want_y.size()) state.SkipWithError("wrong number of distinct values");
  state.counters["distinct"] = double(y.size());
}

void FewInt_Staticflow(benchmark::State& s) { run_staticflow<std::int32_t>(s); }
void FewInt_HandHashMap(benchmark::State& s) { run_hand_hash_map<std::int32_t>(s); }
void FewInt_HandOpenTable(benchmark::State& s) { run_hand_open_table<std::int32_t>(s); }
void FewInt_XtensorUnique(benchmark::State& s) { run_xtensor_unique<std::int32_t>(s); }
void ManyFloat_Staticflow(benchmark::State& s) { run_staticflow<float>(s); }
void ManyFloat_HandHashMap(benchmark::State& s) { run_hand_hash_map<float>(s); }
void ManyFloat_HandOpenTable(benchmark::State& s) { run_hand_open_table<float>(s); }
void ManyFloat_XtensorUnique(benchmark::State& s) { run_xtensor_unique<float>(s); }
}  // namespace

BENCHMARK(FewInt_Staticflow)->Unit(benchmark::kMillisecond);
BENCHMARK(FewInt_HandHashMap)->Unit(benchmark::kMillisecond);
BENCHMARK(FewInt_HandOpenTable)->Unit(benchmark::kMillisecond);
BENCHMARK(FewInt_XtensorUnique)->Unit(benchmark::kMillisecond);
BENCHMARK(ManyFloat_Staticflow)->Unit(benchmark::kMillisecond);
BENCHMARK(ManyFloat_HandHashMap)->Unit(benchmark::kMillisecond);
BENCHMARK(ManyFloat_HandOpenTable)->Unit(benchmark::kMillisecond);
BENCHMARK(ManyFloat_XtensorUnique)->Unit(benchmark::kMillisecond);
