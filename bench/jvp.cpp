// bench/jvp.cpp -- sf::jvp and sf::hessian_vector_product (issue 18) against the forward call,
// a hand-written xsimd loop with the derivative worked out by hand, Eigen array expressions of
// the same formulas, and Eigen's forward-mode AutoDiffScalar (the C++ peer that computes a
// directional derivative without a hand derivation), in one run. 1M float32 per array.
//
//   Jvp_*:  y = tanh(x * w + b) and its derivative along dw with respect to w,
//           (1 - y^2) * x * dw
//   Hvp_*:  loss = sum(tanh(x * w + b)); the Hessian with respect to w applied to v,
//           -2 t (1 - t^2) x^2 v with t = tanh(x * w + b) (ValueAndGrad is the gradient's cost)
//
// Read Jvp_Jvp / Jvp_Forward (one pass that writes two arrays against one), Jvp_Jvp / Jvp_Hand,
// Hvp_Hvp / Hvp_Hand; the products' counter max_diff compares them with the hand-derived values
// (every 7th element). bench/jvp.py times jax.jvp and a jax hvp on the same shapes when JAX is
// installed.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <tuple>

#include <Eigen/Dense>
#include <unsupported/Eigen/AutoDiff>

#include <staticflow/staticflow.hpp>

#include "bench_common.hpp"

namespace sf = staticflow;

