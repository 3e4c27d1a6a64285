// bench_matmul_kernel -- the matrix product kernels of backend/cpu/matmul.hpp against Eigen.
//
// (a) A chain of 4x4 float products, d = a·b·c·e (three products, two temporaries):
//   StaticChain4x4        cpu::matmul_static<float, 4, 4, 4> three times (row-major arrays)
//   EigenChain4x4         d.noalias() = a * b * c * e on Eigen::Matrix4f
//   HandLoopChain4x4      three plain i-j-p triple loops over row-major arrays
// Every iteration starts with benchmark::DoNotOptimize on the four inputs (the compiler must
// assume they changed) and ends with DoNotOptimize(d) and ClobberMemory.
//
// (b) Square float32 products C = A·B, n = 64, 256, 512, single-threaded:
//   Matmul/n              cpu::matmul (row-major)
//   EigenMatmul/n         c.noalias() = a * b on Eigen::MatrixXf, Eigen::setNbThreads(1)
// Row-major A·B is column-major Bᵀ·Aᵀ: the same work for Eigen's kernel in either order.
//
// (c) MatmulThreads/512/t   cpu::matmul with threads = t (1 or 2): wall-clock time.
//
// (d) A dense layer's backward products, batch 128, 784 -> 256, an operand stored transposed
// (what plan/transposed_operands.hpp gives the kernel): /0 dW = xᵀ·dy (784×128 · 128×256, x
// stored 128×784), /1 dx = dy·Wᵀ (128×256 · 256×784, W stored 784×256):
//   MatmulTransposed/w    cpu::matmul reading the operand where it lies (operand_order)
//   MatmulCopied/w        the transpose copied first, then cpu::matmul (the plan before session 44)
//   EigenTransposed/w     Eigen's product of a .transpose() (row-major maps, one thread)
//
// (e) A dense layer's forward pass, relu(x·w + b), batch 256, 784 -> 256, float32, one thread:
//   DenseFused            sf::function of it: the bias and relu done by the blocked kernel on each
//                         panel of rows it finishes (plan/epilogues.hpp)
//   DenseApart            the same with sf::materialize(sf::matmul(x, w)): the product, then a
//                         second pass for the bias and relu (the plan before session 61)
//   EigenDense            y.noalias() = x * w, then y = (y.rowwise() + b).cwiseMax(0)
//
// Counter FLOPS = 2·n³ per product. Large products are timed in real time (the threaded one
// works on two threads). Results are checked against a double-precision reference after timing.
#include <benchmark/benchmark.h>

#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <random>
#include <vector>

#include <staticflow/backend/cpu/matmul.hpp>
#include <staticflow/backend/cpu/matmul_static.hpp>
#include <staticflow/staticflow.hpp>
#include <xtensor/xtensor.hpp>

#include "bench_common.hpp"

namespace cpu = staticflow::cpu;

namespace {

// ----------------------------------------------------------------------------- 4x4 chain

struct chain_inputs {
  alignas(64) float a[16], b[16], c[16], e[16], d[16];
  Eigen::Matrix4f ea, eb, ec, ee, ed;

  chain_inputs() {
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> dist(-1.f, 1.f);
    float* all[] = {a, b, c, e};
    Eigen::Matrix4f* eall[] = {&ea, &eb, &ec, &ee};
    for (int m = 0; m < 4; ++m)
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) (*eall[m])(i, j) = all[m][i * 4 + j] = dist(rng);
    for (float& x : d) x = 0;
    ed.setZero();
  }

  // d[i][j] in double precision.
  double reference(int i, int j) const {
    double ab[16], abc[16];
    for (int r = 0; r < 4; ++r)
      for (int s = 0; s < 4; ++s) {
        ab[r * 4 + s] = 0;
        for (int p = 0; p < 4; ++p) ab[r * 4 + s] += double(a[r * 4 + p]) * b[p * 4 + s];
      }
    for (int r = 0; r < 4; ++r)
      for (int s = 0; s < 4; ++s) {
        abc[r * 4 + s] = 0;
        for (int p = 0; p < 4; ++p) abc[r * 4 + s] += ab[r * 4 + p] * c[p * 4 + s];
      }
    double v = 0;
    for (int p = 0; p < 4; ++p) v += abc[i * 4 + p] * e[p * 4 + j];
    return v;
  }
};

