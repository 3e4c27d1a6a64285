// bench_depthwise_conv -- sf::depthwise_conv2d (backend/cpu/depthwise_conv.hpp: direct loops,
// channels innermost) against a hand-written loop, float32, NHWC, MobileNet's shapes:
//
//   S1/...   1x112x112x32, 3x3 filters, multiplier 1, SAME, stride 1 (MobileNet v1's first
//            depthwise layer)
//   S2/...   1x112x112x64, 3x3, multiplier 1, SAME, stride 2 (its second)
//
//   Staticflow                 fn.call_into(y, x, f), run-time shapes, one thread
//   StaticflowStaticShapes     the shapes in the input signature (the channel count a constant)
//   Staticflow2T               the latter with sf::set_num_threads(2)
//   HandLoop      the loops of the definition with the channel loop innermost and the window's
//                 bounds hoisted, as one would write it by hand
//
//   S1_Layer/...  MobileNet's whole layer, relu6(depthwise_conv2d(x, f) * scale + shift) (its
//                 batch normalization folded into a per-channel scale and shift), static shapes:
//     Fused       the scale, shift and relu6 as the depthwise kernel's epilogue, on each output row
//                 as it is summed (plan/epilogues.hpp)
//     Apart       the same with sf::materialize after the convolution: a second pass over the
//                 result, as before the epilogue (and as an unfused framework runs it)
//     HandLoop    the hand loop above with the three applied to each pixel after its sum
//
// Neither Eigen nor xtensor has a depthwise convolution; TF's DepthwiseConv2dNative would be the
// anchor (not scripted here). Counter FLOPS = 2 * outputs * KH * KW. Each result is checked
// against a double-precision sum at sampled outputs after timing.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <random>

#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

#include "bench_common.hpp"

namespace sf = staticflow;
using sf_bench::timed;

namespace {

struct layer {
  std::size_t h, w, c, stride;
  std::size_t oh() const { return (h + stride - 1) / stride; }
  std::size_t ow() const { return (w + stride - 1) / stride; }
  std::size_t pad() const {  // SAME, 3x3: TF's padding before
    const std::size_t needed = (oh() - 1) * stride + 3;
    return needed > h ? (needed - h) / 2 : 0;
  }
};
constexpr layer s1{112, 112, 32, 1}, s2{112, 112, 64, 2};

struct data {
  layer l;
  xt::xtensor<float, 4> x, f, y;
  explicit data(layer l_)
      : l(l_), x(xt::zeros<float>({std::size_t{1}, l.h, l.w, l.c})), f(xt::zeros<float>({std::size_t{3}, std::size_t{3}, l.c, std::size_t{1}})),
        y(xt::zeros<float>({std::size_t{1}, l.oh(), l.ow(), l.c})) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-1, 1);
    for (auto& v : x) v = u(rng);
    for (auto& v : f) v = u(rng);
  }
  /// The convolution's output (i, j, c) in double precision.
  double sum_at(std::size_t i, std::size_t j, std::size_t c) const {
    double sum = 0;
    for (std::size_t u = 0; u < 3; ++u)
      for (std::size_t v = 0; v < 3; ++v) {
        const std::ptrdiff_t ih = std::ptrdiff_t(i * l.stride + u) - std::ptrdiff_t(l.pad());
        const std::ptrdiff_t iw = std::ptrdiff_t(j * l.stride + v) - std::ptrdiff_t(l.pad());
        if (ih < 0 || iw < 0 || ih >= std::ptrdiff_t(l.h) || iw >= std::ptrdiff_t(l.w)) continue;
        sum += double(x(0, std::size_t(ih), std::size_t(iw), c)) * f(u, v, c, 0);
      }
    return sum;
  }
  /// y against want(i, j, c) at 64 sampled outputs.
  template <class Want>
  void check_against(benchmark::State& state, Want want) const {
    std::mt19937 rng(3);
    for (int s = 0; s < 64; ++s) {
      const std::size_t i = rng() % l.oh(), j = rng() % l.ow(), c = rng() % l.c;
      const double w = want(i, j, c);
      if (!(std::fabs(y(0, i, j, c) - w) <= 1e-4 * (1 + std::fabs(w)))) return state.SkipWithError("wrong result");
    }
  }
  void check(benchmark::State& state) const {
    check_against(state, [&](std::size_t i, std::size_t j, std::size_t c) { return sum_at(i, j, c); });
  }
  void flops(benchmark::State& state) const {
    state.counters["FLOPS"] = benchmark::Counter(double(2 * l.oh() * l.ow() * l.c * 9) * double(state.iterations()), benchmark::Counter::kIsRate);
  }
};

