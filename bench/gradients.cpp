// bench/gradients.cpp -- issue 18's gradient benchmarks: value_and_grad against the forward call,
// a hand-written fused loop (forward and hand-derived backward in one pass) and Eigen (the same
// hand-derived formulas as array expressions), in one run.
//
//   (a) sum((a*b + c*d - a/(b+1)) * 0.5) w.r.t. a, b, c, d; 16M float32 each
//   (b) sum(tanh(x*w + b)) w.r.t. w; 1M float32
//   and a mean squared error, mean(square(x*w - y)) w.r.t. w; 1M float32 (no target of its own)
//   and rows centred, sum(square(x - reduce_mean(x, -1, keepdims))) w.r.t. x, 1024 x 1024
//   float32: the axis as a plain int (a run-time number) against sf::axes<-1> (no target)
//
// Read the ratios ValueAndGrad / Forward (targets: (a) <= 1.8x, (b) <= 1.5x) and
// ValueAndGrad / Hand.
#include <cmath>
#include <cstddef>
#include <tuple>

#include <Eigen/Dense>

#include <staticflow/staticflow.hpp>

#include "bench_common.hpp"

namespace sf = staticflow;

namespace {
using vec = xt::xtensor<float, 1>;
using batch = xsimd::batch<float>;

vec filled(std::size_t n, float lo, float step) {
  vec v = vec::from_shape({n});
  for (std::size_t i = 0; i < n; ++i) v(i) = lo + step * static_cast<float>(i % 1000);
  return v;
}

// ---- (a) ----
constexpr std::size_t kBig = std::size_t{1} << 24;
struct four_inputs {
  vec a = filled(kBig, -1.f, 0.002f), b = filled(kBig, 0.5f, 0.001f), c = filled(kBig, 2.f, -0.003f),
      d = filled(kBig, -0.5f, 0.001f);
  vec ga = vec::from_shape({kBig}), gb = ga, gc = ga, gd = ga;
};
four_inputs& inputs_a() {
  static four_inputs in;
  return in;
}
const auto loss_a = [](auto a, auto b, auto c, auto d) { return sf::reduce_sum((a * b + c * d - a / (b + 1.f)) * 0.5f); };

void Grad4_Forward(benchmark::State& state) {
  auto& in = inputs_a();
  auto f = sf::function(loss_a);
  for (auto _ : state) benchmark::DoNotOptimize(f(in.a, in.b, in.c, in.d));
}
void Grad4_ValueAndGrad(benchmark::State& state) {
  auto& in = inputs_a();
  auto vg = sf::value_and_grad<0, 1, 2, 3>(loss_a);
  float l = 0;
  for (auto _ : state) {
    vg.call_into(std::tie(l, in.ga, in.gb, in.gc, in.gd), in.a, in.b, in.c, in.d);
    benchmark::DoNotOptimize(l);
    benchmark::ClobberMemory();
  }
}
void Grad4_Hand(benchmark::State& state) {
  auto& in = inputs_a();
  const batch half(0.5f), one(1.f);
  for (auto _ : state) {
    const float *a = in.a.data(), *b = in.b.data(), *c = in.c.data(), *d = in.d.data();
    float *ga = in.ga.data(), *gb = in.gb.data(), *gc = in.gc.data(), *gd = in.gd.data();
    batch acc0(0.f), acc1(0.f);
    std::size_t i = 0;
    for (; i + 2 * batch::size <= kBig; i += 2 * batch::size) {
      for (std::size_t u = 0; u < 2; ++u) {
        const std::size_t j = i + u * batch::size;
        const auto va = batch::load_unaligned(a + j), vb = batch::load_unaligned(b + j),
                   vc = batch::load_unaligned(c + j), vd = batch::load_unaligned(d + j);
        const auto inv = one / (vb + one);
        (u ? acc1 : acc0) += (va * vb + vc * vd - va * inv) * half;
        (half * (vb - inv)).store_unaligned(ga + j);
        (half * (va + va * inv * inv)).store_unaligned(gb + j);
        (half * vd).store_unaligned(gc + j);
        (half * vc).store_unaligned(gd + j);
      }
    }
    float l = xsimd::hadd(acc0 + acc1);
    for (; i < kBig; ++i) {
      const float inv = 1.f / (b[i] + 1.f);
      l += (a[i] * b[i] + c[i] * d[i] - a[i] * inv) * 0.5f;
      ga[i] = 0.5f * (b[i] - inv), gb[i] = 0.5f * (a[i] + a[i] * inv * inv), gc[i] = 0.5f * d[i], gd[i] = 0.5f * c[i];
    }
    benchmark::DoNotOptimize(l);
    benchmark::ClobberMemory();
  }
}
void Grad4_Eigen(benchmark::State& state) {
  auto& in = inputs_a();
  using arr = Eigen::Map<Eigen::ArrayXf>;
  arr a(in.a.data(), kBig), b(in.b.data(), kBig), c(in.c.data(), kBig), d(in.d.data(), kBig);
  arr ga(in.ga.data(), kBig), gb(in.gb.data(), kBig), gc(in.gc.data(), kBig), gd(in.gd.data(), kBig);
  for (auto _ : state) {
    const float l = ((a * b + c * d - a / (b + 1.f)) * 0.5f).sum();
    ga = 0.5f * (b - 1.f / (b + 1.f));
    gb = 0.5f * (a + a / (b + 1.f).square());
    gc = 0.5f * d;
    gd = 0.5f * c;
    benchmark::DoNotOptimize(l);
    benchmark::ClobberMemory();
  }
}

// ---- (b) ----
constexpr std::size_t kMid = std::size_t{1} << 20;
struct tanh_inputs {
  vec x = filled(kMid, -1.f, 0.002f), w = filled(kMid, 0.5f, -0.001f), gw = vec::from_shape({kMid});
  float b = 0.1f;
};
tanh_inputs& inputs_b() {
  static tanh_inputs in;
  return in;
}
const auto loss_b = [](auto x, auto w, auto b) { return sf::reduce_sum(sf::tanh(x * w + b)); };

void Tanh_Forward(benchmark::State& state) {
  auto& in = inputs_b();
  auto f = sf::function(loss_b);
  for (auto _ : state) benchmark::DoNotOptimize(f(in.x, in.w, in.b));
}
void Tanh_ValueAndGrad(benchmark::State& state) {
  auto& in = inputs_b();
  auto vg = sf::value_and_grad<1>(loss_b);
  float l = 0;
  for (auto _ : state) {
    vg.call_into(std::tie(l, in.gw), in.x, in.w, in.b);
    benchmark::DoNotOptimize(l);
    benchmark::ClobberMemory();
  }
}
void Tanh_Hand(benchmark::State& state) {
  auto& in = inputs_b();
  const batch one(1.f);
  for (auto _ : state) {
    const float *x = in.x.data(), *w = in.w.data();
    float* gw = in.gw.data();
    const batch vb(in.b);
    batch acc(0.f);
    std::size_t i = 0;
    for (; i + batch::size <= kMid; i += batch::size) {
      const auto vx = batch::load_unaligned(x + i);
      const auto t = xsimd::tanh(vx * batch::load_unaligned(w + i) + vb);
      acc += t;
      ((one - t * t) * vx).store_unaligned(gw + i);
    }
    float l = xsimd::hadd(acc);
    for (; i < kMid; ++i) {
      const float t = std::tanh(x[i] * w[i] + in.b);
      l += t, gw[i] = (1 - t * t) * x[i];
    }
    benchmark::DoNotOptimize(l);
    benchmark::ClobberMemory();
  }
}
void Tanh_Eigen(benchmark::State& state) {
  auto& in = inputs_b();
  using arr = Eigen::Map<Eigen::ArrayXf>;
  arr x(in.x.data(), kMid), w(in.w.data(), kMid), gw(in.gw.data(), kMid);
  Eigen::ArrayXf t(kMid);
  for (auto _ : state) {
    t = (x * w + in.b).tanh();
    const float l = t.sum();
    gw = (1.f - t.square()) * x;
    benchmark::DoNotOptimize(l);
    benchmark::ClobberMemory();
  }
}

// ---- a mean squared error: its 1 / count is a stored scalar (session 26) ----
struct mse_inputs {
  vec x = filled(kMid, -1.f, 0.002f), w = filled(kMid, 0.5f, -0.001f), y = filled(kMid, 0.25f, 0.003f),
      gw = vec::from_shape({kMid});
};
mse_inputs& inputs_c() {
  static mse_inputs in;
  return in;
}
const auto loss_c = [](auto x, auto w, auto y) { return sf::reduce_mean(sf::square(x * w - y)); };

void Mse_Forward(benchmark::State& state) {
  auto& in = inputs_c();
  auto f = sf::function(loss_c);
  for (auto _ : state) benchmark::DoNotOptimize(f(in.x, in.w, in.y));
}
void Mse_ValueAndGrad(benchmark::State& state) {
  auto& in = inputs_c();
  auto vg = sf::value_and_grad<1>(loss_c);
  float l = 0;
  for (auto _ : state) {
    vg.call_into(std::tie(l, in.gw), in.x, in.w, in.y);
    benchmark::DoNotOptimize(l);
    benchmark::ClobberMemory();
  }
}
void Mse_Hand(benchmark::State& state) {
  auto& in = inputs_c();
  const float scale = 2.f / static_cast<float>(kMid);
  for (auto _ : state) {
    const float *x = in.x.data(), *w = in.w.data(), *y = in.y.data();
    float* gw = in.gw.data();
    batch acc(0.f);
    const batch vs(scale);
    std::size_t i = 0;
    for (; i + batch::size <= kMid; i += batch::size) {
      const auto vx = batch::load_unaligned(x + i);
      const auto r = vx * batch::load_unaligned(w + i) - batch::load_unaligned(y + i);
      acc += r * r;
      (vs * r * vx).store_unaligned(gw + i);
    }
    float l = xsimd::hadd(acc);
    for (; i < kMid; ++i) {
      const float r = x[i] * w[i] - y[i];
      l += r * r, gw[i] = scale * r * x[i];
    }
    benchmark::DoNotOptimize(l / static_cast<float>(kMid));
    benchmark::ClobberMemory();
  }
}
void Mse_Eigen(benchmark::State& state) {
  auto& in = inputs_c();
  using arr = Eigen::Map<Eigen::ArrayXf>;
  arr x(in.x.data(), kMid), w(in.w.data(), kMid), y(in.y.data(), kMid), gw(in.gw.data(), kMid);
  Eigen::ArrayXf r(kMid);
  for (auto _ : state) {
    r = x * w - y;
    const float l = r.square().mean();
    gw = (2.f / static_cast<float>(kMid)) * r * x;
    benchmark::DoNotOptimize(l);
    benchmark::ClobberMemory();
  }
}
// ---- rows centred: a plain int axis against a static one ----
constexpr std::size_t kRows = 1024, kCols = 1024;
using mat = xt::xtensor<float, 2>;
struct centre_inputs {
  mat x = [] {
    mat m = mat::from_shape({kRows, kCols});
    for (std::size_t i = 0; i < m.size(); ++i) m.data()[i] = -1.f + 0.002f * static_cast<float>(i % 1000);
    return m;
  }();
  mat gx = mat::from_shape({kRows, kCols});
};
centre_inputs& inputs_d() {
  static centre_inputs in;
  return in;
}
const auto centred_int = [](auto x) { return sf::reduce_sum(sf::square(x - sf::reduce_mean(x, -1, sf::keepdims))); };
const auto centred_static = [](auto x) { return sf::reduce_sum(sf::square(x - sf::reduce_mean(x, sf::axes<-1>{}, sf::keepdims))); };

template <class Loss>
void centre_gradient(benchmark::State& state, Loss loss) {
  auto& in = inputs_d();
  auto vg = sf::value_and_grad<0>(loss);
  float l = 0;
  for (auto _ : state) {
    vg.call_into(std::tie(l, in.gx), in.x);
    benchmark::DoNotOptimize(l);
    benchmark::ClobberMemory();
  }
}
void Centre_GradIntAxis(benchmark::State& state) { centre_gradient(state, centred_int); }
void Centre_GradStaticAxis(benchmark::State& state) { centre_gradient(state, centred_static); }
void Centre_Hand(benchmark::State& state) {
  auto& in = inputs_d();
  for (auto _ : state) {
    float l = 0;
    for (std::size_t r = 0; r < kRows; ++r) {
      const float* x = in.x.data() + r * kCols;
      float* g = in.gx.data() + r * kCols;
      batch acc(0.f);
      for (std::size_t j = 0; j < kCols; j += batch::size) acc += batch::load_unaligned(x + j);
      const batch m(xsimd::hadd(acc) / static_cast<float>(kCols));
      batch sq(0.f), sd(0.f);
      for (std::size_t j = 0; j < kCols; j += batch::size) {
        const auto d = batch::load_unaligned(x + j) - m;
        sq += d * d, sd += d;
        (d + d).store_unaligned(g + j);
      }
      // d/dx of the mean's share: -2 * sum(d) / n, added to every element of the row
      const batch shift(-2.f * xsimd::hadd(sd) / static_cast<float>(kCols));
      for (std::size_t j = 0; j < kCols; j += batch::size) (batch::load_unaligned(g + j) + shift).store_unaligned(g + j);
      l += xsimd::hadd(sq);
    }
    benchmark::DoNotOptimize(l);
    benchmark::ClobberMemory();
  }
}
void Centre_Eigen(benchmark::State& state) {
  auto& in = inputs_d();
  using arr = Eigen::Map<Eigen::Array<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;
  arr x(in.x.data(), kRows, kCols), g(in.gx.data(), kRows, kCols);
  Eigen::Array<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> d(kRows, kCols);
  for (auto _ : state) {
    d = x.colwise() - x.rowwise().mean();
    const float l = d.square().sum();
    g = 2.f * (d.colwise() - d.rowwise().mean());
    benchmark::DoNotOptimize(l);
    benchmark::ClobberMemory();
  }
}
}  // namespace

BENCHMARK(Grad4_Forward)->Unit(benchmark::kMillisecond)->Apply(sf_bench::add_min);
BENCHMARK(Grad4_ValueAndGrad)->Unit(benchmark::kMillisecond)->Apply(sf_bench::add_min);
BENCHMARK(Grad4_Hand)->Unit(benchmark::kMillisecond)->Apply(sf_bench::add_min);
BENCHMARK(Grad4_Eigen)->Unit(benchmark::kMillisecond)->Apply(sf_bench::add_min);
BENCHMARK(Tanh_Forward)->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(Tanh_ValueAndGrad)->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(Tanh_Hand)->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(Tanh_Eigen)->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(Mse_Forward)->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(Mse_ValueAndGrad)->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(Mse_Hand)->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(Mse_Eigen)->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(Centre_GradIntAxis)->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(Centre_GradStaticAxis)->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(Centre_Hand)->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(Centre_Eigen)->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
