// bench_conv3d -- sf::conv3d (backend/cpu/conv3d.hpp: the volume's depth windows as channels, then
// conv2d's implicit im2col into the blocked matmul kernel) against a hand 3-D im2col + Eigen GEMM
// and a hand-written direct loop, float32, NDHWC x DHWIO, SAME, 3x3x3 filters.
//
//   Video/...    a C3D-style layer: 1x8x56x56x64 -> 64
//   Medical/...  a 3-D U-Net-style layer: 1x32x32x32x16 -> 32
//
//   Staticflow        fn.call_into(y, x, k), the traced function, one thread (the default)
//   Staticflow2T      the same with sf::set_num_threads(2)
//   Gradient          value_and_grad with respect to image and filter of sum(conv3d(x, k) * m),
//                     one thread (its forward included: compare with 3x Staticflow)
//   Im2colEigen       a whole-volume im2col buffer (KD*KH*KW*C per output), one Eigen GEMM
//   HandLoop          the nested loops of the definition, output channels innermost
//
// Counter FLOPS = 2 * outputs * KD * KH * KW * C. Every variant is checked against a
// double-precision reference at sampled outputs after timing. When tensorflow-cpu is
// pip-installed, bench/conv3d.py times TF's Conv3D (oneDNN) on the same shapes.
#include <benchmark/benchmark.h>

#include <Eigen/Core>

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <random>
#include <vector>

#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

#include "bench_common.hpp"

namespace sf = staticflow;

