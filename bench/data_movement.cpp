// bench_data_movement -- the axis-map ops (backend/cpu/data_movement.hpp) on a float32 [1024, 1024]
// image, against a hand-written loop, Eigen 3.4 and xtensor, one thread.
//
//   Pad/...         pad by 1 on every side with zeros (a conv's SAME border): [1026, 1026]
//   PadReflect/...  pad by 3 on every side, REFLECT (np.pad / tf.pad mode): [1030, 1030]
//   Reverse/...     reverse the last axis (a horizontal flip)
//   Roll/...        roll the last axis by 3
//   Tile/...        tile 2 x 2: [2048, 2048]
//   PadGradient/... d/dx sum(pad(x, 1) * w): the window of w inside the border (TF's PadGrad);
//                   no peer has it, so the hand loop is the anchor
//
// Counter bytes_per_second: the bytes read and written. Each result is checked after timing.
// xtensor 0.24.3's xt::pad (and xt::tile) return wrong values and overrun the heap here (AddressSanitizer,
// xtensor and xarray alike), so they are not in the runs.
#include <benchmark/benchmark.h>

#include <Eigen/Dense>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>

#include <xtensor/xmanipulation.hpp>
#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

#include "bench_common.hpp"

namespace sf = staticflow;

namespace {

constexpr std::size_t n = 1024;
using matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

xt::xtensor<float, 2> image(std::size_t rows, std::size_t cols, unsigned seed) {
  xt::xtensor<float, 2> x = xt::zeros<float>({rows, cols});
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  for (auto& v : x) v = u(rng);
  return x;
}

template <class Body>
void timed(benchmark::State& state, const float* out, std::size_t bytes, Body body) {
  body();
  for (auto _ : state) {
    body();
    benchmark::DoNotOptimize(out);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes * state.iterations()));
}

/// out(i, j) == x(row(i), col(j)) (or 0 where row / col is out of range) at sampled elements.
template <class Row, class Col>
void check(benchmark::State& state, const xt::xtensor<float, 2>& out, const xt::xtensor<float, 2>& x, Row row, Col col) {
  std::mt19937 rng(7);
  for (int s = 0; s < 4096; ++s) {
    const std::size_t i = rng() % out.shape(0), j = rng() % out.shape(1);
    const std::ptrdiff_t r = row(static_cast<std::ptrdiff_t>(i)), c = col(static_cast<std::ptrdiff_t>(j));
    const bool inside = r >= 0 && c >= 0 && r < std::ptrdiff_t(x.shape(0)) && c < std::ptrdiff_t(x.shape(1));
    if (out(i, j) != (inside ? x(std::size_t(r), std::size_t(c)) : 0.f)) return state.SkipWithError("wrong result");
  }
}
std::ptrdiff_t reflect(std::ptrdiff_t q, std::ptrdiff_t m) { return q < 0 ? -q : q >= m ? 2 * (m - 1) - q : q; }

