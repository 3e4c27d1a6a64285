// bench_conv -- sf::conv2d (backend/cpu/conv.hpp: implicit im2col into the blocked matmul kernel)
// against a hand im2col + Eigen GEMM and a hand-written direct loop, float32, NHWC x HWIO.
//
//   Seed/...     the seed's conv_fn: Conv2D(100, 3) on a 1x200x200x100 image, VALID
//   ResNet/...   a ResNet-style 3x3 conv, 1x56x56x64 -> 64, SAME
//   Dilated/...  the same with dilations 2 (DeepLab's atrous 3x3), SAME
//   Grouped/...  ResNeXt-50's grouped 3x3, 1x56x56x128 -> 128 in 32 groups of 4 channels, SAME
//   Small/...    a late ResNet stage's 3x3 at a small size, 1x14x14x64 -> 64, SAME (14 MFLOP:
//                where a framework's per-call cost is a large part of the time)
//   SeedLayer/... and ResNetLayer/...: relu(conv2d(x, k) + b), the seed's and ResNet's shapes
//
//   Fused             the layer's bias and relu done by the convolution's kernel on each tile it
//                     finishes (plan/epilogues.hpp)
//   Apart             the same function with sf::materialize(conv2d(...)): a second pass, as
//                     before the epilogue
//   Im2colEigen       (layers) the GEMM below, then Eigen's rowwise bias add and max with 0
//
//   Staticflow        fn.call_into(y, x, k), the traced function, one thread (the default)
//   Staticflow2T      the same with sf::set_num_threads(2)
//   StaticflowEager   the same function under sf::run_functions_eagerly(true) (the seed times
//                     its layer eagerly and as a function)
//   Gradient          value_and_grad with respect to image and filter of sum(conv2d(x, k) * m)
//                     (seed and ResNet shapes; FLOPS counts the forward pass only)
//   Im2colEigen       a whole-image im2col buffer, then one Eigen GEMM (single-threaded Eigen:
//                     built without OpenMP); per group for Grouped (Eigen maps of the group's
//                     filter and output columns)
//   HandLoop          the seven nested loops of the definition, channels innermost (not for the
//                     seed: its conv takes seconds this way)
//
// Counter FLOPS = 2 * outputs * KH * KW * C / groups. Every variant is checked against a double-precision
// reference at sampled outputs after timing. When tensorflow-cpu is pip-installed, run
// bench/conv.py for TF's Conv2D (oneDNN) on the same shapes.
#include <benchmark/benchmark.h>

#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <random>
#include <vector>

#include <xtensor/xadapt.hpp>
#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

#include "bench_common.hpp"

namespace sf = staticflow;

