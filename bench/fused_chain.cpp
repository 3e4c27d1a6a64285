// bench_fused_chain -- benchmark (a): one fused elementwise chain over large float32 arrays.
//
//   out = (a*b + c*d - a/(b+1)) * 0.5
//
// The four inputs are filled once with the same values in two sets of buffers: xt::xtensor<float, 1>
// arrays (used by every method unless its name says otherwise) and Eigen::ArrayXf copies. Every
// method writes a preallocated output, so only the loop (and the call around it) is timed. Bytes
// processed are 5 arrays * 4 bytes * n (four reads, one write; the output's write-allocate
// traffic is not counted). A few outputs are checked against a scalar reference after timing.
//
// Methods on the xtensor buffers:
//   StaticflowFused     sf::function(chain).call_into(out, a, b, c, d)   (default CPU backend)
//   StaticflowConcrete  the concrete function's call_into (no signature lookup)
//   HandXsimd           hand-written xsimd loop: __restrict pointers, 4x unrolled batches, vector
//                       remainder, scalar tail (the loop staticflow aims to generate)
//   HandScalar          plain scalar loop over __restrict pointers (GCC auto-vectorizes it)
//   EigenMap            the Eigen expression over Eigen::Map views of these buffers
//   XtensorLazy         xt::noalias(out) = lazy xtensor expression
//   StaticflowEager     sf::backend::eager: the same kernels op by op, one temporary per node
//   StaticflowOneElementD / HandXsimdOneElementD   the chain with d a run-time tensor of one
//                       element that broadcasts (3 reads, 1 write), against the hand loop with d
//                       in a register
//   RooflineSum4        out = a + b + c + d: the same 4-read/1-write traffic with trivial
//                       arithmetic, i.e. the memory-bandwidth bound for this kernel
//   RooflineMemcpy      std::copy of one array (2 arrays of traffic per element)
// Methods on the Eigen buffers (same values, other addresses; compare them with each other):
//   EigenArray          out = (a*b + c*d - a/(b+1)) * 0.5f on Eigen::ArrayXf, out preallocated
//                       (array assignment is coefficient-wise and never makes a temporary; Eigen's
//                       noalias() exists only for matrix products)
//   StaticflowOnEigenBuffers  staticflow call_into over xt::adapt views of the Eigen arrays
//   HandXsimdOnEigenBuffers   the hand-written xsimd loop on the Eigen arrays
// At cache-resident sizes the buffers' relative addresses (4K aliasing between loads and stores)
// can move times by more than the code does, hence the two sets.
//
// Three sizes: 16M elements (5 x 64 MB, memory-bound: the case the targets are stated for), 4096
// elements (80 KB, L2-resident: loop code rather than DRAM) and 64 elements (one unrolled
// iteration of 4 AVX-512 batches: mostly the fixed cost of a call).
#include <benchmark/benchmark.h>

#include <Eigen/Core>
#include <xsimd/xsimd.hpp>
#include <xtensor/xadapt.hpp>
#include <xtensor/xnoalias.hpp>
#include <xtensor/xtensor.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>

#include <staticflow/staticflow.hpp>

#include "bench_common.hpp"

namespace sf = staticflow;

namespace {

constexpr std::size_t kLarge = std::size_t{1} << 24;  // 16M floats
constexpr std::size_t kSmall = 4096;                   // in cache
constexpr std::size_t kTiny = 64;                      // one unrolled AVX-512 iteration: per-call cost

using tensor = xt::xtensor<float, 1>;

struct data_set {
  tensor a, b, c, d, out;
  Eigen::ArrayXf ea, eb, ec, ed, eout;