// ---- pad by 1 with zeros ----
constexpr std::size_t pad_bytes = sizeof(float) * (n * n + (n + 2) * (n + 2));
void Pad_Staticflow(benchmark::State& state) {
  const auto x = image(n, n, 1);
  xt::xtensor<float, 2> out = xt::zeros<float>({n + 2, n + 2});
  auto fn = sf::function([](auto a) { return sf::pad(a, {{1, 1}, {1, 1}}); });
  timed(state, out.data(), pad_bytes, [&] { fn.call_into(out, x); });
  check(state, out, x, [](auto i) { return i - 1; }, [](auto j) { return j - 1; });
}
void Pad_HandLoop(benchmark::State& state) {
  const auto x = image(n, n, 1);
  xt::xtensor<float, 2> out = xt::zeros<float>({n + 2, n + 2});
  timed(state, out.data(), pad_bytes, [&] {
    float* o = out.data();
    std::fill_n(o, n + 2, 0.f);
    for (std::size_t i = 0; i < n; ++i) {
      float* row = o + (i + 1) * (n + 2);
      row[0] = 0.f;
      std::copy_n(x.data() + i * n, n, row + 1);
      row[n + 1] = 0.f;
    }
    std::fill_n(o + (n + 1) * (n + 2), n + 2, 0.f);
  });
  check(state, out, x, [](auto i) { return i - 1; }, [](auto j) { return j - 1; });
}
void Pad_Eigen(benchmark::State& state) {
  const auto x = image(n, n, 1);
  xt::xtensor<float, 2> out = xt::zeros<float>({n + 2, n + 2});
  Eigen::Map<const matrix> in(x.data(), long(n), long(n));
  Eigen::Map<matrix> o(out.data(), long(n + 2), long(n + 2));
  timed(state, out.data(), pad_bytes, [&] {
    o.setZero();
    o.block(1, 1, long(n), long(n)) = in;
  });
  check(state, out, x, [](auto i) { return i - 1; }, [](auto j) { return j - 1; });
}
// ---- pad by 3, REFLECT ----
constexpr std::size_t reflect_bytes = sizeof(float) * (n * n + (n + 6) * (n + 6));
const auto reflect_row = [](auto i) { return reflect(i - 3, std::ptrdiff_t(n)); };
void PadReflect_Staticflow(benchmark::State& state) {
  const auto x = image(n, n, 2);
  xt::xtensor<float, 2> out = xt::zeros<float>({n + 6, n + 6});
  auto fn = sf::function([](auto a) { return sf::pad(a, {{3, 3}, {3, 3}}, sf::pad_mode::reflect); });
  timed(state, out.data(), reflect_bytes, [&] { fn.call_into(out, x); });
  check(state, out, x, reflect_row, reflect_row);
}
void PadReflect_HandLoop(benchmark::State& state) {
  const auto x = image(n, n, 2);
  xt::xtensor<float, 2> out = xt::zeros<float>({n + 6, n + 6});
  timed(state, out.data(), reflect_bytes, [&] {
    for (std::size_t i = 0; i < n + 6; ++i) {
      const float* in = x.data() + std::size_t(reflect(std::ptrdiff_t(i) - 3, std::ptrdiff_t(n))) * n;
      float* row = out.data() + i * (n + 6);
      for (std::size_t j = 0; j < 3; ++j) row[j] = in[3 - j];
      std::copy_n(in, n, row + 3);
      for (std::size_t j = 0; j < 3; ++j) row[n + 3 + j] = in[n - 2 - j];
    }
  });
  check(state, out, x, reflect_row, reflect_row);
}
// ---- reverse the last axis ----
constexpr std::size_t square_bytes = 2 * sizeof(float) * n * n;
const auto same = [](auto i) { return i; };
const auto flipped = [](auto j) { return std::ptrdiff_t(n) - 1 - j; };
void Reverse_Staticflow(benchmark::State& state) {
  const auto x = image(n, n, 3);
  xt::xtensor<float, 2> out = xt::zeros<float>({n, n});
  auto fn = sf::function([](auto a) { return sf::reverse(a, sf::axes<1>{}); });
  timed(state, out.data(), square_bytes, [&] { fn.call_into(out, x); });
  check(state, out, x, same, flipped);
}
void Reverse_HandLoop(benchmark::State& state) {
  const auto x = image(n, n, 3);
  xt::xtensor<float, 2> out = xt::zeros<float>({n, n});
  timed(state, out.data(), square_bytes, [&] {
    for (std::size_t i = 0; i < n; ++i) std::reverse_copy(x.data() + i * n, x.data() + (i + 1) * n, out.data() + i * n);
  });
  check(state, out, x, same, flipped);
}
void Reverse_Eigen(benchmark::State& state) {
  const auto x = image(n, n, 3);
  xt::xtensor<float, 2> out = xt::zeros<float>({n, n});
  Eigen::Map<const matrix> in(x.data(), long(n), long(n));
  Eigen::Map<matrix> o(out.data(), long(n), long(n));
  timed(state, out.data(), square_bytes, [&] { o = in.rowwise().reverse(); });
  check(state, out, x, same, flipped);
}
void Reverse_Xtensor(benchmark::State& state) {
  const auto x = image(n, n, 3);
  xt::xtensor<float, 2> out = xt::zeros<float>({n, n});
  timed(state, out.data(), square_bytes, [&] { out = xt::flip(x, 1); });
  check(state, out, x, same, flipped);
}

// ---- roll the last axis by 3 ----
const auto rolled = [](auto j) { return (j - 3 + std::ptrdiff_t(n)) % std::ptrdiff_t(n); };
void Roll_Staticflow(benchmark::State& state) {
  const auto x = image(n, n, 4);
  xt::xtensor<float, 2> out = xt::zeros<float>({n, n});
  auto fn = sf::function([](auto a) { return sf::roll(a, 3, sf::axes<1>{}); });
  timed(state, out.data(), square_bytes, [&] { fn.call_into(out, x); });
  check(state, out, x, same, rolled);
}
void Roll_HandLoop(benchmark::State& state) {
  const auto x = image(n, n, 4);
  xt::xtensor<float, 2> out = xt::zeros<float>({n, n});
  timed(state, out.data(), square_bytes, [&] {
    for (std::size_t i = 0; i < n; ++i) {
      const float* in = x.data() + i * n;
      float* row = out.data() + i * n;
      std::copy_n(in + n - 3, 3, row);
      std::copy_n(in, n - 3, row + 3);
    }
  });
  check(state, out, x, same, rolled);
}
void Roll_Xtensor(benchmark::State& state) {
  const auto x = image(n, n, 4);
  xt::xtensor<float, 2> out = xt::zeros<float>({n, n});
  timed(state, out.data(), square_bytes, [&] { out = xt::roll(x, 3, 1); });
  check(state, out, x, same, rolled);
}