namespace {

struct conv_case {
  std::size_t h, w, c, k, o;
  bool same;
  std::size_t dilation = 1, groups = 1;
  std::size_t span() const { return (k - 1) * dilation + 1; }  // the input extent a window covers
  std::size_t oh() const { return same ? h : h - span() + 1; }
  std::size_t ow() const { return same ? w : w - span() + 1; }
  std::size_t pad() const { return same ? (span() - 1) / 2 : 0; }
  std::size_t cg() const { return c / groups; }  // channels (and filter in_channels) per group
  std::size_t og() const { return o / groups; }
  double flops() const { return 2.0 * double(oh() * ow() * o) * double(k * k * cg()); }
};
constexpr conv_case seed_case{200, 200, 100, 3, 100, false};
constexpr conv_case resnet_case{56, 56, 64, 3, 64, true};
constexpr conv_case dilated_case{56, 56, 64, 3, 64, true, 2, 1};
constexpr conv_case grouped_case{56, 56, 128, 3, 128, true, 1, 32};
constexpr conv_case small_case{14, 14, 64, 3, 64, true};  // 14 MFLOP: where a call's fixed cost shows

struct inputs {
  conv_case cc;
  xt::xtensor<float, 4> x, f, y;
  explicit inputs(const conv_case& c) : cc(c) {
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> u(-1, 1);
    x = xt::xtensor<float, 4>::from_shape({1, c.h, c.w, c.c});
    f = xt::xtensor<float, 4>::from_shape({c.k, c.k, c.cg(), c.o});
    y = xt::zeros<float>({std::size_t{1}, c.oh(), c.ow(), c.o});
    for (auto& v : x) v = u(rng);
    for (auto& v : f) v = u(rng);
  }
  double reference(std::size_t i, std::size_t j, std::size_t q) const {
    double acc = 0;
    for (std::size_t u = 0; u < cc.k; ++u)
      for (std::size_t v = 0; v < cc.k; ++v) {
        const long ih = long(i + u * cc.dilation) - long(cc.pad()), iw = long(j + v * cc.dilation) - long(cc.pad());
        if (ih < 0 || iw < 0 || ih >= long(cc.h) || iw >= long(cc.w)) continue;
        for (std::size_t p = 0; p < cc.cg(); ++p)
          acc += double(x(0, std::size_t(ih), std::size_t(iw), q / cc.og() * cc.cg() + p)) * double(f(u, v, p, q));
      }
    return acc;
  }
  void check(benchmark::State& state, const float* out) const {
    std::mt19937 rng(9);
    for (int s = 0; s < 64; ++s) {
      const std::size_t i = rng() % cc.oh(), j = rng() % cc.ow(), q = rng() % cc.o;
      const double want = reference(i, j, q), got = out[(i * cc.ow() + j) * cc.o + q];
      if (!(std::fabs(got - want) <= 1e-3 * (1 + std::fabs(want)))) {
        char msg[128];
        std::snprintf(msg, sizeof msg, "wrong output at (%zu, %zu, %zu): %g, expected %g", i, j, q, got, want);
        state.SkipWithError(msg);
        return;
      }
    }
  }
};

void report(benchmark::State& state, const conv_case& cc) {
  state.counters["FLOPS"] = benchmark::Counter(cc.flops() * double(state.iterations()), benchmark::Counter::kIsRate);
}

template <bool Same, std::size_t Dilation>
auto conv_function() {
  if constexpr (Same) return sf::function([](auto x, auto k) { return sf::conv2d(x, k, sf::padding::same, sf::dilations<Dilation>); });
  else return sf::function([](auto x, auto k) { return sf::conv2d(x, k, sf::dilations<Dilation>); });
}

template <bool Same, std::size_t Dilation = 1>
void run_staticflow(benchmark::State& state, const conv_case& cc, std::size_t threads, bool eager) {
  inputs in(cc);
  auto fn = conv_function<Same, Dilation>();
  const std::size_t saved = sf::num_threads();
  sf::set_num_threads(threads);
  sf::run_functions_eagerly(eager);
  fn.call_into(in.y, in.x, in.f);
  for (auto _ : state) {
    fn.call_into(in.y, in.x, in.f);
    benchmark::DoNotOptimize(in.y.data());
    benchmark::ClobberMemory();
  }
  sf::run_functions_eagerly(false);
  sf::set_num_threads(saved);
  in.check(state, in.y.data());
  report(state, cc);
}

/// value_and_grad with respect to the image and the filter of sum(conv2d(x, k) * m): the forward
/// pass and both gradients. Checked: one filter-gradient element against its definition.
template <bool Same>
void run_gradient(benchmark::State& state, const conv_case& cc) {
  inputs in(cc);
  xt::xtensor<float, 4> m = xt::ones<float>({std::size_t{1}, cc.oh(), cc.ow(), cc.o});
  auto vg = sf::value_and_grad<0, 1>([](auto x, auto k, auto mask) {
    if constexpr (Same) return sf::reduce_sum(sf::conv2d(x, k, sf::padding::same) * mask);
    else return sf::reduce_sum(sf::conv2d(x, k) * mask);
  });
  auto out = vg(in.x, in.f, m);
  for (auto _ : state) {
    out = vg(in.x, in.f, m);
    benchmark::DoNotOptimize(std::get<1>(out).data());
    benchmark::ClobberMemory();
  }
  // d/df[u, v, 0, 0] of the sum of every output: the sum of x over the pixels tap (u, v) reads
  const std::size_t u = cc.k / 2, v = cc.k / 2;
  double want = 0;
  for (std::size_t i = 0; i < cc.oh(); ++i)
    for (std::size_t j = 0; j < cc.ow(); ++j) {
      const long ih = long(i + u * cc.dilation) - long(cc.pad()), iw = long(j + v * cc.dilation) - long(cc.pad());
      if (ih >= 0 && iw >= 0 && ih < long(cc.h) && iw < long(cc.w)) want += double(in.x(0, std::size_t(ih), std::size_t(iw), 0));
    }
  const double got = std::get<2>(out)(u, v, 0, 0);
  if (!(std::fabs(got - want) <= 1e-3 * (1 + std::fabs(want)))) state.SkipWithError("wrong filter gradient");
  report(state, cc);
}

/// The whole-image im2col of group g: patch row (i * OW + j) holds the window of output (i, j),
/// K = KH * KW * C/G values (zeros in the padding).
void im2col(const inputs& in, std::size_t g, float* patches) {
  const conv_case& cc = in.cc;
  const std::size_t K = cc.k * cc.k * cc.cg();
  for (std::size_t i = 0; i < cc.oh(); ++i)
    for (std::size_t j = 0; j < cc.ow(); ++j) {
      float* dst = patches + (i * cc.ow() + j) * K;
      for (std::size_t u = 0; u < cc.k; ++u)
        for (std::size_t v = 0; v < cc.k; ++v, dst += cc.cg()) {
          const long ih = long(i + u * cc.dilation) - long(cc.pad()), iw = long(j + v * cc.dilation) - long(cc.pad());
          if (ih < 0 || iw < 0 || ih >= long(cc.h) || iw >= long(cc.w)) std::fill_n(dst, cc.cg(), 0.f);
          else std::copy_n(&in.x(0, std::size_t(ih), std::size_t(iw), g * cc.cg()), cc.cg(), dst);
        }
    }
}

void run_im2col_eigen(benchmark::State& state, const conv_case& cc) {
  inputs in(cc);
  using row_major = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using strided = Eigen::OuterStride<>;
  const std::size_t K = cc.k * cc.k * cc.cg(), M = cc.oh() * cc.ow();
  std::vector<float> patches(M * K);
  for (auto _ : state) {
    for (std::size_t g = 0; g < cc.groups; ++g) {
      im2col(in, g, patches.data());
      Eigen::Map<const row_major> p(patches.data(), long(M), long(K));
      Eigen::Map<const row_major, 0, strided> k(in.f.data() + g * cc.og(), long(K), long(cc.og()), strided(long(cc.o)));
      Eigen::Map<row_major, 0, strided> y(in.y.data() + g * cc.og(), long(M), long(cc.og()), strided(long(cc.o)));
      y.noalias() = p * k;
    }
    benchmark::DoNotOptimize(in.y.data());
    benchmark::ClobberMemory();
  }
  in.check(state, in.y.data());
  report(state, cc);
}

/// A layer: relu(conv2d(x, k) + b), b one bias per output channel. Fused: the bias and the relu
/// are the convolution's epilogue (plan/epilogues.hpp), done on each tile of pixels the kernel
/// finishes; Apart: the same function with the convolution materialized first (sf::materialize),
/// so the bias and relu are a second pass over the result, as before the epilogue; Eigen: the
/// im2col GEMM above, then Eigen's rowwise bias add and max with 0 (a second pass).
std::vector<float> layer_bias(const conv_case& cc) {
  std::vector<float> b(cc.o);
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-2, 2);
  for (auto& v : b) v = u(rng);
  return b;
}
void check_layer(benchmark::State& state, const inputs& in, const std::vector<float>& b, const float* out) {
  const conv_case& cc = in.cc;
  std::mt19937 rng(9);
  for (int s = 0; s < 64; ++s) {
    const std::size_t i = rng() % cc.oh(), j = rng() % cc.ow(), q = rng() % cc.o;
    const double want = std::max(0.0, in.reference(i, j, q) + double(b[q])), got = out[(i * cc.ow() + j) * cc.o + q];
    if (!(std::fabs(got - want) <= 1e-3 * (1 + std::fabs(want)))) {
      state.SkipWithError("wrong layer output");
      return;
    }
  }
}
template <bool Same, bool Fused>
void run_layer(benchmark::State& state, const conv_case& cc) {
  inputs in(cc);
  const std::vector<float> bias = layer_bias(cc);
  xt::xtensor<float, 1> b = xt::adapt(bias, {cc.o});
  auto fn = sf::function([](auto x, auto k, auto bb) {
    const auto conv = [&] {
      if constexpr (Same) return sf::conv2d(x, k, sf::padding::same);
      else return sf::conv2d(x, k);
    }();
    if constexpr (Fused) return sf::relu(conv + bb);
    else return sf::relu(sf::materialize(conv) + bb);
  });
  fn.call_into(in.y, in.x, in.f, b);
  for (auto _ : state) {
    fn.call_into(in.y, in.x, in.f, b);
    benchmark::DoNotOptimize(in.y.data());
    benchmark::ClobberMemory();
  }
  check_layer(state, in, bias, in.y.data());
  report(state, cc);
}
void run_layer_eigen(benchmark::State& state, const conv_case& cc) {
  inputs in(cc);
  const std::vector<float> bias = layer_bias(cc);
  using row_major = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const std::size_t K = cc.k * cc.k * cc.c, M = cc.oh() * cc.ow();
  std::vector<float> patches(M * K);
  Eigen::Map<const Eigen::RowVectorXf> b(bias.data(), long(cc.o));
  for (auto _ : state) {
    im2col(in, 0, patches.data());
    Eigen::Map<const row_major> p(patches.data(), long(M), long(K));
    Eigen::Map<const row_major> k(in.f.data(), long(K), long(cc.o));
    Eigen::Map<row_major> y(in.y.data(), long(M), long(cc.o));
    y.noalias() = p * k;
    y = (y.rowwise() + b).cwiseMax(0.f);
    benchmark::DoNotOptimize(in.y.data());
    benchmark::ClobberMemory();
  }
  check_layer(state, in, bias, in.y.data());
  report(state, cc);
}

