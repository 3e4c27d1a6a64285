// bench_pool -- sf::max_pool2d / sf::avg_pool2d and the max-pool gradient (backend/cpu/pool.hpp)
// against a hand-written loop and Eigen's Tensor module (extract_image_patches + a reduction, how
// TF's CPU kernels are written), float32, NHWC.
//
//   Max/...       ResNet's stem pool: 3x3, stride 2, SAME on 1x112x112x64 -> 1x56x56x64
//   Avg/...       a 2x2, stride 2, VALID average pool on 8x56x56x64 -> 8x28x28x64
//   MaxGrad/...   the gradient of the Max case (sum(max_pool(x) * m) with respect to x)
//   MaxJvp/...    max_pool's derivative along a tangent t of x's shape (TF's MaxPoolGradGrad, what
//                 sf::jvp and sf::hessian_vector_product run): t read at each window's first maximum
//
//   Staticflow     fn.call_into(y, ...), the traced function, one thread (the default)
//   Staticflow2T   the same with sf::set_num_threads(2)
//   HandLoop       the loops of the definition, channels innermost, sizes fixed at compile time
//   EigenTensor    Eigen::Tensor (RowMajor) extract_image_patches then maximum / mean over the
//                  window axes (Max and Avg only; single-threaded Eigen)
//
// Counter bytes_per_second: the input read plus the result written, once each. Every variant is
// checked against a double-precision reference at sampled outputs after timing. When
// tensorflow-cpu is pip-installed, bench/pool.py times TF's MaxPool / AvgPool / MaxPoolGrad.
#include <benchmark/benchmark.h>

#include <unsupported/Eigen/CXX11/Tensor>

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

#include "bench_common.hpp"

namespace sf = staticflow;

namespace {

struct pool_case {
  std::size_t n, h, w, c, k, s;
  bool same;
  constexpr std::size_t oh() const { return same ? (h + s - 1) / s : (h - k) / s + 1; }
  constexpr std::size_t ow() const { return same ? (w + s - 1) / s : (w - k) / s + 1; }
  constexpr std::size_t pad_top() const { return same ? ((oh() - 1) * s + k - std::min(h, (oh() - 1) * s + k)) / 2 : 0; }
  constexpr std::size_t pad_left() const { return same ? ((ow() - 1) * s + k - std::min(w, (ow() - 1) * s + k)) / 2 : 0; }
  constexpr std::size_t inputs() const { return n * h * w * c; }
  constexpr std::size_t outputs() const { return n * oh() * ow() * c; }
};
constexpr pool_case max_case{1, 112, 112, 64, 3, 2, true};
constexpr pool_case avg_case{8, 56, 56, 64, 2, 2, false};

struct data {
  pool_case pc;
  xt::xtensor<float, 4> x, y, m, dx, t;
  explicit data(const pool_case& p) : pc(p) {
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> u(-1, 1);
    x = xt::xtensor<float, 4>::from_shape({p.n, p.h, p.w, p.c});
    m = xt::xtensor<float, 4>::from_shape({p.n, p.oh(), p.ow(), p.c});
    y = xt::zeros<float>({p.n, p.oh(), p.ow(), p.c});
    dx = xt::zeros<float>({p.n, p.h, p.w, p.c});
    for (auto& v : x) v = u(rng);
    for (auto& v : m) v = u(rng);
    t = xt::xtensor<float, 4>::from_shape({p.n, p.h, p.w, p.c});
    for (auto& v : t) v = u(rng);
  }
  /// Output (b, i, j, k) of the max (or mean) pool, and where the maximum is.
  double reference(bool max, std::size_t b, std::size_t i, std::size_t j, std::size_t k, std::size_t* at = nullptr) const {
    double best = -std::numeric_limits<double>::infinity(), sum = 0;
    std::size_t count = 0;
    for (std::size_t u = 0; u < pc.k; ++u)
      for (std::size_t v = 0; v < pc.k; ++v) {
        const long r = long(i * pc.s + u) - long(pc.pad_top()), q = long(j * pc.s + v) - long(pc.pad_left());
        if (r < 0 || q < 0 || r >= long(pc.h) || q >= long(pc.w)) continue;
        const double value = x(b, std::size_t(r), std::size_t(q), k);
        if (value > best && at) *at = ((b * pc.h + std::size_t(r)) * pc.w + std::size_t(q)) * pc.c + k;
        best = std::max(best, value), sum += value, ++count;
      }
    return max ? best : sum / double(count);
  }
  void check(benchmark::State& state, bool max) const {
    std::mt19937 rng(9);
    for (int sample = 0; sample < 256; ++sample) {
      const std::size_t b = rng() % pc.n, i = rng() % pc.oh(), j = rng() % pc.ow(), k = rng() % pc.c;
      const double want = reference(max, b, i, j, k), got = y(b, i, j, k);
      if (!(std::fabs(got - want) <= 1e-5 * (1 + std::fabs(want)))) {
        char msg[128];
        std::snprintf(msg, sizeof msg, "wrong output at (%zu, %zu, %zu, %zu): %g, expected %g", b, i, j, k, got, want);
        state.SkipWithError(msg);
        return;
      }
    }
  }
  /// y (the tangent's derivative) against the definition: t at each window's first maximum.
  void check_tangent(benchmark::State& state) const {
    for (std::size_t b = 0; b < pc.n; ++b)
      for (std::size_t i = 0; i < pc.oh(); ++i)
        for (std::size_t j = 0; j < pc.ow(); ++j)
          for (std::size_t k = 0; k < pc.c; ++k) {
            std::size_t at = 0;
            reference(true, b, i, j, k, &at);
            if (y(b, i, j, k) != t.data()[at]) {
              state.SkipWithError("wrong tangent");
              return;
            }
          }
  }
  /// dx against the definition: the sum of m over the windows whose first maximum each input is.
  void check_gradient(benchmark::State& state) const {
    std::vector<double> expected(pc.inputs(), 0.0);
    for (std::size_t b = 0; b < pc.n; ++b)
      for (std::size_t i = 0; i < pc.oh(); ++i)
        for (std::size_t j = 0; j < pc.ow(); ++j)
          for (std::size_t k = 0; k < pc.c; ++k) {
            std::size_t at = 0;
            reference(true, b, i, j, k, &at);
            expected[at] += m(b, i, j, k);
          }
    for (std::size_t e = 0; e < expected.size(); ++e)
      if (!(std::fabs(dx.data()[e] - expected[e]) <= 1e-5 * (1 + std::fabs(expected[e])))) {
        state.SkipWithError("wrong gradient");
        return;
      }
  }
};

void report(benchmark::State& state, const pool_case& pc, std::size_t arrays_read, std::size_t arrays_written) {
  const double bytes = double(sizeof(float)) * double(pc.inputs() * arrays_read + pc.outputs() * arrays_written);
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes * double(state.iterations())));
}