template <class Get>
void check_chain(benchmark::State& state, const chain_inputs& in, Get got) {
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      const double want = in.reference(i, j);
      if (!(std::fabs(got(i, j) - want) <= 1e-4)) {
        char msg[96];
        std::snprintf(msg, sizeof msg, "mismatch at (%d, %d): got %g, want %g", i, j, double(got(i, j)), want);
        state.SkipWithError(msg);
        return;
      }
    }
}

#define SF_CHAIN_LOOP(in, ...)       \
  for (auto _ : state) {             \
    benchmark::DoNotOptimize(in.a);  \
    benchmark::DoNotOptimize(in.b);  \
    benchmark::DoNotOptimize(in.c);  \
    benchmark::DoNotOptimize(in.e);  \
    benchmark::DoNotOptimize(in.ea); \
    benchmark::DoNotOptimize(in.eb); \
    benchmark::DoNotOptimize(in.ec); \
    benchmark::DoNotOptimize(in.ee); \
    __VA_ARGS__;                     \
    benchmark::DoNotOptimize(in.d);  \
    benchmark::DoNotOptimize(in.ed); \
    benchmark::ClobberMemory();      \
  }                                  \
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));

void StaticChain4x4(benchmark::State& state) {
  chain_inputs in;
  SF_CHAIN_LOOP(in, {
    alignas(64) float t1[16], t2[16];
    cpu::matmul_static<float, 4, 4, 4>(in.a, in.b, t1);
    cpu::matmul_static<float, 4, 4, 4>(t1, in.c, t2);
    cpu::matmul_static<float, 4, 4, 4>(t2, in.e, in.d);
  })
  check_chain(state, in, [&](int i, int j) { return in.d[i * 4 + j]; });
}

void EigenChain4x4(benchmark::State& state) {
  chain_inputs in;
  SF_CHAIN_LOOP(in, in.ed.noalias() = in.ea * in.eb * in.ec * in.ee)
  check_chain(state, in, [&](int i, int j) { return in.ed(i, j); });
}

inline void hand_product(const float* a, const float* b, float* c) {
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      float s = 0;
      for (int p = 0; p < 4; ++p) s += a[i * 4 + p] * b[p * 4 + j];
      c[i * 4 + j] = s;
    }
}

void HandLoopChain4x4(benchmark::State& state) {
  chain_inputs in;
  SF_CHAIN_LOOP(in, {
    alignas(64) float t1[16], t2[16];
    hand_product(in.a, in.b, t1);
    hand_product(t1, in.c, t2);
    hand_product(t2, in.e, in.d);
  })
  check_chain(state, in, [&](int i, int j) { return in.d[i * 4 + j]; });
}

// ----------------------------------------------------------------------------- square products

struct square_inputs {
  std::size_t n;
  std::vector<float> a, b, c;  // row-major
  Eigen::MatrixXf ea, eb, ec;  // column-major, ea = A (same values)