  explicit data_set(std::size_t n)
      : a(tensor::from_shape({n})), b(tensor::from_shape({n})), c(tensor::from_shape({n})),
        d(tensor::from_shape({n})), out(tensor::from_shape({n})), ea(n), eb(n), ec(n), ed(n), eout(n) {
    std::mt19937 rng(42);
    std::uniform_real_distribution<float> dist(0.5f, 2.0f);  // b + 1 never near 0
    for (std::size_t i = 0; i < n; ++i) {
      a[i] = dist(rng);
      b[i] = dist(rng);
      c[i] = dist(rng);
      d[i] = dist(rng);
    }
    std::copy(a.begin(), a.end(), ea.data());
    std::copy(b.begin(), b.end(), eb.data());
    std::copy(c.begin(), c.end(), ec.data());
    std::copy(d.begin(), d.end(), ed.data());
    std::fill(out.begin(), out.end(), 0.f);  // fault the output pages in before timing
    eout.setZero();
  }
};

// One data set per size, built on first use and shared by every method.
data_set& data(std::size_t n) {
  static std::map<std::size_t, std::unique_ptr<data_set>> sets;
  auto& p = sets[n];
  if (!p) p = std::make_unique<data_set>(n);
  return *p;
}

float reference(const data_set& s, std::size_t i, const float* one_d) {
  const float a = s.a[i], b = s.b[i], c = s.c[i], d = one_d ? *one_d : s.d[i];
  return (a * b + c * d - a / (b + 1.f)) * 0.5f;
}

// A cheap correctness check after timing: a wrong kernel must not produce a nice number. one_d:
// d's one element, when d broadcasts.
template <class Out>
void check(benchmark::State& state, const data_set& s, const Out& out, const float* one_d = nullptr) {
  const std::size_t n = s.a.size();
  for (std::size_t i : {std::size_t{0}, std::size_t{1}, n / 3, n / 2 + 7, n - 2, n - 1}) {
    const float want = reference(s, i, one_d), got = out[i];
    if (!(std::fabs(got - want) <= 1e-5f * std::fabs(want) + 1e-6f)) {
      char msg[128];
      std::snprintf(msg, sizeof msg, "mismatch at %zu: got %g, want %g", i, got, want);
      state.SkipWithError(msg);
      return;
    }
  }
}

void set_counters(benchmark::State& state, std::size_t arrays) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(arrays * sizeof(float) * static_cast<std::size_t>(state.range(0))));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}

auto chain = [](auto a, auto b, auto c, auto d) { return (a * b + c * d - a / (b + 1.f)) * 0.5f; };

// ---------------------------------------------------------------------------------------------
void StaticflowFused(benchmark::State& state) {
  auto& s = data(static_cast<std::size_t>(state.range(0)));
  auto f = sf::function(chain);
  f.call_into(s.out, s.a, s.b, s.c, s.d);  // trace outside the timed loop
  for (auto _ : state) {
    f.call_into(s.out, s.a, s.b, s.c, s.d);
    benchmark::ClobberMemory();
  }
  set_counters(state, 5);
  check(state, s, s.out);
}

void StaticflowConcrete(benchmark::State& state) {
  auto& s = data(static_cast<std::size_t>(state.range(0)));
  auto f = sf::function(chain);
  auto& cf = f.get_concrete_function(s.a, s.b, s.c, s.d);
  for (auto _ : state) {
    cf.call_into(s.out, s.a, s.b, s.c, s.d);
    benchmark::ClobberMemory();
  }
  set_counters(state, 5);
  check(state, s, s.out);
}

void StaticflowEager(benchmark::State& state) {
  auto& s = data(static_cast<std::size_t>(state.range(0)));
  auto f = sf::function(chain, sf::backend::eager);
  f.call_into(s.out, s.a, s.b, s.c, s.d);
  for (auto _ : state) {
    f.call_into(s.out, s.a, s.b, s.c, s.d);
    benchmark::ClobberMemory();
  }
  set_counters(state, 5);
  check(state, s, s.out);
}

// d of one element: a run-time extent of 1 that broadcasts over the others' (backend/cpu/kernel.hpp's
// run_flat_spread: the flat loop in chunks, d read from a chunk of copies of its value)
void StaticflowOneElementD(benchmark::State& state) {
  auto& s = data(static_cast<std::size_t>(state.range(0)));
  auto f = sf::function(chain);
  const tensor d = {s.d[0]};
  f.call_into(s.out, s.a, s.b, s.c, d);
  for (auto _ : state) {
    f.call_into(s.out, s.a, s.b, s.c, d);
    benchmark::ClobberMemory();
  }
  set_counters(state, 4);
  check(state, s, s.out, d.data());
}

