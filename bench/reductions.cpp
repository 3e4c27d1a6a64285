// Issue 5 benchmarks: reductions with fused inputs, a graph that needs two passes, row softmax,
// rows standardized and thread scaling, each against a hand-written xsimd loop, Eigen and xtensor in the same run.
// Benchmarks, not tests: see docs/benchmarks.md for the ratios.
#include <cmath>
#include <random>

#include <Eigen/Core>
#include <xtensor/xmath.hpp>
#include <xtensor/xnoalias.hpp>
#include <xtensor/xreducer.hpp>

#include <staticflow/staticflow.hpp>

#include "bench_common.hpp"

namespace sf = staticflow;
using batch = xsimd::batch<float>;

namespace {
constexpr std::size_t big = std::size_t{1} << 24;  // 16M float32

xt::xtensor<float, 1> random_vector(std::size_t n, unsigned seed, float lo = -1.f, float hi = 1.f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  auto v = xt::xtensor<float, 1>::from_shape({n});
  for (auto& e : v) e = dist(rng);
  return v;
}

const xt::xtensor<float, 1>& a_vec() { static const auto v = random_vector(big, 1); return v; }
const xt::xtensor<float, 1>& b_vec() { static const auto v = random_vector(big, 2); return v; }

// ---- sum(a * b) on 16M float32 ----
float hand_dot(const float* __restrict a, const float* __restrict b, std::size_t n) {
  constexpr std::size_t W = batch::size;
  batch s0(0.f), s1(0.f), s2(0.f), s3(0.f);
  std::size_t i = 0;
  for (; i + 4 * W <= n; i += 4 * W) {
    s0 = xsimd::fma(batch::load_unaligned(a + i), batch::load_unaligned(b + i), s0);
    s1 = xsimd::fma(batch::load_unaligned(a + i + W), batch::load_unaligned(b + i + W), s1);
    s2 = xsimd::fma(batch::load_unaligned(a + i + 2 * W), batch::load_unaligned(b + i + 2 * W), s2);
    s3 = xsimd::fma(batch::load_unaligned(a + i + 3 * W), batch::load_unaligned(b + i + 3 * W), s3);
  }
  float s = xsimd::hadd((s0 + s1) + (s2 + s3));
  for (; i < n; ++i) s += a[i] * b[i];
  return s;
}

void SumProduct_Hand(benchmark::State& st) {
  for (auto _ : st) benchmark::DoNotOptimize(hand_dot(a_vec().data(), b_vec().data(), big));
  st.SetBytesProcessed(st.iterations() * 2 * big * sizeof(float));
}
void SumProduct_Staticflow(benchmark::State& st) {
  auto f = sf::function([](auto a, auto b) { return sf::reduce_sum(a * b); });
  for (auto _ : st) benchmark::DoNotOptimize(f(a_vec(), b_vec()));
  st.SetBytesProcessed(st.iterations() * 2 * big * sizeof(float));
}
void SumProduct_Eager(benchmark::State& st) {
  auto f = sf::function([](auto a, auto b) { return sf::reduce_sum(a * b); }, sf::backend::eager);
  for (auto _ : st) benchmark::DoNotOptimize(f(a_vec(), b_vec()));
  st.SetBytesProcessed(st.iterations() * 2 * big * sizeof(float));
}
void SumProduct_Eigen(benchmark::State& st) {
  Eigen::Map<const Eigen::ArrayXf> a(a_vec().data(), big), b(b_vec().data(), big);
  for (auto _ : st) benchmark::DoNotOptimize((a * b).sum());
  st.SetBytesProcessed(st.iterations() * 2 * big * sizeof(float));
}
void SumProduct_Xtensor(benchmark::State& st) {
  for (auto _ : st) benchmark::DoNotOptimize(xt::sum(a_vec() * b_vec())());
  st.SetBytesProcessed(st.iterations() * 2 * big * sizeof(float));
}

// ---- x / reduce_sum(x) against x * 2 (the cost of two passes) ----
void Normalize_Staticflow(benchmark::State& st) {
  auto f = sf::function([](auto x) { return x / sf::reduce_sum(x); });
  auto out = xt::xtensor<float, 1>::from_shape({big});
  for (auto _ : st) {
    f.call_into(out, a_vec());
    benchmark::ClobberMemory();
  }
  st.SetBytesProcessed(st.iterations() * 3 * big * sizeof(float));
}
void Scale_Staticflow(benchmark::State& st) {
  auto f = sf::function([](auto x) { return x * 2.f; });
  auto out = xt::xtensor<float, 1>::from_shape({big});
  for (auto _ : st) {
    f.call_into(out, a_vec());
    benchmark::ClobberMemory();
  }
  st.SetBytesProcessed(st.iterations() * 2 * big * sizeof(float));
}
void Normalize_Eigen(benchmark::State& st) {
  Eigen::Map<const Eigen::ArrayXf> x(a_vec().data(), big);
  Eigen::ArrayXf out(big);
  for (auto _ : st) {
    out = x / x.sum();
    benchmark::ClobberMemory();
  }
}
void Normalize_Xtensor(benchmark::State& st) {
  auto out = xt::xtensor<float, 1>::from_shape({big});
  for (auto _ : st) {
    xt::noalias(out) = a_vec() / xt::sum(a_vec())();
    benchmark::ClobberMemory();
  }
}

// ---- row softmax on 1024x1024 ----
constexpr std::size_t rows = 1024, cols = 1024;
const xt::xtensor<float, 2>& logits() {
  static const auto m = [] {
    auto v = random_vector(rows * cols, 7, -4.f, 4.f);
    return xt::xtensor<float, 2>(xt::adapt(v.data(), rows * cols, xt::no_ownership(), std::array<std::size_t, 2>{rows, cols}));
  }();
  return m;
}

// The hand-written two-pass version: the max of a row, then exp and sum stored in one pass, then
// a scaling pass over the (cache-resident) row.
void hand_softmax(const float* __restrict x, float* __restrict out) {
  constexpr std::size_t W = batch::size;
  for (std::size_t r = 0; r < rows; ++r) {
    const float* row = x + r * cols;
    float* o = out + r * cols;
    batch m = batch::load_unaligned(row);
    for (std::size_t j = W; j < cols; j += W) m = xsimd::max(m, batch::load_unaligned(row + j));
    alignas(64) float lanes[W];
    m.store_aligned(lanes);
    float mx = lanes[0];
    for (std::size_t l = 1; l < W; ++l) mx = std::max(mx, lanes[l]);
    batch s(0.f);
    for (std::size_t j = 0; j < cols; j += W) {
      const batch e = xsimd::exp(batch::load_unaligned(row + j) - batch(mx));
      e.store_unaligned(o + j);
      s += e;
    }
    const batch inv(1.f / xsimd::hadd(s));
    for (std::size_t j = 0; j < cols; j += W) (batch::load_unaligned(o + j) * inv).store_unaligned(o + j);
  }
}
void Softmax_Hand(benchmark::State& st) {
  auto out = xt::xtensor<float, 2>::from_shape({rows, cols});
  for (auto _ : st) {
    hand_softmax(logits().data(), out.data());
    benchmark::ClobberMemory();
  }
}
void Softmax_Staticflow(benchmark::State& st) {
  auto f = sf::function([](auto x) { return sf::softmax(x); });
  auto out = xt::xtensor<float, 2>::from_shape({rows, cols});
  for (auto _ : st) {
    f.call_into(out, logits());
    benchmark::ClobberMemory();
  }
}
// The same function as the three-pass graph of reductions and elementwise ops that sf::softmax
// built before it became one node (and that a backend without the node's kernel would run).
void Softmax_Composite(benchmark::State& st) {
  auto f = sf::function([](auto x) { return sf::softmax(x).expanded(); });
  auto out = xt::xtensor<float, 2>::from_shape({rows, cols});
  for (auto _ : st) {
    f.call_into(out, logits());
    benchmark::ClobberMemory();
  }
}
// The node's CPU kernel alone (cpu::materialize), writing straight into the output: what a call
// would cost if the plan materialized an output node into the caller's container instead of into
// a slot that the output loop then copies (docs/benchmarks.md, issue 5).
void Softmax_Kernel(benchmark::State& st) {
  using arg = sf::graph::argument<0, float, sf::shape<sf::dyn, sf::dyn>>;
  const sf::graph::softmax_node<sf::graph::softmax_kind, arg, -1> node{arg{}};
  using sig = std::tuple<sf::spec<float, sf::dyn, sf::dyn>>;
  const sf::extents<2> ext{rows, cols};
  const auto views = std::tuple{sf::tensor_view<float, 2>{logits().data(), ext}};
  auto out = xt::xtensor<float, 2>::from_shape({rows, cols});
  for (auto _ : st) {
    sf::cpu::materialize<sig>(node, views, ext, out.data());
    benchmark::ClobberMemory();
  }
}
void LogSoftmax_Staticflow(benchmark::State& st) {
  auto f = sf::function([](auto x) { return sf::log_softmax(x); });
  auto out = xt::xtensor<float, 2>::from_shape({rows, cols});
  for (auto _ : st) {
    f.call_into(out, logits());
    benchmark::ClobberMemory();
  }
}
// Rows split across threads (wall-clock time).
void Softmax_Threads(benchmark::State& st) {
  sf::set_num_threads(static_cast<std::size_t>(st.range(0)));
  auto f = sf::function([](auto x) { return sf::softmax(x); });
  auto out = xt::xtensor<float, 2>::from_shape({rows, cols});
  for (auto _ : st) {
    f.call_into(out, logits());
    benchmark::ClobberMemory();
  }
  sf::set_num_threads(1);
}
void Softmax_Eigen(benchmark::State& st) {
  using M = Eigen::Array<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Eigen::Map<const M> x(logits().data(), rows, cols);
  M out(rows, cols);
  for (auto _ : st) {
    out = (x.colwise() - x.rowwise().maxCoeff()).exp();
    out.colwise() /= out.rowwise().sum();
    benchmark::ClobberMemory();
  }
}
void Softmax_Xtensor(benchmark::State& st) {
  auto out = xt::xtensor<float, 2>::from_shape({rows, cols});
  for (auto _ : st) {
    auto mx = xt::eval(xt::amax(logits(), {1}, xt::keep_dims));
    auto e = xt::eval(xt::exp(logits() - mx));
    xt::noalias(out) = e / xt::sum(e, {1}, xt::keep_dims);
    benchmark::ClobberMemory();
  }
}

// ---- thread scaling of an exp/tanh-heavy chain ----
void Chain_Threads(benchmark::State& st) {
  sf::set_num_threads(static_cast<std::size_t>(st.range(0)));
  auto f = sf::function([](auto x) { return sf::tanh(sf::exp(x) * 0.5f) + sf::sigmoid(x); });
  const std::size_t n = std::size_t{1} << 22;
  const auto x = random_vector(n, 3);
  auto out = xt::xtensor<float, 1>::from_shape({n});
  for (auto _ : st) {
    f.call_into(out, x);
    benchmark::ClobberMemory();
  }
  sf::set_num_threads(1);
  st.SetItemsProcessed(st.iterations() * n);
}
}  // namespace