// ---- tile 2 x 2 ----
constexpr std::size_t tile_bytes = sizeof(float) * 5 * n * n;
const auto wrapped = [](auto i) { return i % std::ptrdiff_t(n); };
void Tile_Staticflow(benchmark::State& state) {
  const auto x = image(n, n, 5);
  xt::xtensor<float, 2> out = xt::zeros<float>({2 * n, 2 * n});
  auto fn = sf::function([](auto a) { return sf::tile(a, {2, 2}); });
  timed(state, out.data(), tile_bytes, [&] { fn.call_into(out, x); });
  check(state, out, x, wrapped, wrapped);
}
void Tile_HandLoop(benchmark::State& state) {
  const auto x = image(n, n, 5);
  xt::xtensor<float, 2> out = xt::zeros<float>({2 * n, 2 * n});
  timed(state, out.data(), tile_bytes, [&] {
    for (std::size_t i = 0; i < 2 * n; ++i) {
      const float* in = x.data() + (i % n) * n;
      float* row = out.data() + i * 2 * n;
      std::copy_n(in, n, row);
      std::copy_n(in, n, row + n);
    }
  });
  check(state, out, x, wrapped, wrapped);
}
void Tile_Eigen(benchmark::State& state) {
  const auto x = image(n, n, 5);
  xt::xtensor<float, 2> out = xt::zeros<float>({2 * n, 2 * n});
  Eigen::Map<const matrix> in(x.data(), long(n), long(n));
  Eigen::Map<matrix> o(out.data(), long(2 * n), long(2 * n));
  timed(state, out.data(), tile_bytes, [&] { o = in.replicate(2, 2); });
  check(state, out, x, wrapped, wrapped);
}

// ---- the gradient of pad by 1 ----
void PadGradient_Staticflow(benchmark::State& state) {
  const auto x = image(n, n, 6), w = image(n + 2, n + 2, 7);
  xt::xtensor<float, 2> out = xt::zeros<float>({n, n});
  auto fn = sf::grad<0>([](auto a, auto v) { return sf::reduce_sum(sf::pad(a, {{1, 1}, {1, 1}}) * v); });
  timed(state, out.data(), pad_bytes, [&] { fn.call_into(out, x, w); });
  check(state, out, w, [](auto i) { return i + 1; }, [](auto j) { return j + 1; });
}
void PadGradient_HandLoop(benchmark::State& state) {
  const auto x = image(n, n, 6), w = image(n + 2, n + 2, 7);
  xt::xtensor<float, 2> out = xt::zeros<float>({n, n});
  timed(state, out.data(), pad_bytes, [&] {
    for (std::size_t i = 0; i < n; ++i) std::copy_n(w.data() + (i + 1) * (n + 2) + 1, n, out.data() + i * n);
  });
  check(state, out, w, [](auto i) { return i + 1; }, [](auto j) { return j + 1; });
}

}  // namespace

#define SF_DATA_MOVEMENT(name) BENCHMARK(name)->Unit(benchmark::kMicrosecond)->UseRealTime()
SF_DATA_MOVEMENT(Pad_Staticflow);
SF_DATA_MOVEMENT(Pad_HandLoop);
SF_DATA_MOVEMENT(Pad_Eigen);
SF_DATA_MOVEMENT(PadReflect_Staticflow);
SF_DATA_MOVEMENT(PadReflect_HandLoop);
SF_DATA_MOVEMENT(Reverse_Staticflow);
SF_DATA_MOVEMENT(Reverse_HandLoop);
SF_DATA_MOVEMENT(Reverse_Eigen);
SF_DATA_MOVEMENT(Reverse_Xtensor);
SF_DATA_MOVEMENT(Roll_Staticflow);
SF_DATA_MOVEMENT(Roll_HandLoop);
SF_DATA_MOVEMENT(Roll_Xtensor);
SF_DATA_MOVEMENT(Tile_Staticflow);
SF_DATA_MOVEMENT(Tile_HandLoop);
SF_DATA_MOVEMENT(Tile_Eigen);
SF_DATA_MOVEMENT(PadGradient_Staticflow);
SF_DATA_MOVEMENT(PadGradient_HandLoop);