namespace {
using vec = xt::xtensor<float, 1>;
using batch = xsimd::batch<float>;

constexpr std::size_t kSize = std::size_t{1} << 20;

vec filled(float lo, float step) {
  vec v = vec::from_shape({kSize});
  for (std::size_t i = 0; i < kSize; ++i) v(i) = lo + step * static_cast<float>(i % 1000);
  return v;
}
struct inputs {
  vec x = filled(-1.f, 0.002f), w = filled(0.5f, -0.001f), dw = filled(0.25f, 0.0005f);
  vec y = vec::from_shape({kSize}), dy = y;
  float b = 0.1f;
};
inputs& data() {
  static inputs in;
  return in;
}
const auto layer = [](auto x, auto w, auto b) { return sf::tanh(x * w + b); };
const auto loss = [](auto x, auto w, auto b) { return sf::reduce_sum(sf::tanh(x * w + b)); };

// ---- Jacobian-vector product ----
void Jvp_Forward(benchmark::State& state) {
  auto& in = data();
  auto f = sf::function(layer);
  for (auto _ : state) {
    f.call_into(in.y, in.x, in.w, in.b);
    benchmark::ClobberMemory();
  }
}
/// The largest difference between `got` and the hand-derived values (a counter of the run).
template <class Expected>
double max_difference(const vec& got, Expected expected) {
  double worst = 0;
  for (std::size_t i = 0; i < kSize; i += 7) worst = std::max(worst, std::fabs(double(got(i)) - double(expected(i))));
  return worst;
}
void Jvp_Jvp(benchmark::State& state) {
  auto& in = data();
  auto jvp = sf::jvp<1>(layer);
  for (auto _ : state) {
    jvp.call_into(std::tie(in.y, in.dy), in.x, in.w, in.b, in.dw);
    benchmark::ClobberMemory();
  }
  state.counters["max_diff"] = max_difference(in.dy, [&](std::size_t i) {
    const float t = std::tanh(in.x(i) * in.w(i) + in.b);
    return (1 - t * t) * in.x(i) * in.dw(i);
  });
}
void Jvp_Hand(benchmark::State& state) {
  auto& in = data();
  const batch one(1.f);
  for (auto _ : state) {
    const float *x = in.x.data(), *w = in.w.data(), *dw = in.dw.data();
    float *y = in.y.data(), *dy = in.dy.data();
    const batch vb(in.b);
    std::size_t i = 0;
    for (; i + batch::size <= kSize; i += batch::size) {
      const auto vx = batch::load_unaligned(x + i);
      const auto t = xsimd::tanh(vx * batch::load_unaligned(w + i) + vb);
      t.store_unaligned(y + i);
      ((one - t * t) * vx * batch::load_unaligned(dw + i)).store_unaligned(dy + i);
    }
    for (; i < kSize; ++i) {
      const float t = std::tanh(x[i] * w[i] + in.b);
      y[i] = t, dy[i] = (1 - t * t) * x[i] * dw[i];
    }
    benchmark::ClobberMemory();
  }
}
void Jvp_Eigen(benchmark::State& state) {
  auto& in = data();
  using arr = Eigen::Map<Eigen::ArrayXf>;
  arr x(in.x.data(), kSize), w(in.w.data(), kSize), dw(in.dw.data(), kSize), y(in.y.data(), kSize),
      dy(in.dy.data(), kSize);
  for (auto _ : state) {
    y = (x * w + in.b).tanh();
    dy = (1.f - y.square()) * x * dw;
    benchmark::ClobberMemory();
  }
}
void Jvp_EigenAutoDiff(benchmark::State& state) {
  auto& in = data();
  using dual = Eigen::AutoDiffScalar<Eigen::Matrix<float, 1, 1>>;
  for (auto _ : state) {
    for (std::size_t i = 0; i < kSize; ++i) {
      const dual w(in.w(i), Eigen::Matrix<float, 1, 1>(in.dw(i)));  // w with its tangent dw
      const dual t = tanh(in.x(i) * w + in.b);
      in.y(i) = t.value(), in.dy(i) = t.derivatives()(0);
    }
    benchmark::ClobberMemory();
  }
}

// ---- Hessian-vector product ----
void Hvp_ValueAndGrad(benchmark::State& state) {
  auto& in = data();
  auto vg = sf::value_and_grad<1>(loss);
  float l = 0;
  for (auto _ : state) {
    vg.call_into(std::tie(l, in.dy), in.x, in.w, in.b);
    benchmark::DoNotOptimize(l);
    benchmark::ClobberMemory();
  }
}
void Hvp_Hvp(benchmark::State& state) {
  auto& in = data();
  auto hvp = sf::hessian_vector_product<1>(loss);
  for (auto _ : state) {
    hvp.call_into(in.dy, in.x, in.w, in.b, in.dw);
    benchmark::ClobberMemory();
  }
  state.counters["max_diff"] = max_difference(in.dy, [&](std::size_t i) {
    const float t = std::tanh(in.x(i) * in.w(i) + in.b);
    return -2 * t * (1 - t * t) * in.x(i) * in.x(i) * in.dw(i);
  });
}
void Hvp_Hand(benchmark::State& state) {
  auto& in = data();
  const batch one(1.f), minus_two(-2.f);
  for (auto _ : state) {
    const float *x = in.x.data(), *w = in.w.data(), *v = in.dw.data();
    float* hv = in.dy.data();
    const batch vb(in.b);
    std::size_t i = 0;
    for (; i + batch::size <= kSize; i += batch::size) {
      const auto vx = batch::load_unaligned(x + i);
      const auto t = xsimd::tanh(vx * batch::load_unaligned(w + i) + vb);
      (minus_two * t * (one - t * t) * vx * vx * batch::load_unaligned(v + i)).store_unaligned(hv + i);
    }
    for (; i < kSize; ++i) {
      const float t = std::tanh(x[i] * w[i] + in.b);
      hv[i] = -2 * t * (1 - t * t) * x[i] * x[i] * v[i];
    }
    benchmark::ClobberMemory();
  }
}
void Hvp_Eigen(benchmark::State& state) {
  auto& in = data();
  using arr = Eigen::Map<Eigen::ArrayXf>;
  arr x(in.x.data(), kSize), w(in.w.data(), kSize), v(in.dw.data(), kSize), hv(in.dy.data(), kSize);
  Eigen::ArrayXf t(kSize);
  for (auto _ : state) {
    t = (x * w + in.b).tanh();
    hv = -2.f * t * (1.f - t.square()) * x.square() * v;
    benchmark::ClobberMemory();
  }
}
}  // namespace

BENCHMARK(Jvp_Forward)->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(Jvp_Jvp)->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(Jvp_Hand)->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(Jvp_Eigen)->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(Jvp_EigenAutoDiff)->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(Hvp_ValueAndGrad)->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(Hvp_Hvp)->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(Hvp_Hand)->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(Hvp_Eigen)->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