// ---- rows standardized (layer normalization without gamma / beta) on 1024x1024 ----
// The variance is a reduction of a broadcasting input, square(x - mean): evaluated a block of
// whole rows at a time (backend/cpu/reduce.hpp) rather than into a 4 MB temporary.
void Standardize_Staticflow(benchmark::State& st) {
  auto f = sf::function([](auto x) {
    const auto d = x - sf::reduce_mean(x, -1, sf::keepdims);
    return d * sf::rsqrt(sf::reduce_mean(sf::square(d), -1, sf::keepdims) + 1e-5f);
  });
  auto out = xt::xtensor<float, 2>::from_shape({rows, cols});
  for (auto _ : st) {
    f.call_into(out, logits());
    benchmark::ClobberMemory();
  }
}
// The same function on the eager backend (op by op, each result materialized: what
// `sf::run_functions_eagerly(true)` runs).
void Standardize_Eager(benchmark::State& st) {
  auto f = sf::function([](auto x) {
    const auto d = x - sf::reduce_mean(x, -1, sf::keepdims);
    return d * sf::rsqrt(sf::reduce_mean(sf::square(d), -1, sf::keepdims) + 1e-5f);
  }, sf::backend::eager);
  for (auto _ : st) benchmark::DoNotOptimize(f(logits()));
}
void Standardize_Hand(benchmark::State& st) {
  auto out = xt::xtensor<float, 2>::from_shape({rows, cols});
  constexpr std::size_t W = batch::size;
  for (auto _ : st) {
    for (std::size_t r = 0; r < rows; ++r) {
      const float* x = logits().data() + r * cols;
      float* o = out.data() + r * cols;
      batch acc(0.f);
      for (std::size_t j = 0; j < cols; j += W) acc += batch::load_unaligned(x + j);
      const batch m(xsimd::hadd(acc) / static_cast<float>(cols));
      batch sq(0.f);
      for (std::size_t j = 0; j < cols; j += W) {
        const batch d = batch::load_unaligned(x + j) - m;
        sq += d * d;
      }
      const batch scale(1.f / std::sqrt(xsimd::hadd(sq) / static_cast<float>(cols) + 1e-5f));
      for (std::size_t j = 0; j < cols; j += W) ((batch::load_unaligned(x + j) - m) * scale).store_unaligned(o + j);
    }
    benchmark::ClobberMemory();
  }
}
void Standardize_Eigen(benchmark::State& st) {
  using arr = Eigen::Array<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Eigen::Map<const arr> x(logits().data(), rows, cols);
  arr out(rows, cols), d(rows, cols);
  for (auto _ : st) {
    d = x.colwise() - x.rowwise().mean();
    out = d.colwise() * (d.square().rowwise().mean() + 1e-5f).rsqrt();
    benchmark::ClobberMemory();
  }
}
void Standardize_Xtensor(benchmark::State& st) {
  auto out = xt::xtensor<float, 2>::from_shape({rows, cols});
  for (auto _ : st) {
    // the means evaluated immediately: a lazy keep_dims mean broadcast into the difference
    // crashes xtensor 0.24.3 here (a segmentation fault)
    const auto keep = xt::keep_dims | xt::evaluation_strategy::immediate;
    const xt::xtensor<float, 2> m = xt::mean(logits(), {1}, keep);
    const xt::xtensor<float, 2> d = logits() - m;
    const xt::xtensor<float, 2> var = xt::mean(d * d, {1}, keep);
    xt::noalias(out) = d / xt::sqrt(var + 1e-5f);
    benchmark::ClobberMemory();
  }
}