void run_hand_loop(benchmark::State& state, const conv_case& cc) {
  inputs in(cc);
  for (auto _ : state) {
    float* out = in.y.data();
    for (std::size_t i = 0; i < cc.oh(); ++i)
      for (std::size_t j = 0; j < cc.ow(); ++j) {
        float* yq = out + (i * cc.ow() + j) * cc.o;
        std::fill_n(yq, cc.o, 0.f);
        for (std::size_t u = 0; u < cc.k; ++u)
          for (std::size_t v = 0; v < cc.k; ++v) {
            const long ih = long(i + u * cc.dilation) - long(cc.pad()), iw = long(j + v * cc.dilation) - long(cc.pad());
            if (ih < 0 || iw < 0 || ih >= long(cc.h) || iw >= long(cc.w)) continue;
            const float* fp = &in.f(u, v, 0, 0);
            for (std::size_t g = 0; g < cc.groups; ++g) {
              const float* xp = &in.x(0, std::size_t(ih), std::size_t(iw), g * cc.cg());
              float* yg = yq + g * cc.og();
              for (std::size_t p = 0; p < cc.cg(); ++p)
                for (std::size_t q = 0; q < cc.og(); ++q) yg[q] += xp[p] * fp[p * cc.o + g * cc.og() + q];
            }
          }
      }
    benchmark::DoNotOptimize(in.y.data());
    benchmark::ClobberMemory();
  }
  in.check(state, in.y.data());
  report(state, cc);
}