  explicit square_inputs(std::size_t n_) : n(n_), a(n * n), b(n * n), c(n * n, 0.f) {
    std::mt19937 rng(2);
    std::uniform_real_distribution<float> dist(-1.f, 1.f);
    for (float& x : a) x = dist(rng);
    for (float& x : b) x = dist(rng);
    const auto s = static_cast<Eigen::Index>(n);
    ea.resize(s, s);
    eb.resize(s, s);
    ec.setZero(s, s);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        ea(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = a[i * n + j];
        eb(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = b[i * n + j];
      }
  }

  double reference(std::size_t i, std::size_t j) const {
    double s = 0;
    for (std::size_t p = 0; p < n; ++p) s += double(a[i * n + p]) * b[p * n + j];
    return s;
  }
};

template <class Get>
void check_square(benchmark::State& state, const square_inputs& in, Get got) {
  const std::size_t n = in.n;
  for (std::size_t i : {std::size_t{0}, n / 3, n - 1})
    for (std::size_t j : {std::size_t{0}, n / 2 + 1, n - 1}) {
      const double want = in.reference(i, j);
      if (!(std::fabs(got(i, j) - want) <= 1e-5 * double(n))) {
        char msg[128];
        std::snprintf(msg, sizeof msg, "mismatch at (%zu, %zu): got %g, want %g", i, j, double(got(i, j)), want);
        state.SkipWithError(msg);
        return;
      }
    }
}

void set_flops(benchmark::State& state, std::size_t n) {
  state.counters["FLOPS"] = benchmark::Counter(2.0 * double(n) * double(n) * double(n) * double(state.iterations()),
                                               benchmark::Counter::kIsRate);
}

void run_matmul(benchmark::State& state, std::size_t n, std::size_t threads) {
  square_inputs in(n);
  cpu::matmul(in.a.data(), n, in.b.data(), n, in.c.data(), n, n, n, n, threads);  // pool threads start here
  for (auto _ : state) {
    cpu::matmul(in.a.data(), n, in.b.data(), n, in.c.data(), n, n, n, n, threads);
    benchmark::DoNotOptimize(in.c.data());
    benchmark::ClobberMemory();
  }
  set_flops(state, n);
  check_square(state, in, [&](std::size_t i, std::size_t j) { return in.c[i * n + j]; });
}

void Matmul(benchmark::State& state) { run_matmul(state, static_cast<std::size_t>(state.range(0)), 1); }

void MatmulThreads(benchmark::State& state) {
  run_matmul(state, static_cast<std::size_t>(state.range(0)), static_cast<std::size_t>(state.range(1)));
}

void EigenMatmul(benchmark::State& state) {
  Eigen::setNbThreads(1);
  const auto n = static_cast<std::size_t>(state.range(0));
  square_inputs in(n);
  in.ec.noalias() = in.ea * in.eb;
  for (auto _ : state) {
    in.ec.noalias() = in.ea * in.eb;
    benchmark::DoNotOptimize(in.ec.data());
    benchmark::ClobberMemory();
  }
  set_flops(state, n);
  check_square(state, in, [&](std::size_t i, std::size_t j) {
    return in.ec(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j));
  });
}

// ----------------------------------------------------------------------------- transposed operands

/// The two products of (d): m × n results; `stored` is the transposed operand as it lies.
struct backward_inputs {
  std::size_t m, n, k;
  bool a_transposed;
  std::vector<float> stored, other, c, copy;
  explicit backward_inputs(int which)
      : m(which == 0 ? 784 : 128), n(which == 0 ? 256 : 784), k(which == 0 ? 128 : 256), a_transposed(which == 0) {
    std::mt19937 rng(4);
    std::uniform_real_distribution<float> dist(-1.f, 1.f);
    stored.resize(a_transposed ? k * m : n * k);  // xᵀ's x (k × m), or Wᵀ's W (n × k)
    other.resize(a_transposed ? k * n : m * k);   // dy
    c.resize(m * n);
    copy.resize(stored.size());
    for (float& x : stored) x = dist(rng);
    for (float& x : other) x = dist(rng);
  }
  float a(std::size_t i, std::size_t p) const { return a_transposed ? stored[p * m + i] : other[i * k + p]; }
  float b(std::size_t p, std::size_t j) const { return a_transposed ? other[p * n + j] : stored[j * k + p]; }
  void check(benchmark::State& state, const float* got) const {
    for (std::size_t i : {std::size_t{0}, m / 3, m - 1})
      for (std::size_t j : {std::size_t{0}, n / 2 + 1, n - 1}) {
        double want = 0;
        for (std::size_t p = 0; p < k; ++p) want += double(a(i, p)) * b(p, j);
        if (!(std::fabs(got[i * n + j] - want) <= 1e-5 * double(k))) {
          state.SkipWithError("transposed product: mismatch");
          return;
        }
      }
  }
};