// ---------------------------------------------------------------------------------------------
[[gnu::noinline]] void hand_xsimd(const float* __restrict pa, const float* __restrict pb,
                                  const float* __restrict pc, const float* __restrict pd,
                                  float* __restrict po, std::size_t n) {
  using B = xsimd::batch<float>;
  constexpr std::size_t W = B::size;
  const B one(1.f), half(0.5f);
  auto at = [&](std::size_t j) {
    const B a = B::load_unaligned(pa + j), b = B::load_unaligned(pb + j);
    const B c = B::load_unaligned(pc + j), d = B::load_unaligned(pd + j);
    return (a * b + c * d - a / (b + one)) * half;
  };
  std::size_t j = 0;
  for (; j + 4 * W <= n; j += 4 * W) {
    const B v0 = at(j), v1 = at(j + W), v2 = at(j + 2 * W), v3 = at(j + 3 * W);
    v0.store_unaligned(po + j);
    v1.store_unaligned(po + j + W);
    v2.store_unaligned(po + j + 2 * W);
    v3.store_unaligned(po + j + 3 * W);
  }
  for (; j + W <= n; j += W) at(j).store_unaligned(po + j);
  for (; j < n; ++j) po[j] = (pa[j] * pb[j] + pc[j] * pd[j] - pa[j] / (pb[j] + 1.f)) * 0.5f;
}

void HandXsimd(benchmark::State& state) {
  auto& s = data(static_cast<std::size_t>(state.range(0)));
  const std::size_t n = s.a.size();
  for (auto _ : state) {
    hand_xsimd(s.a.data(), s.b.data(), s.c.data(), s.d.data(), s.out.data(), n);
    benchmark::ClobberMemory();
  }
  set_counters(state, 5);
  check(state, s, s.out);
}

[[gnu::noinline]] void hand_xsimd_one_d(const float* __restrict pa, const float* __restrict pb,
                                        const float* __restrict pc, float dv, float* __restrict po, std::size_t n) {
  using B = xsimd::batch<float>;
  constexpr std::size_t W = B::size;
  const B one(1.f), half(0.5f), d(dv);
  auto at = [&](std::size_t j) {
    const B a = B::load_unaligned(pa + j), b = B::load_unaligned(pb + j), c = B::load_unaligned(pc + j);
    return (a * b + c * d - a / (b + one)) * half;
  };
  std::size_t j = 0;
  for (; j + 4 * W <= n; j += 4 * W) {
    const B v0 = at(j), v1 = at(j + W), v2 = at(j + 2 * W), v3 = at(j + 3 * W);
    v0.store_unaligned(po + j);
    v1.store_unaligned(po + j + W);
    v2.store_unaligned(po + j + 2 * W);
    v3.store_unaligned(po + j + 3 * W);
  }
  for (; j + W <= n; j += W) at(j).store_unaligned(po + j);
  for (; j < n; ++j) po[j] = (pa[j] * pb[j] + pc[j] * dv - pa[j] / (pb[j] + 1.f)) * 0.5f;
}

void HandXsimdOneElementD(benchmark::State& state) {
  auto& s = data(static_cast<std::size_t>(state.range(0)));
  const float dv = s.d[0];
  for (auto _ : state) {
    hand_xsimd_one_d(s.a.data(), s.b.data(), s.c.data(), dv, s.out.data(), s.a.size());
    benchmark::ClobberMemory();
  }
  set_counters(state, 4);
  check(state, s, s.out, &dv);
}

[[gnu::noinline]] void hand_scalar(const float* __restrict pa, const float* __restrict pb,
                                   const float* __restrict pc, const float* __restrict pd,
                                   float* __restrict po, std::size_t n) {
  for (std::size_t j = 0; j < n; ++j) po[j] = (pa[j] * pb[j] + pc[j] * pd[j] - pa[j] / (pb[j] + 1.f)) * 0.5f;
}

void HandScalar(benchmark::State& state) {
  auto& s = data(static_cast<std::size_t>(state.range(0)));
  const std::size_t n = s.a.size();
  for (auto _ : state) {
    hand_scalar(s.a.data(), s.b.data(), s.c.data(), s.d.data(), s.out.data(), n);
    benchmark::ClobberMemory();
  }
  set_counters(state, 5);
  check(state, s, s.out);
}

// ---------------------------------------------------------------------------------------------
void EigenArray(benchmark::State& state) {
  auto& s = data(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    s.eout = (s.ea * s.eb + s.ec * s.ed - s.ea / (s.eb + 1.f)) * 0.5f;
    benchmark::ClobberMemory();
  }
  set_counters(state, 5);
  check(state, s, s.eout);
}

