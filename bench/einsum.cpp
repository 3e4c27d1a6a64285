// bench_einsum -- sf::einsum's two paths against a hand-written loop and Eigen, in one run.
//
// (a) "bkj,bij->bki" (attention scores: keys against queries), b = 8, k = i = 128, j = 64, float32,
//     one thread. The matmul path: one sf::matmul of b x a^T (the equation's first operand's free
//     label leads the output, so no transpose of the result).
//       Einsum          sf::einsum through call_into
//       Matmul          sf::matmul(keys, queries, sf::transpose_b): what the path lowers to
//       EigenBatched    per batch, C_b.noalias() = K_b * Q_b^T on row-major Eigen maps
//       HandLoop        per batch, the i-j-p triple loop (a dot product of two rows per element)
// (b) "ij,ij->i" (row dot products), 4096 x 64 float32: the fused path, one loop into the
//     reduction.
//       EinsumRowDots   sf::einsum
//       EigenRowDots    (a.cwiseProduct(b)).rowwise().sum() on row-major maps
//       HandRowDots     two nested loops
// (c) "ijk,jk->i" (two contracted labels), i = 1024, j = k = 64: the fused path against Eigen's
//     matrix-vector product of a as [i, j*k] with b as a vector, and a hand loop.
// (d) "bsi,io->bso" (Keras EinsumDense on a batch of sequences), b = 8, s = 64, i = o = 128: the
//     matmul path with b a batch label of the first operand only (the kernel broadcast over it),
//     against the fused path it took before (the same equation written as a multiply into
//     reduce_sum) and Eigen's GEMM of x as [b*s, i].
// Each benchmark checks its result against a double-precision loop once, before timing.
#include <benchmark/benchmark.h>

#include <Eigen/Core>

#include <cmath>
#include <cstddef>
#include <random>

#include <staticflow/staticflow.hpp>

#include "bench_common.hpp"

namespace sf = staticflow;

