// bench/checkpoint.cpp -- sf::checkpoint write / restore against a hand-written raw dump (the
// floor: the same bytes, one file, flushed to disk and renamed) and xtensor's .npy support
// (xt::dump_npy / xt::load_npy, one file per variable, no fsync, no checksum). The NumPy anchor
// (np.savez / np.load of the same arrays) is bench/checkpoint.py.
//
// Two states: the 784-256-256-10 MLP of bench/training_step.cpp (6 variables, 1.07 MB) and one
// 64 MiB variable.
#include "bench_common.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <unistd.h>
#include <vector>

#include <xtensor/xnpy.hpp>

#include <staticflow/io/checkpoint.hpp>

namespace sf = staticflow;

namespace {
const std::string dir = (std::filesystem::temp_directory_path() / ("staticflow_bench_ckpt_" + std::to_string(::getpid()))).string();

struct mlp {
  sf::variable<float, 784, 256> w1{xt::ones<float>({784, 256})};
  sf::variable<float, 256> b1;
  sf::variable<float, 256, 256> w2{xt::ones<float>({256, 256})};
  sf::variable<float, 256> b2;
  sf::variable<float, 256, 10> w3{xt::ones<float>({256, 10})};
  sf::variable<float, 10> b3;
  template <class F>
  void each(F&& f) {
    f("w1", w1), f("b1", b1), f("w2", w2), f("b2", b2), f("w3", w3), f("b3", b3);
  }
};
struct big {
  sf::variable<float, sf::dyn> v{xt::xtensor<float, 1>(xt::ones<float>({std::size_t(16) << 20}))};
  template <class F>
  void each(F&& f) {
    f("v", v);
  }
};

template <class State>
State& state() {
  static auto s = [] {
    std::filesystem::create_directories(dir);
    return std::make_unique<State>();
  }();
  return *s;
}

template <class State>
std::int64_t state_bytes() {
  std::int64_t n = 0;
  state<State>().each([&](const char*, auto& var) { n += static_cast<std::int64_t>(var.bytes()); });
  return n;
}

template <class State>
void BM_checkpoint_write(benchmark::State& st) {
  sf::checkpoint ckpt;
  state<State>().each([&](const char* name, auto& var) { ckpt.track(name, var); });
  for (auto _ : st) ckpt.write(dir + "/ckpt.npz");
  st.SetBytesProcessed(st.iterations() * state_bytes<State>());
}

template <class State>
void BM_checkpoint_restore(benchmark::State& st) {
  sf::checkpoint ckpt;
  state<State>().each([&](const char* name, auto& var) { ckpt.track(name, var); });
  ckpt.write(dir + "/ckpt.npz");
  for (auto _ : st) benchmark::DoNotOptimize(ckpt.restore(dir + "/ckpt.npz"));
  st.SetBytesProcessed(st.iterations() * state_bytes<State>());
}

/// The floor: every variable's bytes into one file, fsync, rename; read back in place.
template <class State>
void BM_hand_write(benchmark::State& st) {
  for (auto _ : st) {
    std::FILE* f = std::fopen((dir + "/raw.partial").c_str(), "wb");
    state<State>().each([&](const char*, auto& var) { std::fwrite(var.raw_data(), 1, var.bytes(), f); });
    std::fflush(f);
    ::fsync(::fileno(f));
    std::fclose(f);
    std::rename((dir + "/raw.partial").c_str(), (dir + "/raw.bin").c_str());
  }
  st.SetBytesProcessed(st.iterations() * state_bytes<State>());
}

template <class State>
void BM_hand_read(benchmark::State& st) {
  {
    std::FILE* f = std::fopen((dir + "/raw.bin").c_str(), "wb");
    state<State>().each([&](const char*, auto& var) { std::fwrite(var.raw_data(), 1, var.bytes(), f); });
    std::fclose(f);
  }
  for (auto _ : st) {
    std::FILE* f = std::fopen((dir + "/raw.bin").c_str(), "rb");
    state<State>().each([&](const char*, auto& var) {
      std::fread(const_cast<void*>(var.raw_data()), 1, var.bytes(), f);  // the floor ignores locks and checks
    });
    std::fclose(f);
  }
  st.SetBytesProcessed(st.iterations() * state_bytes<State>());
}

/// xtensor's .npy files: one per variable (dump_npy writes through an ofstream, no fsync).
template <class State>
void BM_xtensor_dump_npy(benchmark::State& st) {
  for (auto _ : st)
    state<State>().each([&](const char* name, auto& var) { xt::dump_npy(dir + "/" + name + ".npy", var.value()); });
  st.SetBytesProcessed(st.iterations() * state_bytes<State>());
}

template <class State>
void BM_xtensor_load_npy(benchmark::State& st) {
  state<State>().each([&](const char* name, auto& var) { xt::dump_npy(dir + "/" + name + ".npy", var.value()); });
  for (auto _ : st)
    state<State>().each([&](const char* name, auto& var) {
      auto a = xt::load_npy<float>(dir + "/" + name + ".npy");
      var.assign(typename std::remove_cvref_t<decltype(var)>::container_type(a));
    });
  st.SetBytesProcessed(st.iterations() * state_bytes<State>());
}

struct cleanup {
  ~cleanup() { std::filesystem::remove_all(dir); }
} at_exit;
}  // namespace

BENCHMARK(BM_checkpoint_write<mlp>)->Name("write/mlp_1MB/sf_checkpoint")->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(BM_hand_write<mlp>)->Name("write/mlp_1MB/hand_raw_fsync")->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(BM_xtensor_dump_npy<mlp>)->Name("write/mlp_1MB/xtensor_dump_npy")->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(BM_checkpoint_restore<mlp>)->Name("restore/mlp_1MB/sf_checkpoint")->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(BM_hand_read<mlp>)->Name("restore/mlp_1MB/hand_raw")->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(BM_xtensor_load_npy<mlp>)->Name("restore/mlp_1MB/xtensor_load_npy")->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(BM_checkpoint_write<big>)->Name("write/one_64MB/sf_checkpoint")->Unit(benchmark::kMillisecond)->Apply(sf_bench::add_min);
BENCHMARK(BM_hand_write<big>)->Name("write/one_64MB/hand_raw_fsync")->Unit(benchmark::kMillisecond)->Apply(sf_bench::add_min);
BENCHMARK(BM_xtensor_dump_npy<big>)->Name("write/one_64MB/xtensor_dump_npy")->Unit(benchmark::kMillisecond)->Apply(sf_bench::add_min);
BENCHMARK(BM_checkpoint_restore<big>)->Name("restore/one_64MB/sf_checkpoint")->Unit(benchmark::kMillisecond)->Apply(sf_bench::add_min);
BENCHMARK(BM_hand_read<big>)->Name("restore/one_64MB/hand_raw")->Unit(benchmark::kMillisecond)->Apply(sf_bench::add_min);
BENCHMARK(BM_xtensor_load_npy<big>)->Name("restore/one_64MB/xtensor_load_npy")->Unit(benchmark::kMillisecond)->Apply(sf_bench::add_min);