namespace {

struct conv3d_case {
  std::size_t d, h, w, c, o;
  static constexpr std::size_t k = 3, pad = 1;  // 3x3x3, SAME
  double flops() const { return 2.0 * double(d * h * w * o) * double(k * k * k * c); }
};
constexpr conv3d_case video_case{8, 56, 56, 64, 64};
constexpr conv3d_case medical_case{32, 32, 32, 16, 32};

struct inputs {
  conv3d_case cc;
  xt::xtensor<float, 5> x, f, y, m;
  explicit inputs(const conv3d_case& c) : cc(c) {
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> u(-1, 1);
    x = xt::xtensor<float, 5>::from_shape({1, c.d, c.h, c.w, c.c});
    f = xt::xtensor<float, 5>::from_shape({c.k, c.k, c.k, c.c, c.o});
    y = xt::zeros<float>({std::size_t{1}, c.d, c.h, c.w, c.o});
    m = xt::xtensor<float, 5>::from_shape({1, c.d, c.h, c.w, c.o});
    for (auto& v : x) v = u(rng);
    for (auto& v : f) v = u(rng);
    for (auto& v : m) v = u(rng);
  }
  bool inside(long z, long i, long j) const {
    return z >= 0 && i >= 0 && j >= 0 && z < long(cc.d) && i < long(cc.h) && j < long(cc.w);
  }
  double reference(std::size_t z, std::size_t i, std::size_t j, std::size_t q) const {
    double acc = 0;
    for (std::size_t t = 0; t < cc.k; ++t)
      for (std::size_t u = 0; u < cc.k; ++u)
        for (std::size_t v = 0; v < cc.k; ++v) {
          const long iz = long(z + t) - 1, ih = long(i + u) - 1, iw = long(j + v) - 1;
          if (!inside(iz, ih, iw)) continue;
          for (std::size_t p = 0; p < cc.c; ++p)
            acc += double(x(0, std::size_t(iz), std::size_t(ih), std::size_t(iw), p)) * double(f(t, u, v, p, q));
        }
    return acc;
  }
  void check(benchmark::State& state, const float* out) const {
    std::mt19937 rng(9);
    for (int s = 0; s < 64; ++s) {
      const std::size_t z = rng() % cc.d, i = rng() % cc.h, j = rng() % cc.w, q = rng() % cc.o;
      const double want = reference(z, i, j, q), got = out[((z * cc.h + i) * cc.w + j) * cc.o + q];
      if (!(std::fabs(got - want) <= 1e-3 * (1 + std::fabs(want)))) {
        char msg[128];
        std::snprintf(msg, sizeof msg, "wrong output at (%zu, %zu, %zu, %zu): %g, expected %g", z, i, j, q, got, want);
        state.SkipWithError(msg);
        return;
      }
    }
  }
};

void report(benchmark::State& state, const conv3d_case& cc) {
  state.counters["FLOPS"] = benchmark::Counter(cc.flops() * double(state.iterations()), benchmark::Counter::kIsRate);
}

void run_staticflow(benchmark::State& state, const conv3d_case& cc, std::size_t threads) {
  inputs in(cc);
  auto fn = sf::function([](auto x, auto k) { return sf::conv3d(x, k, sf::padding::same); });
  const std::size_t saved = sf::num_threads();
  sf::set_num_threads(threads);
  fn.call_into(in.y, in.x, in.f);
  for (auto _ : state) {
    fn.call_into(in.y, in.x, in.f);
    benchmark::DoNotOptimize(in.y.data());
    benchmark::ClobberMemory();
  }
  sf::set_num_threads(saved);
  in.check(state, in.y.data());
  report(state, cc);
}

void run_gradient(benchmark::State& state, const conv3d_case& cc) {
  inputs in(cc);
  auto vg = sf::value_and_grad<0, 1>([](auto x, auto k, auto m) { return sf::reduce_sum(sf::conv3d(x, k, sf::padding::same) * m); });
  auto out = vg(in.x, in.f, in.m);
  for (auto _ : state) {
    out = vg(in.x, in.f, in.m);
    benchmark::DoNotOptimize(std::get<1>(out).data());
    benchmark::ClobberMemory();
  }
  // d loss / d m would be the forward: check the forward through the image gradient's shape and
  // one filter-gradient element against its definition
  double want = 0;
  for (std::size_t z = 0; z < cc.d; ++z)
    for (std::size_t i = 0; i < cc.h; ++i)
      for (std::size_t j = 0; j < cc.w; ++j)
        if (in.inside(long(z), long(i), long(j))) want += double(in.x(0, z, i, j, 0)) * double(in.m(0, z, i, j, 0));
  const double got = std::get<2>(out)(1, 1, 1, 0, 0);  // the centre tap: every output reads its own position
  if (!(std::fabs(got - want) <= 1e-3 * (1 + std::fabs(want)))) state.SkipWithError("wrong filter gradient");
  report(state, cc);
}

void run_im2col_eigen(benchmark::State& state, const conv3d_case& cc) {
  inputs in(cc);
  using row_major = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const std::size_t K = cc.k * cc.k * cc.k * cc.c, M = cc.d * cc.h * cc.w;
  std::vector<float> patches(M * K);
  for (auto _ : state) {
    for (std::size_t z = 0; z < cc.d; ++z)
      for (std::size_t i = 0; i < cc.h; ++i)
        for (std::size_t j = 0; j < cc.w; ++j) {
          float* dst = patches.data() + ((z * cc.h + i) * cc.w + j) * K;
          for (std::size_t t = 0; t < cc.k; ++t)
            for (std::size_t u = 0; u < cc.k; ++u)
              for (std::size_t v = 0; v < cc.k; ++v, dst += cc.c) {
                const long iz = long(z + t) - 1, ih = long(i + u) - 1, iw = long(j + v) - 1;
                if (!in.inside(iz, ih, iw)) std::fill_n(dst, cc.c, 0.f);
                else std::copy_n(&in.x(0, std::size_t(iz), std::size_t(ih), std::size_t(iw), 0), cc.c, dst);
              }
        }
    Eigen::Map<const row_major> p(patches.data(), long(M), long(K));
    Eigen::Map<const row_major> k(in.f.data(), long(K), long(cc.o));
    Eigen::Map<row_major> y(in.y.data(), long(M), long(cc.o));
    y.noalias() = p * k;
    benchmark::DoNotOptimize(in.y.data());
    benchmark::ClobberMemory();
  }
  in.check(state, in.y.data());
  report(state, cc);
}

void run_hand_loop(benchmark::State& state, const conv3d_case& cc) {
  inputs in(cc);
  for (auto _ : state) {
    for (std::size_t z = 0; z < cc.d; ++z)
      for (std::size_t i = 0; i < cc.h; ++i)
        for (std::size_t j = 0; j < cc.w; ++j) {
          float* yq = &in.y(0, z, i, j, 0);
          std::fill_n(yq, cc.o, 0.f);
          for (std::size_t t = 0; t < cc.k; ++t)
            for (std::size_t u = 0; u < cc.k; ++u)
              for (std::size_t v = 0; v < cc.k; ++v) {
                const long iz = long(z + t) - 1, ih = long(i + u) - 1, iw = long(j + v) - 1;
                if (!in.inside(iz, ih, iw)) continue;
                const float* xp = &in.x(0, std::size_t(iz), std::size_t(ih), std::size_t(iw), 0);
                const float* fp = &in.f(t, u, v, 0, 0);
                for (std::size_t p = 0; p < cc.c; ++p)
                  for (std::size_t q = 0; q < cc.o; ++q) yq[q] += xp[p] * fp[p * cc.o + q];
              }
        }
    benchmark::DoNotOptimize(in.y.data());
    benchmark::ClobberMemory();
  }
  in.check(state, in.y.data());
  report(state, cc);
}

void Video_Staticflow(benchmark::State& s) { run_staticflow(s, video_case, 1); }
void Video_Staticflow2T(benchmark::State& s) { run_staticflow(s, video_case, 2); }
void Video_Gradient(benchmark::State& s) { run_gradient(s, video_case); }
void Video_Im2colEigen(benchmark::State& s) { run_im2col_eigen(s, video_case); }
void Video_HandLoop(benchmark::State& s) { run_hand_loop(s, video_case); }
void Medical_Staticflow(benchmark::State& s) { run_staticflow(s, medical_case, 1); }
void Medical_Staticflow2T(benchmark::State& s) { run_staticflow(s, medical_case, 2); }
void Medical_Gradient(benchmark::State& s) { run_gradient(s, medical_case); }
void Medical_Im2colEigen(benchmark::State& s) { run_im2col_eigen(s, medical_case); }
void Medical_HandLoop(benchmark::State& s) { run_hand_loop(s, medical_case); }

}  // namespace

BENCHMARK(Video_Staticflow)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(Video_Staticflow2T)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(Video_Gradient)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(Video_Im2colEigen)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(Video_HandLoop)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(Medical_Staticflow)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(Medical_Staticflow2T)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(Medical_Gradient)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(Medical_Im2colEigen)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(Medical_HandLoop)->Unit(benchmark::kMillisecond)->UseRealTime();