/// Static: the layer's shapes in the input signature (a layer's are known when it is built), so the
/// channel count is a compile-time constant as in the hand loop; otherwise run-time shapes.
template <const layer& L, bool Static>
void staticflow_case(benchmark::State& state, std::size_t threads) {
  data d(L);
  const auto saved = sf::num_threads();
  sf::set_num_threads(threads);
  const auto body = [](auto x, auto f) {
    if constexpr (L.stride == 1) return sf::depthwise_conv2d(x, f, sf::padding::same);
    else return sf::depthwise_conv2d(x, f, sf::padding::same, sf::strides<2>);
  };
  auto fn = [&] {
    if constexpr (Static) return sf::function<sf::spec<float, sf::dyn, L.h, L.w, L.c>, sf::spec<float, 3, 3, L.c, 1>>(body);
    else return sf::function(body);
  }();
  timed(state, d.y.data(), [&] { fn.call_into(d.y, d.x, d.f); });
  sf::set_num_threads(saved);
  d.check(state);
  d.flops(state);
}

template <const layer& L>
void hand_case(benchmark::State& state) {
  data d(L);
  const std::size_t c = L.c, pad = L.pad();
  timed(state, d.y.data(), [&] {
    float* y = d.y.data();
    const float* x = d.x.data();
    const float* f = d.f.data();
    for (std::size_t i = 0; i < L.oh(); ++i)
      for (std::size_t j = 0; j < L.ow(); ++j) {
        float* out = y + (i * L.ow() + j) * c;
        for (std::size_t k = 0; k < c; ++k) out[k] = 0.f;
        const std::ptrdiff_t i0 = std::ptrdiff_t(i * L.stride) - std::ptrdiff_t(pad), j0 = std::ptrdiff_t(j * L.stride) - std::ptrdiff_t(pad);
        for (std::ptrdiff_t u = std::max<std::ptrdiff_t>(0, -i0); u < std::min<std::ptrdiff_t>(3, std::ptrdiff_t(L.h) - i0); ++u)
          for (std::ptrdiff_t v = std::max<std::ptrdiff_t>(0, -j0); v < std::min<std::ptrdiff_t>(3, std::ptrdiff_t(L.w) - j0); ++v) {
            const float* in = x + (std::size_t(i0 + u) * L.w + std::size_t(j0 + v)) * c;
            const float* tap = f + std::size_t(u * 3 + v) * c;
            for (std::size_t k = 0; k < c; ++k) out[k] += in[k] * tap[k];
          }
      }
  });
  d.check(state);
  d.flops(state);
}

/// The layer's scale and shift (per channel) and its expected value at sampled outputs.
struct layer_data : data {
  xt::xtensor<float, 1> scale, shift;
  explicit layer_data(layer l_) : data(l_), scale(xt::zeros<float>({l_.c})), shift(xt::zeros<float>({l_.c})) {
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> u(0.5f, 2.f), v(-1.f, 1.f);
    for (auto& e : scale) e = u(rng);
    for (auto& e : shift) e = v(rng);
  }
  void check_layer(benchmark::State& state) const {
    check_against(state, [&](std::size_t i, std::size_t j, std::size_t c) {
      return std::min(std::max(sum_at(i, j, c) * scale(c) + shift(c), 0.0), 6.0);
    });
  }
};

