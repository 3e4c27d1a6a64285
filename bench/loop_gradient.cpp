// bench/loop_gradient.cpp -- gradients through a loop with a run-time trip count (issue 18 item 3,
// autodiff/loop_backprop.hpp) against the forward call, a hand-written loop that stores every
// state and runs the backward recurrence worked out by hand, and the same formulas as Eigen
// array expressions, in one run.
//
//   h <- tanh(h * w + x), n times (n an argument), from h = x; loss = sum(h);
//   Loop_ValueAndGrad: the loss and d loss / d w
//
// Two shapes (the benchmark's arguments): 4096 float32 per state and 100 steps (the arrays'
// traffic), 64 per state and 1000 steps (each iteration's fixed cost). Read Loop_ValueAndGrad /
// Loop_Forward, Loop_ValueAndGrad / Loop_Hand, Loop_ValueAndGrad / Loop_Eigen; the counter max_diff
// compares the gradient with the hand loop's. bench/loop_gradient.py times jax.value_and_grad of lax.fori_loop on the same shapes
// when JAX is installed (JAX differentiates a fori_loop with static bounds; its while_loop with a
// run-time trip count has no reverse mode).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <vector>

#include <Eigen/Dense>

#include <staticflow/staticflow.hpp>

#include "bench_common.hpp"

namespace sf = staticflow;

namespace {
using vec = xt::xtensor<float, 1>;

struct inputs {
  std::size_t size = 0;
  std::int32_t steps = 0;
  vec x, w, dw;
  std::vector<float> states;  // the hand loop's stored states, (steps + 1) x size
  void resize(std::size_t n, std::int32_t t) {
    if (n == size && t == steps) return;
    size = n, steps = t;
    x = vec::from_shape({n}), w = vec::from_shape({n}), dw = vec::from_shape({n});
    for (std::size_t i = 0; i < n; ++i) {
      x(i) = -0.5f + 0.001f * static_cast<float>(i % 1000);
      w(i) = 0.9f - 0.0005f * static_cast<float>(i % 1000);
    }
    states.assign((static_cast<std::size_t>(t) + 1) * n, 0.f);
  }
};
inputs& data(const benchmark::State& state) {
  static inputs in;
  in.resize(static_cast<std::size_t>(state.range(0)), static_cast<std::int32_t>(state.range(1)));
  return in;
}

const auto loss = [](auto w, auto x, auto n) {
  return sf::reduce_sum(sf::fori_loop(0, n, [&](auto, auto h) { return sf::tanh(h * w + x); }, x));
};

void Loop_Forward(benchmark::State& state) {
  auto& in = data(state);
  auto f = sf::function(loss);
  float l = 0;
  for (auto _ : state) {
    f.call_into(l, in.w, in.x, in.steps);
    benchmark::DoNotOptimize(l);
  }
}

/// The hand loop (xsimd's tanh, as the fused loops use): every state stored, then the backward
/// recurrence g <- g (1 - h'^2) w, which the compiler vectorizes.
float hand_value_and_grad(inputs& in) {
  const std::size_t n = in.size;
  const float *x = in.x.data(), *w = in.w.data();
  float* dw = in.dw.data();
  float* h = in.states.data();
  std::copy_n(x, n, h);
  using batch = xsimd::batch<float>;
  for (std::int32_t t = 0; t < in.steps; ++t, h += n) {
    std::size_t i = 0;
    for (; i + batch::size <= n; i += batch::size)
      xsimd::tanh(batch::load_unaligned(h + i) * batch::load_unaligned(w + i) + batch::load_unaligned(x + i))
          .store_unaligned(h + n + i);
    for (; i < n; ++i) h[i + n] = std::tanh(h[i] * w[i] + x[i]);
  }
  float value = 0;
  for (std::size_t i = 0; i < n; ++i) value += h[i];
  thread_local std::vector<float> g;
  g.assign(n, 1.f);
  std::fill_n(dw, n, 0.f);
  for (std::int32_t t = in.steps; t > 0; --t) {
    const float* next = in.states.data() + static_cast<std::size_t>(t) * n;
    const float* prev = next - n;
    for (std::size_t i = 0; i < n; ++i) {
      const float a = g[i] * (1 - next[i] * next[i]);
      dw[i] += a * prev[i];
      g[i] = a * w[i];
    }
  }
  return value;
}

void Loop_ValueAndGrad(benchmark::State& state) {
  auto& in = data(state);
  auto vg = sf::value_and_grad<0>(loss);
  float l = 0;
  for (auto _ : state) {
    vg.call_into(std::tie(l, in.dw), in.w, in.x, in.steps);
    benchmark::DoNotOptimize(l);
    benchmark::ClobberMemory();
  }
  const vec got = in.dw;
  hand_value_and_grad(in);
  double worst = 0;
  for (std::size_t i = 0; i < in.size; ++i) worst = std::max(worst, std::fabs(double(got(i)) - double(in.dw(i))));
  state.counters["max_diff"] = worst;
}

void Loop_Hand(benchmark::State& state) {
  auto& in = data(state);
  for (auto _ : state) {
    benchmark::DoNotOptimize(hand_value_and_grad(in));
    benchmark::ClobberMemory();
  }
}

void Loop_Eigen(benchmark::State& state) {
  auto& in = data(state);
  using arr = Eigen::Map<Eigen::ArrayXf>;
  const Eigen::Index n = static_cast<Eigen::Index>(in.size);
  arr x(in.x.data(), n), w(in.w.data(), n), dw(in.dw.data(), n);
  Eigen::ArrayXf g(n);
  for (auto _ : state) {
    arr(in.states.data(), n) = x;
    for (std::int32_t t = 0; t < in.steps; ++t) {
      arr prev(in.states.data() + t * n, n), next(in.states.data() + (t + 1) * n, n);
      next = (prev * w + x).tanh();
    }
    float value = arr(in.states.data() + in.steps * n, n).sum();
    benchmark::DoNotOptimize(value);
    g.setOnes();
    dw.setZero();
    for (std::int32_t t = in.steps; t > 0; --t) {
      arr prev(in.states.data() + (t - 1) * n, n), next(in.states.data() + t * n, n);
      g *= 1.f - next.square();
      dw += g * prev;
      g *= w;
    }
    benchmark::ClobberMemory();
  }
}

void shapes(benchmark::internal::Benchmark* b) { b->Args({4096, 100})->Args({64, 1000}); }
}  // namespace

BENCHMARK(Loop_Forward)->Apply(shapes);
BENCHMARK(Loop_ValueAndGrad)->Apply(shapes);
BENCHMARK(Loop_Hand)->Apply(shapes);
BENCHMARK(Loop_Eigen)->Apply(shapes);