void Seed_Staticflow(benchmark::State& s) { run_staticflow<false>(s, seed_case, 1, false); }
void Seed_Staticflow2T(benchmark::State& s) { run_staticflow<false>(s, seed_case, 2, false); }
void Seed_StaticflowEager(benchmark::State& s) { run_staticflow<false>(s, seed_case, 1, true); }
void Seed_Gradient(benchmark::State& s) { run_gradient<false>(s, seed_case); }
void Seed_Im2colEigen(benchmark::State& s) { run_im2col_eigen(s, seed_case); }
void ResNet_Staticflow(benchmark::State& s) { run_staticflow<true>(s, resnet_case, 1, false); }
void ResNet_Staticflow2T(benchmark::State& s) { run_staticflow<true>(s, resnet_case, 2, false); }
void ResNet_Gradient(benchmark::State& s) { run_gradient<true>(s, resnet_case); }
void ResNet_Im2colEigen(benchmark::State& s) { run_im2col_eigen(s, resnet_case); }
void ResNet_HandLoop(benchmark::State& s) { run_hand_loop(s, resnet_case); }
void Dilated_Staticflow(benchmark::State& s) { run_staticflow<true, 2>(s, dilated_case, 1, false); }
void Dilated_Im2colEigen(benchmark::State& s) { run_im2col_eigen(s, dilated_case); }
void Dilated_HandLoop(benchmark::State& s) { run_hand_loop(s, dilated_case); }
void Grouped_Staticflow(benchmark::State& s) { run_staticflow<true>(s, grouped_case, 1, false); }
void Grouped_Staticflow2T(benchmark::State& s) { run_staticflow<true>(s, grouped_case, 2, false); }
void Grouped_Im2colEigen(benchmark::State& s) { run_im2col_eigen(s, grouped_case); }
void Grouped_HandLoop(benchmark::State& s) { run_hand_loop(s, grouped_case); }
void SeedLayer_Fused(benchmark::State& s) { run_layer<false, true>(s, seed_case); }
void SeedLayer_Apart(benchmark::State& s) { run_layer<false, false>(s, seed_case); }
void SeedLayer_Im2colEigen(benchmark::State& s) { run_layer_eigen(s, seed_case); }
void ResNetLayer_Fused(benchmark::State& s) { run_layer<true, true>(s, resnet_case); }
void ResNetLayer_Apart(benchmark::State& s) { run_layer<true, false>(s, resnet_case); }
void ResNetLayer_Im2colEigen(benchmark::State& s) { run_layer_eigen(s, resnet_case); }
void Small_Staticflow(benchmark::State& s) { run_staticflow<true>(s, small_case, 1, false); }
void Small_Im2colEigen(benchmark::State& s) { run_im2col_eigen(s, small_case); }
void Small_HandLoop(benchmark::State& s) { run_hand_loop(s, small_case); }

}  // namespace

BENCHMARK(Seed_Staticflow)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(Seed_Staticflow2T)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(Seed_StaticflowEager)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(Seed_Gradient)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(Seed_Im2colEigen)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(SeedLayer_Fused)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(SeedLayer_Apart)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(SeedLayer_Im2colEigen)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(ResNetLayer_Fused)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(ResNetLayer_Apart)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(ResNetLayer_Im2colEigen)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(ResNet_Staticflow)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(ResNet_Staticflow2T)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(ResNet_Gradient)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(ResNet_Im2colEigen)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(ResNet_HandLoop)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(Dilated_Staticflow)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(Dilated_Im2colEigen)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(Dilated_HandLoop)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(Grouped_Staticflow)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(Grouped_Staticflow2T)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(Grouped_Im2colEigen)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(Grouped_HandLoop)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(Small_Staticflow)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Small_Im2colEigen)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Small_HandLoop)->Unit(benchmark::kMicrosecond)->UseRealTime();
