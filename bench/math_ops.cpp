// bench_math_ops -- the math functions of graph/math.hpp (issue 20's target: a transcendental op
// within 1.1x a hand-written xsimd loop), float32, out = f(x) written into a preallocated array.
//
// Functions: sin, erf, softplus (a single op), gelu (exact: x * (erf(x / sqrt 2) + 1) * 0.5, a
// fused composite of five ops), rint (round half to even); then cos, atan, tanh, expm1, exp2,
// erfc and log1p(|x|) (Eigen has no exp2: its row is exp(x ln 2); asinh is left out: xtensor's
// xsimd asinh does not compile unoptimized on AVX-512BW, which the benchmarks' syntax check is).
// Methods, each on the same input values:
//   Staticflow   sf::function(f).call_into(out, x)   (default CPU backend, fused xsimd loop)
//   HandXsimd    a hand-written loop of xsimd batches with xsimd's function and a scalar tail
//   HandScalar   a plain loop calling the C library (std::sin, ...), which GCC does not vectorize
//   Xtensor      xt::noalias(out) = the xtensor expression (xtensor 0.24 built without
//                XTENSOR_USE_XSIMD, as Debian ships it: scalar libm calls)
//   EigenArray   the Eigen array expression (Eigen vectorizes sin, erf, exp, log1p itself)
// Sizes: 1M elements (4 MB per array: L3 / memory) and 4096 (in L1/L2: the loop code).
#include <benchmark/benchmark.h>

#include <Eigen/Core>
#include <unsupported/Eigen/SpecialFunctions>
#include <xsimd/xsimd.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xnoalias.hpp>
#include <xtensor/xtensor.hpp>

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <random>

#include <staticflow/staticflow.hpp>

#include "bench_common.hpp"

namespace sf = staticflow;

namespace {
using tensor = xt::xtensor<float, 1>;
using batch = xsimd::batch<float, sf::cpu::detail::simd_arch>;  // (staticflow's: AVX2 without optimization, where xsimd 8.1's AVX-512BW asinh does not compile)

struct data_set {
  tensor x, out;
  Eigen::ArrayXf ex, eout;
  explicit data_set(std::size_t n) : x(tensor::from_shape({n})), out(tensor::from_shape({n})), ex(n), eout(n) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> d(-4.f, 4.f);
    for (std::size_t i = 0; i < n; ++i) ex[static_cast<Eigen::Index>(i)] = x[i] = d(rng);
  }
};
data_set& data(std::size_t n) {
  static data_set large(std::size_t{1} << 20), small(4096);
  return n == 4096 ? small : large;
}

// One struct per function: the traced lambda, the batch and scalar forms, xtensor's and Eigen's.
struct sin_fn {
  static auto traced(auto x) { return sf::sin(x); }
  static batch simd(const batch& x) { return xsimd::sin(x); }
  static float scalar(float x) { return std::sin(x); }
  static auto xt(const tensor& x) { return xt::sin(x); }
  static auto eigen(const Eigen::ArrayXf& x) { return x.sin(); }
};
struct erf_fn {
  static auto traced(auto x) { return sf::erf(x); }
  static batch simd(const batch& x) { return xsimd::erf(x); }
  static float scalar(float x) { return std::erf(x); }
  static auto xt(const tensor& x) { return xt::erf(x); }
  static auto eigen(const Eigen::ArrayXf& x) { return x.erf(); }
};
struct softplus_fn {
  static auto traced(auto x) { return sf::softplus(x); }
  static batch simd(const batch& x) {
    return xsimd::select(x > batch(0.f), x, batch(0.f)) + xsimd::log1p(xsimd::exp(-xsimd::abs(x)));
  }
  static float scalar(float x) { return (x > 0.f ? x : 0.f) + std::log1p(std::exp(-std::fabs(x))); }
  static auto xt(const tensor& x) { return xt::maximum(x, 0.f) + xt::log1p(xt::exp(-xt::abs(x))); }
  static auto eigen(const Eigen::ArrayXf& x) { return x.max(0.f) + (-x.abs()).exp().log1p(); }
};
struct gelu_fn {
  static auto traced(auto x) { return sf::gelu(x); }
  static batch simd(const batch& x) { return x * (xsimd::erf(x * batch(0.70710678f)) + batch(1.f)) * batch(0.5f); }
  static float scalar(float x) { return x * (std::erf(x * 0.70710678f) + 1.f) * 0.5f; }
  static auto xt(const tensor& x) { return x * (xt::erf(x * 0.70710678f) + 1.f) * 0.5f; }
  static auto eigen(const Eigen::ArrayXf& x) { return x * ((x * 0.70710678f).erf() + 1.f) * 0.5f; }
};
struct rint_fn {
  static auto traced(auto x) { return sf::rint(x); }
  static batch simd(const batch& x) { return xsimd::nearbyint(x); }
  static float scalar(float x) { return std::nearbyint(x); }
  static auto xt(const tensor& x) { return xt::nearbyint(x); }
  static auto eigen(const Eigen::ArrayXf& x) { return x.rint(); }
};

// The other transcendental functions of the table (item 10 asks it of every one): each against
// the same hand loop of its xsimd function.
#define STATICFLOW_XSIMD_FN(NAME, SF, XS, STD, XT, EIGEN)                             \
  struct NAME {                                                                        \
    static auto traced(auto x) { return SF; }                                          \
    static batch simd(const batch& x) { return XS; }                                   \
    static float scalar(float x) { return STD; }                                       \
    static auto xt(const tensor& x) { return XT; }                                     \
    static auto eigen(const Eigen::ArrayXf& x) { return EIGEN; }                       \
  };