void set_backward_flops(benchmark::State& state, const backward_inputs& in) {
  state.counters["FLOPS"] = benchmark::Counter(2.0 * double(in.m) * double(in.n) * double(in.k) * double(state.iterations()),
                                               benchmark::Counter::kIsRate);
}

void MatmulTransposed(benchmark::State& state) {
  backward_inputs in(static_cast<int>(state.range(0)));
  const cpu::detail::operand_order order{in.a_transposed, !in.a_transposed};
  for (auto _ : state) {
    if (in.a_transposed) cpu::matmul(in.stored.data(), in.m, in.other.data(), in.n, in.c.data(), in.n, in.m, in.n, in.k, 1, order);
    else cpu::matmul(in.other.data(), in.k, in.stored.data(), in.k, in.c.data(), in.n, in.m, in.n, in.k, 1, order);
    benchmark::DoNotOptimize(in.c.data());
    benchmark::ClobberMemory();
  }
  set_backward_flops(state, in);
  in.check(state, in.c.data());
}

void MatmulCopied(benchmark::State& state) {
  backward_inputs in(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    // the transpose into its own buffer (a slot), then the product of row-major operands
    const std::size_t rows = in.a_transposed ? in.m : in.k, cols = in.a_transposed ? in.k : in.n;
    cpu::detail::transposed_copy(in.stored.data(), rows, rows, cols, in.copy.data());
    if (in.a_transposed) cpu::matmul(in.copy.data(), in.k, in.other.data(), in.n, in.c.data(), in.n, in.m, in.n, in.k, 1);
    else cpu::matmul(in.other.data(), in.k, in.copy.data(), in.n, in.c.data(), in.n, in.m, in.n, in.k, 1);
    benchmark::DoNotOptimize(in.c.data());
    benchmark::ClobberMemory();
  }
  set_backward_flops(state, in);
  in.check(state, in.c.data());
}

void EigenTransposed(benchmark::State& state) {
  Eigen::setNbThreads(1);
  using rmat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  backward_inputs in(static_cast<int>(state.range(0)));
  const auto m = static_cast<Eigen::Index>(in.m), n = static_cast<Eigen::Index>(in.n), k = static_cast<Eigen::Index>(in.k);
  Eigen::Map<rmat> c(in.c.data(), m, n);
  for (auto _ : state) {
    if (in.a_transposed) c.noalias() = Eigen::Map<const rmat>(in.stored.data(), k, m).transpose() * Eigen::Map<const rmat>(in.other.data(), k, n);
    else c.noalias() = Eigen::Map<const rmat>(in.other.data(), m, k) * Eigen::Map<const rmat>(in.stored.data(), n, k).transpose();
    benchmark::DoNotOptimize(in.c.data());
    benchmark::ClobberMemory();
  }
  set_backward_flops(state, in);
  in.check(state, in.c.data());
}

// ----------------------------------------------------------------------------- dense layer

struct dense_inputs {
  static constexpr std::size_t batch = 256, in = 784, out = 256;
  xt::xtensor<float, 2> x = xt::xtensor<float, 2>::from_shape({batch, in});
  xt::xtensor<float, 2> w = xt::xtensor<float, 2>::from_shape({in, out});
  xt::xtensor<float, 1> b = xt::xtensor<float, 1>::from_shape({out});
  xt::xtensor<float, 2> y = xt::zeros<float>({batch, out});
  dense_inputs() {
    std::mt19937 rng(4);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    for (auto& v : x) v = u(rng);
    for (auto& v : w) v = u(rng) * 0.05f;
    for (auto& v : b) v = u(rng);
  }
  void check(benchmark::State& state) const {
    std::mt19937 rng(8);
    for (int s = 0; s < 64; ++s) {
      const std::size_t i = rng() % batch, j = rng() % out;
      double acc = b(j);
      for (std::size_t p = 0; p < in; ++p) acc += double(x(i, p)) * double(w(p, j));
      const double want = std::max(acc, 0.0);
      if (!(std::fabs(y(i, j) - want) <= 1e-4 * (1 + std::fabs(want)))) {
        state.SkipWithError("wrong dense layer output");
        return;
      }
    }
  }
  void flops(benchmark::State& state) const {
    state.counters["FLOPS"] = benchmark::Counter(2.0 * batch * in * out * double(state.iterations()), benchmark::Counter::kIsRate);
  }
};