/// Times fn.call_into(out, args...) on `threads` threads, after one untimed call.
template <class Fn, class Out, class... Args>
void time_call_into(benchmark::State& state, std::size_t threads, Fn& fn, Out& out, const Args&... args) {
  const std::size_t saved = sf::num_threads();
  sf::set_num_threads(threads);
  fn.call_into(out, args...);
  for (auto _ : state) {
    fn.call_into(out, args...);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  sf::set_num_threads(saved);
}

/// Calls tap(base) with the input offset of each element of the max case's window (i, j) inside
/// the image, row-major (the hand loops' walk).
template <class Tap>
void for_each_max_case_tap(std::size_t i, std::size_t j, Tap tap) {
  constexpr pool_case pc = max_case;
  for (std::size_t u = 0; u < pc.k; ++u)
    for (std::size_t v = 0; v < pc.k; ++v) {
      const long r = long(i * pc.s + u) - long(pc.pad_top()), q = long(j * pc.s + v) - long(pc.pad_left());
      if (r < 0 || q < 0 || r >= long(pc.h) || q >= long(pc.w)) continue;
      tap((std::size_t(r) * pc.w + std::size_t(q)) * pc.c);
    }
}

template <bool Max>
auto pool_function() {
  if constexpr (Max) return sf::function([](auto x) { return sf::max_pool2d(x, sf::ksize<3>, sf::strides<2>, sf::padding::same); });
  else return sf::function([](auto x) { return sf::avg_pool2d(x, sf::ksize<2>); });
}

template <bool Max>
void run_staticflow(benchmark::State& state, const pool_case& pc, std::size_t threads) {
  data d(pc);
  auto fn = pool_function<Max>();
  time_call_into(state, threads, fn, d.y, d.x);
  d.check(state, Max);
  report(state, pc, 1, 1);
}

/// The definition with the sizes as constants, channels innermost: what one would write by hand.
template <bool Max, std::size_t N, std::size_t H, std::size_t W, std::size_t C, std::size_t K, std::size_t S, bool Same>
void pool_loop(const float* x, float* y) {
  constexpr pool_case pc{N, H, W, C, K, S, Same};
  constexpr std::size_t OH = pc.oh(), OW = pc.ow(), PT = pc.pad_top(), PL = pc.pad_left();
  for (std::size_t b = 0; b < N; ++b)
    for (std::size_t i = 0; i < OH; ++i)
      for (std::size_t j = 0; j < OW; ++j) {
        float acc[C];
        std::fill_n(acc, C, Max ? -std::numeric_limits<float>::infinity() : 0.f);
        std::size_t count = 0;
        for (std::size_t u = 0; u < K; ++u)
          for (std::size_t v = 0; v < K; ++v) {
            const long r = long(i * S + u) - long(PT), q = long(j * S + v) - long(PL);
            if (r < 0 || q < 0 || r >= long(H) || q >= long(W)) continue;
            const float* in = x + ((b * H + std::size_t(r)) * W + std::size_t(q)) * C;
            // a select, not std::max: g++ 12 vectorizes this form, not std::max's (6.2 ms instead of
            // 0.13 for the Max case)
            for (std::size_t k = 0; k < C; ++k) acc[k] = Max ? (in[k] > acc[k] ? in[k] : acc[k]) : acc[k] + in[k];
            ++count;
          }
        float* out = y + ((b * OH + i) * OW + j) * C;
        for (std::size_t k = 0; k < C; ++k) out[k] = Max ? acc[k] : acc[k] / float(count);
      }
}

template <bool Max>
void run_hand_loop(benchmark::State& state, const pool_case& pc) {
  data d(pc);
  for (auto _ : state) {
    if constexpr (Max) pool_loop<true, max_case.n, max_case.h, max_case.w, max_case.c, max_case.k, max_case.s, max_case.same>(d.x.data(), d.y.data());
    else pool_loop<false, avg_case.n, avg_case.h, avg_case.w, avg_case.c, avg_case.k, avg_case.s, avg_case.same>(d.x.data(), d.y.data());
    benchmark::DoNotOptimize(d.y.data());
    benchmark::ClobberMemory();
  }
  d.check(state, Max);
  report(state, pc, 1, 1);
}

template <bool Max>
void run_eigen(benchmark::State& state, const pool_case& pc) {
  data d(pc);
  using in_map = Eigen::TensorMap<Eigen::Tensor<const float, 4, Eigen::RowMajor>>;
  using out_map = Eigen::TensorMap<Eigen::Tensor<float, 4, Eigen::RowMajor>>;
  const in_map x(d.x.data(), long(pc.n), long(pc.h), long(pc.w), long(pc.c));
  out_map y(d.y.data(), long(pc.n), long(pc.oh()), long(pc.ow()), long(pc.c));
  const auto padding = pc.same ? Eigen::PADDING_SAME : Eigen::PADDING_VALID;
  // RowMajor patches are [N, patches, KH, KW, C]: reduce the window axes 2 and 3
  const Eigen::array<long, 2> window_axes{2, 3};
  const Eigen::array<long, 4> out_shape{long(pc.n), long(pc.oh()), long(pc.ow()), long(pc.c)};
  for (auto _ : state) {
    const auto patches =
        x.extract_image_patches(long(pc.k), long(pc.k), long(pc.s), long(pc.s), 1, 1, padding, -Eigen::NumTraits<float>::highest());
    if constexpr (Max) y = patches.maximum(window_axes).reshape(out_shape);
    else y = patches.mean(window_axes).reshape(out_shape);  // VALID only: no padding enters the mean
    benchmark::DoNotOptimize(d.y.data());
    benchmark::ClobberMemory();
  }
  d.check(state, Max);
  report(state, pc, 1, 1);
}

void run_gradient_staticflow(benchmark::State& state, std::size_t threads) {
  data d(max_case);
  auto grad = sf::grad<0>([](auto x, auto m) {
    return sf::reduce_sum(sf::max_pool2d(x, sf::ksize<3>, sf::strides<2>, sf::padding::same) * m);
  });
  time_call_into(state, threads, grad, d.dx, d.x, d.m);
  d.check_gradient(state);
  report(state, max_case, 2, 1);
}

/// The hand-written gradient: for each window and channel, find the first maximum, add m there.
void run_gradient_hand_loop(benchmark::State& state) {
  data d(max_case);
  constexpr pool_case pc = max_case;
  constexpr std::size_t OH = pc.oh(), OW = pc.ow(), C = pc.c;
  for (auto _ : state) {
    float* dx = d.dx.data();
    const float* x = d.x.data();
    std::fill_n(dx, pc.inputs(), 0.f);
    for (std::size_t i = 0; i < OH; ++i)
      for (std::size_t j = 0; j < OW; ++j) {
        float best[C];
        std::size_t at[C];
        std::fill_n(best, C, -std::numeric_limits<float>::infinity());
        for_each_max_case_tap(i, j, [&](std::size_t base) {
          for (std::size_t k = 0; k < C; ++k)
            if (x[base + k] > best[k]) best[k] = x[base + k], at[k] = base + k;
        });
        const float* m = d.m.data() + (i * OW + j) * C;
        for (std::size_t k = 0; k < C; ++k) dx[at[k]] += m[k];
      }
    benchmark::DoNotOptimize(d.dx.data());
    benchmark::ClobberMemory();
  }
  d.check_gradient(state);
  report(state, max_case, 2, 1);
}

void run_tangent_staticflow(benchmark::State& state, std::size_t threads) {
  data d(max_case);
  auto directional = sf::function([](auto x, auto t) {
    const auto [value, product] = sf::jvp<0>([](auto a) {
      return sf::max_pool2d(a, sf::ksize<3>, sf::strides<2>, sf::padding::same);
    })(x, t);
    return product;  // the value is not asked for: not computed
  });
  time_call_into(state, threads, directional, d.y, d.x, d.t);
  d.check_tangent(state);
  report(state, max_case, 2, 1);
}

/// The hand-written MaxPoolGradGrad: the max loop carrying t's value at the running maximum.
void run_tangent_hand_loop(benchmark::State& state) {
  data d(max_case);
  constexpr pool_case pc = max_case;
  constexpr std::size_t OH = pc.oh(), OW = pc.ow(), C = pc.c;
  for (auto _ : state) {
    const float* x = d.x.data();
    const float* t = d.t.data();
    for (std::size_t i = 0; i < OH; ++i)
      for (std::size_t j = 0; j < OW; ++j) {
        float best[C], value[C];
        std::fill_n(best, C, -std::numeric_limits<float>::infinity());
        std::fill_n(value, C, 0.f);
        for_each_max_case_tap(i, j, [&](std::size_t base) {
          for (std::size_t k = 0; k < C; ++k) {  // selects, so that g++ vectorizes
            const bool replaces = x[base + k] > best[k];
            value[k] = replaces ? t[base + k] : value[k];
            best[k] = replaces ? x[base + k] : best[k];
          }
        });
        std::copy_n(value, C, d.y.data() + (i * OW + j) * C);
      }
    benchmark::DoNotOptimize(d.y.data());
    benchmark::ClobberMemory();
  }
  d.check_tangent(state);
  report(state, max_case, 2, 1);
}

void Max_Staticflow(benchmark::State& s) { run_staticflow<true>(s, max_case, 1); }
void Max_Staticflow2T(benchmark::State& s) { run_staticflow<true>(s, max_case, 2); }
void Max_HandLoop(benchmark::State& s) { run_hand_loop<true>(s, max_case); }
void Max_EigenTensor(benchmark::State& s) { run_eigen<true>(s, max_case); }
void Avg_Staticflow(benchmark::State& s) { run_staticflow<false>(s, avg_case, 1); }
void Avg_Staticflow2T(benchmark::State& s) { run_staticflow<false>(s, avg_case, 2); }
void Avg_HandLoop(benchmark::State& s) { run_hand_loop<false>(s, avg_case); }
void Avg_EigenTensor(benchmark::State& s) { run_eigen<false>(s, avg_case); }
void MaxGrad_Staticflow(benchmark::State& s) { run_gradient_staticflow(s, 1); }
void MaxGrad_Staticflow2T(benchmark::State& s) { run_gradient_staticflow(s, 2); }
void MaxGrad_HandLoop(benchmark::State& s) { run_gradient_hand_loop(s); }
void MaxJvp_Staticflow(benchmark::State& s) { run_tangent_staticflow(s, 1); }
void MaxJvp_Staticflow2T(benchmark::State& s) { run_tangent_staticflow(s, 2); }
void MaxJvp_HandLoop(benchmark::State& s) { run_tangent_hand_loop(s); }

}  // namespace

BENCHMARK(Max_Staticflow)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Max_Staticflow2T)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Max_HandLoop)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Max_EigenTensor)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Avg_Staticflow)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Avg_Staticflow2T)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Avg_HandLoop)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(Avg_EigenTensor)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(MaxGrad_Staticflow)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(MaxGrad_Staticflow2T)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(MaxGrad_HandLoop)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(MaxJvp_Staticflow)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(MaxJvp_Staticflow2T)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(MaxJvp_HandLoop)->Unit(benchmark::kMicrosecond)->UseRealTime();