STATICFLOW_XSIMD_FN(cos_fn, sf::cos(x), xsimd::cos(x), std::cos(x), xt::cos(x), x.cos())
STATICFLOW_XSIMD_FN(atan_fn, sf::atan(x), xsimd::atan(x), std::atan(x), xt::atan(x), x.atan())
STATICFLOW_XSIMD_FN(tanh_fn, sf::tanh(x), xsimd::tanh(x), std::tanh(x), xt::tanh(x), x.tanh())
STATICFLOW_XSIMD_FN(expm1_fn, sf::expm1(x), xsimd::expm1(x), std::expm1(x), xt::expm1(x), x.expm1())
STATICFLOW_XSIMD_FN(exp2_fn, sf::exp2(x), xsimd::exp2(x), std::exp2(x), xt::exp2(x), (x * 0.69314718f).exp())
STATICFLOW_XSIMD_FN(erfc_fn, sf::erfc(x), xsimd::erfc(x), std::erfc(x), xt::erfc(x), x.erfc())
STATICFLOW_XSIMD_FN(log1p_abs_fn, sf::log1p(sf::abs(x)), xsimd::log1p(xsimd::abs(x)), std::log1p(std::fabs(x)),
                    xt::log1p(xt::abs(x)), x.abs().log1p())
#undef STATICFLOW_XSIMD_FN

template <class F>
void check(const char* method, const tensor& out, const tensor& x) {
  for (std::size_t i = 0; i < x.size(); i += 997)
    if (std::fabs(out[i] - F::scalar(x[i])) > 1e-5f * std::max(1.f, std::fabs(F::scalar(x[i])))) {
      std::fprintf(stderr, "%s: wrong value at %zu: %g, want %g\n", method, i, double(out[i]), double(F::scalar(x[i])));
      std::exit(1);
    }
}

template <class F>
void Staticflow(benchmark::State& state) {
  auto& d = data(static_cast<std::size_t>(state.range(0)));
  auto f = sf::function([](auto x) { return F::traced(x); });
  f.call_into(d.out, d.x);
  for (auto _ : state) {
    f.call_into(d.out, d.x);
    benchmark::DoNotOptimize(d.out.data());
  }
  check<F>("Staticflow", d.out, d.x);
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

template <class F>
void HandXsimd(benchmark::State& state) {
  auto& d = data(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    const float* __restrict x = d.x.data();
    float* __restrict out = d.out.data();
    const std::size_t n = d.x.size(), vec = n - n % batch::size;
    std::size_t i = 0;
    for (; i < vec; i += batch::size) F::simd(batch::load_unaligned(x + i)).store_unaligned(out + i);
    for (; i < n; ++i) out[i] = F::scalar(x[i]);
    benchmark::DoNotOptimize(d.out.data());
  }
  check<F>("HandXsimd", d.out, d.x);
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

template <class F>
void HandScalar(benchmark::State& state) {
  auto& d = data(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    const float* __restrict x = d.x.data();
    float* __restrict out = d.out.data();
    for (std::size_t i = 0, n = d.x.size(); i < n; ++i) out[i] = F::scalar(x[i]);
    benchmark::DoNotOptimize(d.out.data());
  }
  check<F>("HandScalar", d.out, d.x);
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

template <class F>
void Xtensor(benchmark::State& state) {
  auto& d = data(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    xt::noalias(d.out) = F::xt(d.x);
    benchmark::DoNotOptimize(d.out.data());
  }
  check<F>("Xtensor", d.out, d.x);
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

template <class F>
void EigenArray(benchmark::State& state) {
  auto& d = data(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    d.eout = F::eigen(d.ex);
    benchmark::DoNotOptimize(d.eout.data());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

#define STATICFLOW_MATH_BENCH(FN)                                                                  \
  BENCHMARK_TEMPLATE(Staticflow, FN)->Arg(1 << 20)->Arg(4096)->Apply(sf_bench::add_min);          \
  BENCHMARK_TEMPLATE(HandXsimd, FN)->Arg(1 << 20)->Arg(4096)->Apply(sf_bench::add_min);           \
  BENCHMARK_TEMPLATE(HandScalar, FN)->Arg(1 << 20)->Arg(4096)->Apply(sf_bench::add_min);          \
  BENCHMARK_TEMPLATE(Xtensor, FN)->Arg(1 << 20)->Arg(4096)->Apply(sf_bench::add_min);             \
  BENCHMARK_TEMPLATE(EigenArray, FN)->Arg(1 << 20)->Arg(4096)->Apply(sf_bench::add_min);
STATICFLOW_MATH_BENCH(sin_fn)
STATICFLOW_MATH_BENCH(erf_fn)
STATICFLOW_MATH_BENCH(softplus_fn)
STATICFLOW_MATH_BENCH(gelu_fn)
STATICFLOW_MATH_BENCH(rint_fn)
STATICFLOW_MATH_BENCH(cos_fn)
STATICFLOW_MATH_BENCH(atan_fn)
STATICFLOW_MATH_BENCH(tanh_fn)
STATICFLOW_MATH_BENCH(expm1_fn)
STATICFLOW_MATH_BENCH(exp2_fn)
STATICFLOW_MATH_BENCH(erfc_fn)
STATICFLOW_MATH_BENCH(log1p_abs_fn)
#undef STATICFLOW_MATH_BENCH

}  // namespace