template <bool Fused>
void dense_layer(benchmark::State& state) {
  namespace sf = staticflow;
  dense_inputs in;
  auto layer = sf::function([](auto x, auto w, auto b) {
    if constexpr (Fused) return sf::relu(sf::matmul(x, w) + b);
    else return sf::relu(sf::materialize(sf::matmul(x, w)) + b);
  });
  layer.call_into(in.y, in.x, in.w, in.b);
  for (auto _ : state) {
    layer.call_into(in.y, in.x, in.w, in.b);
    benchmark::DoNotOptimize(in.y.data());
    benchmark::ClobberMemory();
  }
  in.check(state);
  in.flops(state);
}
void DenseFused(benchmark::State& state) { dense_layer<true>(state); }
void DenseApart(benchmark::State& state) { dense_layer<false>(state); }

void EigenDense(benchmark::State& state) {
  Eigen::setNbThreads(1);
  using rmat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  dense_inputs in;
  const auto batch = Eigen::Index(in.batch), n_in = Eigen::Index(in.in), n_out = Eigen::Index(in.out);
  Eigen::Map<const rmat> x(in.x.data(), batch, n_in), w(in.w.data(), n_in, n_out);
  Eigen::Map<const Eigen::RowVectorXf> b(in.b.data(), n_out);
  Eigen::Map<rmat> y(in.y.data(), batch, n_out);
  for (auto _ : state) {
    y.noalias() = x * w;
    y = (y.rowwise() + b).cwiseMax(0.f);
    benchmark::DoNotOptimize(in.y.data());
    benchmark::ClobberMemory();
  }
  in.check(state);
  in.flops(state);
}

void dense_setup(benchmark::internal::Benchmark* b) {
  b->Unit(benchmark::kMicrosecond)->UseRealTime();
  sf_bench::add_min(b);
}

void backward_setup(benchmark::internal::Benchmark* b) {
  b->Arg(0)->Arg(1);
  b->Unit(benchmark::kMicrosecond);
  sf_bench::add_min(b);
}

void chain_setup(benchmark::internal::Benchmark* b) {
  b->Unit(benchmark::kNanosecond);
  sf_bench::add_min(b);
}

void square_setup(benchmark::internal::Benchmark* b) {
  b->Arg(64)->Arg(256)->Arg(512);
  b->Unit(benchmark::kMicrosecond)->UseRealTime();
  sf_bench::add_min(b);
}

void threads_setup(benchmark::internal::Benchmark* b) {
  b->Args({512, 1})->Args({512, 2});
  b->Unit(benchmark::kMicrosecond)->UseRealTime();
  sf_bench::add_min(b);
}

}  // namespace

BENCHMARK(StaticChain4x4)->Apply(chain_setup);
BENCHMARK(EigenChain4x4)->Apply(chain_setup);
BENCHMARK(HandLoopChain4x4)->Apply(chain_setup);
BENCHMARK(Matmul)->Apply(square_setup);
BENCHMARK(EigenMatmul)->Apply(square_setup);
BENCHMARK(MatmulThreads)->Apply(threads_setup);
BENCHMARK(MatmulTransposed)->Apply(backward_setup);
BENCHMARK(MatmulCopied)->Apply(backward_setup);
BENCHMARK(EigenTransposed)->Apply(backward_setup);
BENCHMARK(DenseFused)->Apply(dense_setup);
BENCHMARK(DenseApart)->Apply(dense_setup);
BENCHMARK(EigenDense)->Apply(dense_setup);