namespace {
template <std::size_t R>
xt::xtensor<float, R> random_tensor(std::array<std::size_t, R> shape, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  auto x = xt::xtensor<float, R>::from_shape(shape);
  for (auto& v : x) v = dist(rng);
  return x;
}

constexpr std::size_t nb = 8, nk = 128, ni = 128, nj = 64;
const auto& keys() { static const auto x = random_tensor<3>({nb, nk, nj}, 1); return x; }
const auto& queries() { static const auto x = random_tensor<3>({nb, ni, nj}, 2); return x; }

double score(std::size_t b, std::size_t k, std::size_t i) {
  double d = 0;
  for (std::size_t j = 0; j < nj; ++j) d += double(keys()(b, k, j)) * queries()(b, i, j);
  return d;
}
template <class Out>
bool scores_ok(benchmark::State& state, const Out& out) {
  for (std::size_t b = 0; b < nb; b += 3)
    for (std::size_t k = 0; k < nk; k += 17)
      for (std::size_t i = 0; i < ni; i += 13)
        if (std::fabs(out(b, k, i) - score(b, k, i)) > 1e-3) {
          state.SkipWithError("wrong scores");
          return false;
        }
  return true;
}

/// Times run() (which writes out) after checking its result once; FLOPS = 2 b k i j.
template <class Run>
void time_scores(benchmark::State& state, xt::xtensor<float, 3>& out, Run run) {
  run();
  if (!scores_ok(state, out)) return;
  for (auto _ : state) {
    run();
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.counters["FLOPS"] = benchmark::Counter(2.0 * nb * nk * ni * nj, benchmark::Counter::kIsIterationInvariantRate);
}

void Einsum(benchmark::State& state) {
  auto f = sf::function([](auto k, auto q) { return sf::einsum<"bkj,bij->bki">(k, q); });
  auto out = xt::xtensor<float, 3>::from_shape({nb, nk, ni});
  time_scores(state, out, [&] { f.call_into(out, keys(), queries()); });
}

void Matmul(benchmark::State& state) {
  auto f = sf::function([](auto k, auto q) { return sf::matmul(k, q, sf::transpose_b); });
  auto out = xt::xtensor<float, 3>::from_shape({nb, nk, ni});
  time_scores(state, out, [&] { f.call_into(out, keys(), queries()); });
}

using row_major = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

void EigenBatched(benchmark::State& state) {
  Eigen::setNbThreads(1);
  auto out = xt::xtensor<float, 3>::from_shape({nb, nk, ni});
  time_scores(state, out, [&] {
    for (std::size_t b = 0; b < nb; ++b) {
      Eigen::Map<const row_major> k(keys().data() + b * nk * nj, nk, nj), q(queries().data() + b * ni * nj, ni, nj);
      Eigen::Map<row_major> c(out.data() + b * nk * ni, nk, ni);
      c.noalias() = k * q.transpose();
    }
  });
}

void HandLoop(benchmark::State& state) {
  auto out = xt::xtensor<float, 3>::from_shape({nb, nk, ni});
  time_scores(state, out, [&] {
    const float* k = keys().data();
    const float* q = queries().data();
    float* c = out.data();
    for (std::size_t b = 0; b < nb; ++b)
      for (std::size_t r = 0; r < nk; ++r)
        for (std::size_t i = 0; i < ni; ++i) {
          float d = 0;
          for (std::size_t j = 0; j < nj; ++j) d += k[(b * nk + r) * nj + j] * q[(b * ni + i) * nj + j];
          c[(b * nk + r) * ni + i] = d;
        }
  });
}

// ---- (b) row dot products -----------------------------------------------------------------
constexpr std::size_t rows = 4096, cols = 64;
const auto& left() { static const auto x = random_tensor<2>({rows, cols}, 3); return x; }
const auto& right() { static const auto x = random_tensor<2>({rows, cols}, 4); return x; }

bool row_dots_ok(benchmark::State& state, const float* out) {
  for (std::size_t r = 0; r < rows; r += 97) {
    double d = 0;
    for (std::size_t c = 0; c < cols; ++c) d += double(left()(r, c)) * right()(r, c);
    if (std::fabs(out[r] - d) > 1e-4) {
      state.SkipWithError("wrong row dots");
      return false;
    }
  }
  return true;
}

template <class Run>
void time_row_dots(benchmark::State& state, xt::xtensor<float, 1>& out, Run run) {
  run();
  if (!row_dots_ok(state, out.data())) return;
  for (auto _ : state) {
    run();
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(2 * rows * cols * sizeof(float)));
}

void EinsumRowDots(benchmark::State& state) {
  auto f = sf::function([](auto a, auto b) { return sf::einsum<"ij,ij->i">(a, b); });
  auto out = xt::xtensor<float, 1>::from_shape({rows});
  time_row_dots(state, out, [&] { f.call_into(out, left(), right()); });
}

void EigenRowDots(benchmark::State& state) {
  auto out = xt::xtensor<float, 1>::from_shape({rows});
  Eigen::Map<const row_major> a(left().data(), rows, cols), b(right().data(), rows, cols);
  Eigen::Map<Eigen::VectorXf> o(out.data(), rows);
  time_row_dots(state, out, [&] { o.noalias() = a.cwiseProduct(b).rowwise().sum(); });
}

void HandRowDots(benchmark::State& state) {
  auto out = xt::xtensor<float, 1>::from_shape({rows});
  time_row_dots(state, out, [&] {
    const float* a = left().data();
    const float* b = right().data();
    for (std::size_t r = 0; r < rows; ++r) {
      float d = 0;
      for (std::size_t c = 0; c < cols; ++c) d += a[r * cols + c] * b[r * cols + c];
      out.data()[r] = d;
    }
  });
}

// ---- (c) two contracted labels ---------------------------------------------------------------
constexpr std::size_t ti = 1024, tj = 64, tk = 64;
const auto& cube() { static const auto x = random_tensor<3>({ti, tj, tk}, 5); return x; }
const auto& plane() { static const auto x = random_tensor<2>({tj, tk}, 6); return x; }

template <class Run>
void time_contraction(benchmark::State& state, xt::xtensor<float, 1>& out, Run run) {
  run();
  for (std::size_t i = 0; i < ti; i += 101) {
    double d = 0;
    for (std::size_t j = 0; j < tj * tk; ++j) d += double(cube().data()[i * tj * tk + j]) * plane().data()[j];
    if (std::fabs(out(i) - d) > 1e-3) {
      state.SkipWithError("wrong contraction");
      return;
    }
  }
  for (auto _ : state) {
    run();
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(ti * tj * tk * sizeof(float)));
}

void EinsumTwoContracted(benchmark::State& state) {
  auto f = sf::function([](auto a, auto b) { return sf::einsum<"ijk,jk->i">(a, b); });
  auto out = xt::xtensor<float, 1>::from_shape({ti});
  time_contraction(state, out, [&] { f.call_into(out, cube(), plane()); });
}

void EigenTwoContracted(benchmark::State& state) {
  Eigen::setNbThreads(1);
  auto out = xt::xtensor<float, 1>::from_shape({ti});
  Eigen::Map<const row_major> a(cube().data(), ti, tj * tk);
  Eigen::Map<const Eigen::VectorXf> b(plane().data(), tj * tk);
  Eigen::Map<Eigen::VectorXf> o(out.data(), ti);
  time_contraction(state, out, [&] { o.noalias() = a * b; });
}

void HandTwoContracted(benchmark::State& state) {
  auto out = xt::xtensor<float, 1>::from_shape({ti});
  time_contraction(state, out, [&] {
    const float* a = cube().data();
    const float* b = plane().data();
    for (std::size_t i = 0; i < ti; ++i) {
      float d = 0;
      for (std::size_t j = 0; j < tj * tk; ++j) d += a[i * tj * tk + j] * b[j];
      out.data()[i] = d;
    }
  });
}
constexpr std::size_t db = 8, ds = 64, di = 128, dout = 128;
const auto& sequences() { static const auto x = random_tensor<3>({db, ds, di}, 7); return x; }
const auto& dense_kernel() { static const auto x = random_tensor<2>({di, dout}, 8); return x; }

template <class Run>
void time_dense(benchmark::State& state, xt::xtensor<float, 3>& out, Run run) {
  run();
  for (std::size_t b = 0; b < db; b += 3)
    for (std::size_t t = 0; t < ds; t += 7)
      for (std::size_t o = 0; o < dout; o += 11) {
        double d = 0;
        for (std::size_t i = 0; i < di; ++i) d += double(sequences()(b, t, i)) * dense_kernel()(i, o);
        if (std::fabs(out(b, t, o) - d) > 1e-3) return state.SkipWithError("wrong dense layer");
      }
  for (auto _ : state) {
    run();
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.counters["FLOPS"] = benchmark::Counter(2.0 * db * ds * di * dout, benchmark::Counter::kIsIterationInvariantRate);
}

void EinsumDense(benchmark::State& state) {
  auto f = sf::function([](auto x, auto w) { return sf::einsum<"bsi,io->bso">(x, w); });
  auto out = xt::xtensor<float, 3>::from_shape({db, ds, dout});
  time_dense(state, out, [&] { f.call_into(out, sequences(), dense_kernel()); });
}

void FusedDense(benchmark::State& state) {  // the fused path's graph, written out
  auto f = sf::function([](auto x, auto w) {
    return sf::reduce_sum(sf::expand_dims(x, sf::axes<2>{}) * sf::expand_dims(sf::expand_dims(sf::transpose(w), sf::axes<0>{}), sf::axes<0>{}),
                          sf::axes<3>{});
  });
  auto out = xt::xtensor<float, 3>::from_shape({db, ds, dout});
  time_dense(state, out, [&] { f.call_into(out, sequences(), dense_kernel()); });
}

void EigenDense(benchmark::State& state) {
  Eigen::setNbThreads(1);
  auto out = xt::xtensor<float, 3>::from_shape({db, ds, dout});
  Eigen::Map<const row_major> x(sequences().data(), db * ds, di);
  Eigen::Map<const row_major> w(dense_kernel().data(), di, dout);
  Eigen::Map<row_major> o(out.data(), db * ds, dout);
  time_dense(state, out, [&] { o.noalias() = x * w; });
}
}  // namespace

BENCHMARK(Einsum)->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(Matmul)->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(EigenBatched)->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(HandLoop)->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(EinsumRowDots)->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(EigenRowDots)->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(HandRowDots)->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(EinsumTwoContracted)->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(EigenTwoContracted)->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(HandTwoContracted)->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(EinsumDense)->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(FusedDense)->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
BENCHMARK(EigenDense)->Unit(benchmark::kMicrosecond)->Apply(sf_bench::add_min);