BENCHMARK(SumProduct_Hand)->Apply(sf_bench::add_min);
BENCHMARK(SumProduct_Staticflow)->Apply(sf_bench::add_min);
BENCHMARK(SumProduct_Eigen)->Apply(sf_bench::add_min);
BENCHMARK(SumProduct_Xtensor)->Apply(sf_bench::add_min);
BENCHMARK(SumProduct_Eager)->Apply(sf_bench::add_min);
BENCHMARK(Normalize_Staticflow)->Apply(sf_bench::add_min);
BENCHMARK(Scale_Staticflow)->Apply(sf_bench::add_min);
BENCHMARK(Normalize_Eigen)->Apply(sf_bench::add_min);
BENCHMARK(Normalize_Xtensor)->Apply(sf_bench::add_min);
BENCHMARK(Softmax_Hand)->Apply(sf_bench::add_min);
BENCHMARK(Softmax_Staticflow)->Apply(sf_bench::add_min);
BENCHMARK(Softmax_Composite)->Apply(sf_bench::add_min);
BENCHMARK(Softmax_Kernel)->Apply(sf_bench::add_min);
BENCHMARK(LogSoftmax_Staticflow)->Apply(sf_bench::add_min);
BENCHMARK(Softmax_Threads)->Arg(1)->Arg(2)->UseRealTime()->Apply(sf_bench::add_min);
BENCHMARK(Softmax_Eigen)->Apply(sf_bench::add_min);
BENCHMARK(Softmax_Xtensor)->Apply(sf_bench::add_min);
BENCHMARK(Chain_Threads)->Arg(1)->Arg(2)->UseRealTime()->Apply(sf_bench::add_min);
BENCHMARK(Standardize_Staticflow)->Apply(sf_bench::add_min);
BENCHMARK(Standardize_Eager)->Apply(sf_bench::add_min);
BENCHMARK(Standardize_Hand)->Apply(sf_bench::add_min);
BENCHMARK(Standardize_Eigen)->Apply(sf_bench::add_min);
BENCHMARK(Standardize_Xtensor)->Apply(sf_bench::add_min);