void EigenMap(benchmark::State& state) {
  auto& s = data(static_cast<std::size_t>(state.range(0)));
  const auto n = static_cast<Eigen::Index>(s.a.size());
  using in_map = Eigen::Map<const Eigen::ArrayXf>;
  const in_map a(s.a.data(), n), b(s.b.data(), n), c(s.c.data(), n), d(s.d.data(), n);
  Eigen::Map<Eigen::ArrayXf> out(s.out.data(), n);
  for (auto _ : state) {
    out = (a * b + c * d - a / (b + 1.f)) * 0.5f;
    benchmark::ClobberMemory();
  }
  set_counters(state, 5);
  check(state, s, s.out);
}

void StaticflowOnEigenBuffers(benchmark::State& state) {
  auto& s = data(static_cast<std::size_t>(state.range(0)));
  const std::array<std::size_t, 1> shape{s.a.size()};
  auto view = [&](auto& arr) { return xt::adapt(arr.data(), s.a.size(), xt::no_ownership(), shape); };
  auto a = view(s.ea), b = view(s.eb), c = view(s.ec), d = view(s.ed), out = view(s.eout);
  auto f = sf::function(chain);
  f.call_into(out, a, b, c, d);
  for (auto _ : state) {
    f.call_into(out, a, b, c, d);
    benchmark::ClobberMemory();
  }
  set_counters(state, 5);
  check(state, s, s.eout);
}

void XtensorLazy(benchmark::State& state) {
  auto& s = data(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    xt::noalias(s.out) = (s.a * s.b + s.c * s.d - s.a / (s.b + 1.f)) * 0.5f;
    benchmark::ClobberMemory();
  }
  set_counters(state, 5);
  check(state, s, s.out);
}

// ---------------------------------------------------------------------------------------------
void HandXsimdOnEigenBuffers(benchmark::State& state) {
  auto& s = data(static_cast<std::size_t>(state.range(0)));
  const std::size_t n = s.a.size();
  for (auto _ : state) {
    hand_xsimd(s.ea.data(), s.eb.data(), s.ec.data(), s.ed.data(), s.eout.data(), n);
    benchmark::ClobberMemory();
  }
  set_counters(state, 5);
  check(state, s, s.eout);
}

void RooflineMemcpy(benchmark::State& state) {
  auto& s = data(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    std::copy(s.a.data(), s.a.data() + s.a.size(), s.out.data());
    benchmark::ClobberMemory();
  }
  set_counters(state, 2);
}

[[gnu::noinline]] void sum4(const float* __restrict pa, const float* __restrict pb, const float* __restrict pc,
                            const float* __restrict pd, float* __restrict po, std::size_t n) {
  for (std::size_t j = 0; j < n; ++j) po[j] = pa[j] + pb[j] + pc[j] + pd[j];
}

void RooflineSum4(benchmark::State& state) {
  auto& s = data(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    sum4(s.a.data(), s.b.data(), s.c.data(), s.d.data(), s.out.data(), s.a.size());
    benchmark::ClobberMemory();
  }
  set_counters(state, 5);
}

void sizes(benchmark::internal::Benchmark* b) {
  b->Arg(static_cast<int64_t>(kLarge))->Arg(static_cast<int64_t>(kSmall))->Arg(static_cast<int64_t>(kTiny));
  b->Unit(benchmark::kMicrosecond);
  sf_bench::add_min(b);
}

}  // namespace

BENCHMARK(HandXsimd)->Apply(sizes);
BENCHMARK(StaticflowFused)->Apply(sizes);
BENCHMARK(StaticflowConcrete)->Apply(sizes);
BENCHMARK(EigenArray)->Apply(sizes);
BENCHMARK(EigenMap)->Apply(sizes);
BENCHMARK(StaticflowOnEigenBuffers)->Apply(sizes);
BENCHMARK(HandXsimdOnEigenBuffers)->Apply(sizes);
BENCHMARK(XtensorLazy)->Apply(sizes);
BENCHMARK(HandScalar)->Apply(sizes);
BENCHMARK(StaticflowEager)->Apply(sizes);
BENCHMARK(StaticflowOneElementD)->Apply(sizes);
BENCHMARK(HandXsimdOneElementD)->Apply(sizes);
BENCHMARK(RooflineSum4)->Apply(sizes);
BENCHMARK(RooflineMemcpy)->Apply(sizes);