template <bool Fused>
void staticflow_layer_case(benchmark::State& state) {
  layer_data d(s1);
  auto fn = sf::function<sf::spec<float, sf::dyn, s1.h, s1.w, s1.c>, sf::spec<float, 3, 3, s1.c, 1>, sf::spec<float, s1.c>,
                         sf::spec<float, s1.c>>([](auto x, auto f, auto scale, auto shift) {
    const auto conv = sf::depthwise_conv2d(x, f, sf::padding::same);
    if constexpr (Fused) return sf::relu6(conv * scale + shift);
    else return sf::relu6(sf::materialize(conv) * scale + shift);
  });
  timed(state, d.y.data(), [&] { fn.call_into(d.y, d.x, d.f, d.scale, d.shift); });
  d.check_layer(state);
  d.flops(state);
}

void hand_layer_case(benchmark::State& state) {
  layer_data d(s1);
  constexpr layer L = s1;
  constexpr std::size_t c = L.c;
  const std::size_t pad = L.pad();
  timed(state, d.y.data(), [&] {
    float* y = d.y.data();
    const float* x = d.x.data();
    const float* f = d.f.data();
    const float* scale = d.scale.data();
    const float* shift = d.shift.data();
    for (std::size_t i = 0; i < L.oh(); ++i)
      for (std::size_t j = 0; j < L.ow(); ++j) {
        float* out = y + (i * L.ow() + j) * c;
        for (std::size_t k = 0; k < c; ++k) out[k] = 0.f;
        const std::ptrdiff_t i0 = std::ptrdiff_t(i) - std::ptrdiff_t(pad), j0 = std::ptrdiff_t(j) - std::ptrdiff_t(pad);
        for (std::ptrdiff_t u = std::max<std::ptrdiff_t>(0, -i0); u < std::min<std::ptrdiff_t>(3, std::ptrdiff_t(L.h) - i0); ++u)
          for (std::ptrdiff_t v = std::max<std::ptrdiff_t>(0, -j0); v < std::min<std::ptrdiff_t>(3, std::ptrdiff_t(L.w) - j0); ++v) {
            const float* in = x + (std::size_t(i0 + u) * L.w + std::size_t(j0 + v)) * c;
            const float* tap = f + std::size_t(u * 3 + v) * c;
            for (std::size_t k = 0; k < c; ++k) out[k] += in[k] * tap[k];
          }
        for (std::size_t k = 0; k < c; ++k) out[k] = std::min(std::max(out[k] * scale[k] + shift[k], 0.f), 6.f);
      }
  });
  d.check_layer(state);
  d.flops(state);
}

void S1_Staticflow(benchmark::State& state) { staticflow_case<s1, false>(state, 1); }
void S1_StaticflowStaticShapes(benchmark::State& state) { staticflow_case<s1, true>(state, 1); }
void S1_Staticflow2T(benchmark::State& state) { staticflow_case<s1, true>(state, 2); }
void S1_HandLoop(benchmark::State& state) { hand_case<s1>(state); }
void S2_Staticflow(benchmark::State& state) { staticflow_case<s2, false>(state, 1); }
void S2_StaticflowStaticShapes(benchmark::State& state) { staticflow_case<s2, true>(state, 1); }
void S2_Staticflow2T(benchmark::State& state) { staticflow_case<s2, true>(state, 2); }
void S2_HandLoop(benchmark::State& state) { hand_case<s2>(state); }
void S1_Layer_Fused(benchmark::State& state) { staticflow_layer_case<true>(state); }
void S1_Layer_Apart(benchmark::State& state) { staticflow_layer_case<false>(state); }
void S1_Layer_HandLoop(benchmark::State& state) { hand_layer_case(state); }

}  // namespace

BENCHMARK(S1_Staticflow)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(S1_StaticflowStaticShapes)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(S1_Staticflow2T)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(S1_HandLoop)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(S2_Staticflow)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(S2_StaticflowStaticShapes)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(S2_Staticflow2T)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(S2_HandLoop)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(S1_Layer_Fused)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(S1_Layer_Apart)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(S1_Layer_HandLoop)->Unit(benchmark::kMicrosecond)->UseRealTime();
