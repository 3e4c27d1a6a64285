// bench/training_step.cpp -- issue 18 (c): one training step of a 784-256-256-10 MLP (relu, softmax
// cross-entropy averaged over the batch, float32, sf::adam with Keras's defaults) at batch 32, 128
// and 256, in one run:
//
//   TrainStep_Staticflow/B   one call of the traced step: forward, tape.gradient of six variables,
//                            apply_gradients, `return loss` (the TensorFlow spelling: the loss is
//                            evaluated again after the updates, from the weights before them)
//   TrainStep_Minimize/B     the same step as `return opt.minimize(loss, vars...)`: the loss is
//                            computed with the gradients, one forward pass per step
//                            (bench/training_step.py times tf.function and jax.jit of the same
//                            step on this machine, when they are pip-installed)
//   TrainStep_Hand/B         the step written by hand: Eigen matmuls (row-major maps), the backward
//                            pass derived by hand, Adam's update in plain loops
//
// Both use one thread (sf::num_threads() is 1 unless set; Eigen without OpenMP). Both start from the
// same weights and data; before timing, three steps of each are compared and the largest weight
// difference is reported as the counter max_weight_diff (float rounding only: about 1e-6).
//
// The timed steps run with subnormal floats flushed to zero (FTZ and DAZ), as TensorFlow's and
// XLA's CPU threads run (bench/training_step.py's anchors): a benchmark repeats one batch thousands
// of times, the network learns it, and its gradients sink into the subnormal range, where each
// operation on them costs many cycles. Without the flags (session 79, one core): batch 32's step
// took 1,375 us after a default run's iterations against 660 us after 41 (the hand step 2,029
// against 941), batch 128 and 256 unchanged; with them 549 us.
//
// Eager mode is compiled out (as in examples/08_training.cpp): with it this TU took 5.8 GB of g++.
#define STATICFLOW_EAGER_MODE 0
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

#if defined(__SSE__)
#include <pmmintrin.h>
#include <xmmintrin.h>
#endif

#include <Eigen/Dense>

#include <xtensor/xfixed.hpp>
#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

#include "bench_common.hpp"

namespace sf = staticflow;

namespace {
constexpr std::size_t in_dim = 784, hidden = 256, out_dim = 10;
constexpr float learning_rate = 1e-3f;

using rmat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using rvec = Eigen::RowVectorXf;

/// Glorot-uniform weights and zero biases, the same for both steps.
struct initial_weights {
  std::vector<float> w1, w2, w3;
  initial_weights() {
    std::mt19937 rng(18);
    auto glorot = [&](std::size_t fan_in, std::size_t fan_out) {
      std::uniform_real_distribution<float> u(-1.f, 1.f);
      const float limit = std::sqrt(6.f / float(fan_in + fan_out));
      std::vector<float> w(fan_in * fan_out);
      for (auto& e : w) e = limit * u(rng);
      return w;
    };
    w1 = glorot(in_dim, hidden);
    w2 = glorot(hidden, hidden);
    w3 = glorot(hidden, out_dim);
  }
};
const initial_weights& weights() {
  static const initial_weights w;
  return w;
}

/// A batch of inputs in [0, 1) and one-hot targets.
struct batch_data {
  xt::xtensor<float, 2> x, y;
  explicit batch_data(std::size_t batch)
      : x(xt::xtensor<float, 2>::from_shape({batch, in_dim})), y(xt::zeros<float>({batch, out_dim})) {
    std::mt19937 rng(static_cast<unsigned>(batch));
    std::uniform_real_distribution<float> u(0.f, 1.f);
    for (auto& e : x) e = u(rng);
    for (std::size_t i = 0; i < batch; ++i) y(i, rng() % out_dim) = 1.f;
  }
};

// ---- staticflow: the step as a TensorFlow user writes it ----
template <std::size_t R, std::size_t C>
xt::xtensor_fixed<float, xt::xshape<R, C>> fixed_from(const std::vector<float>& v) {
  xt::xtensor_fixed<float, xt::xshape<R, C>> t;
  std::copy(v.begin(), v.end(), t.begin());
  return t;
}

struct sf_model {
  sf::variable<float, in_dim, hidden> w1{fixed_from<in_dim, hidden>(weights().w1)};
  sf::variable<float, hidden> b1;
  sf::variable<float, hidden, hidden> w2{fixed_from<hidden, hidden>(weights().w2)};
  sf::variable<float, hidden> b2;
  sf::variable<float, hidden, out_dim> w3{fixed_from<hidden, out_dim>(weights().w3)};
  sf::variable<float, out_dim> b3;
  sf::adam<float> opt{learning_rate};
};

template <class X, class Y>
auto model_loss(sf_model& m, const X& x, const Y& y) {
  const auto a1 = sf::relu(sf::matmul(x, m.w1) + m.b1);
  const auto a2 = sf::relu(sf::matmul(a1, m.w2) + m.b2);
  const auto logits = sf::matmul(a2, m.w3) + m.b3;
  return -sf::reduce_mean(sf::reduce_sum(y * sf::log_softmax(logits), sf::axes<1>{}));
}

auto make_train_step(sf_model& m) {
  return sf::function([&m](auto x, auto y) {
    sf::gradient_tape tape;
    const auto loss = model_loss(m, x, y);
    m.opt.apply_gradients(tape.gradient(loss, m.w1, m.b1, m.w2, m.b2, m.w3, m.b3), m.w1, m.b1, m.w2, m.b2, m.w3,
                          m.b3);
    return loss;
  });
}

auto make_minimize_step(sf_model& m) {
  return sf::function([&m](auto x, auto y) {
    return m.opt.minimize(model_loss(m, x, y), m.w1, m.b1, m.w2, m.b2, m.w3, m.b3);
  });
}

// ---- by hand: Eigen matmuls, the backward pass derived by hand, Adam in loops ----
struct adam_param {
  rmat value, m, v;
  explicit adam_param(rmat init) : value(std::move(init)), m(rmat::Zero(value.rows(), value.cols())), v(m) {}
  // Keras's rule, as sf::adam: alpha = lr sqrt(1 - b2^t) / (1 - b1^t)
  void update(const rmat& g, float alpha) {
    float* p = value.data();
    float* mp = m.data();
    float* vp = v.data();
    const float* gp = g.data();
    for (Eigen::Index i = 0, n = value.size(); i < n; ++i) {
      mp[i] += (gp[i] - mp[i]) * (1.f - 0.9f);
      vp[i] += (gp[i] * gp[i] - vp[i]) * (1.f - 0.999f);
      p[i] -= alpha * mp[i] / (std::sqrt(vp[i]) + 1e-7f);
    }
  }
};

struct hand_model {
  adam_param w1{Eigen::Map<const rmat>(weights().w1.data(), in_dim, hidden)};
  adam_param b1{rmat::Zero(1, hidden)};
  adam_param w2{Eigen::Map<const rmat>(weights().w2.data(), hidden, hidden)};
  adam_param b2{rmat::Zero(1, hidden)};
  adam_param w3{Eigen::Map<const rmat>(weights().w3.data(), hidden, out_dim)};
  adam_param b3{rmat::Zero(1, out_dim)};
  long iterations = 0;
  rmat z1, a1, z2, a2, logits, dlogits, da, dz, gw1, gw2, gw3, gb1, gb2, gb3;

  float step(const xt::xtensor<float, 2>& xt_x, const xt::xtensor<float, 2>& xt_y) {
    const auto batch = static_cast<Eigen::Index>(xt_x.shape(0));
    const Eigen::Map<const rmat> x(xt_x.data(), batch, in_dim), y(xt_y.data(), batch, out_dim);
    // forward
    z1.noalias() = x * w1.value;
    z1.rowwise() += b1.value.row(0);
    a1 = z1.cwiseMax(0.f);
    z2.noalias() = a1 * w2.value;
    z2.rowwise() += b2.value.row(0);
    a2 = z2.cwiseMax(0.f);
    logits.noalias() = a2 * w3.value;
    logits.rowwise() += b3.value.row(0);
    // log_softmax and the loss; d loss / d logits = (softmax * sum(y) - y) / batch
    dlogits.resize(batch, out_dim);
    float loss = 0.f;
    for (Eigen::Index i = 0; i < batch; ++i) {
      const float mx = logits.row(i).maxCoeff();
      const float lse = std::log((logits.row(i).array() - mx).exp().sum());
      float ysum = 0.f;
      for (Eigen::Index j = 0; j < Eigen::Index(out_dim); ++j) {
        const float log_p = logits(i, j) - mx - lse;
        loss -= y(i, j) * log_p;
        ysum += y(i, j);
      }
      for (Eigen::Index j = 0; j < Eigen::Index(out_dim); ++j)
        dlogits(i, j) = (std::exp(logits(i, j) - mx - lse) * ysum - y(i, j)) / float(batch);
    }
    loss /= float(batch);
    // backward (relu's slope is 0 at 0, as TensorFlow's), every gradient from the old weights
    gw3.noalias() = a2.transpose() * dlogits;
    gb3 = dlogits.colwise().sum();
    da.noalias() = dlogits * w3.value.transpose();
    dz = (z2.array() > 0.f).select(da, 0.f);
    gw2.noalias() = a1.transpose() * dz;
    gb2 = dz.colwise().sum();
    da.noalias() = dz * w2.value.transpose();
    dz = (z1.array() > 0.f).select(da, 0.f);
    gw1.noalias() = x.transpose() * dz;
    gb1 = dz.colwise().sum();
    // Adam
    const float t = float(++iterations);
    const float alpha = learning_rate * std::sqrt(1.f - std::pow(0.999f, t)) / (1.f - std::pow(0.9f, t));
    w1.update(gw1, alpha);
    b1.update(gb1, alpha);
    w2.update(gw2, alpha);
    b2.update(gb2, alpha);
    w3.update(gw3, alpha);
    b3.update(gb3, alpha);
    return loss;
  }
};

template <class V>
float max_diff(const V& var, const rmat& hand) {
  const auto& value = var.value();
  float d = 0.f;
  const float* h = hand.data();
  std::size_t i = 0;
  for (const float e : value) d = std::max(d, std::abs(e - h[i++]));
  return d;
}

// ---- the benchmarks ----
/// Subnormal results and operands as zero on this thread (see the file's comment).
void flush_subnormals() {
#if defined(__SSE__)
  _MM_SET_FLUSH_ZERO_MODE(_MM_FLUSH_ZERO_ON);
  _MM_SET_DENORMALS_ZERO_MODE(_MM_DENORMALS_ZERO_ON);
#endif
}

/// Times the traced step that `make` builds, after checking three of its steps against the
/// hand-written step's from the same start.
template <class MakeStep>
void time_staticflow_step(benchmark::State& state, MakeStep make) {
  flush_subnormals();
  const batch_data data(static_cast<std::size_t>(state.range(0)));
  {
    sf_model m;
    hand_model h;
    auto step = make(m);
    for (int i = 0; i < 3; ++i) {
      step(data.x, data.y);
      h.step(data.x, data.y);
    }
    state.counters["max_weight_diff"] = std::max({max_diff(m.w1, h.w1.value), max_diff(m.b1, h.b1.value),
                                                  max_diff(m.w2, h.w2.value), max_diff(m.b2, h.b2.value),
                                                  max_diff(m.w3, h.w3.value), max_diff(m.b3, h.b3.value)});
  }
  sf_model m;
  auto step = make(m);
  for (auto _ : state) benchmark::DoNotOptimize(step(data.x, data.y));
}
void TrainStep_Staticflow(benchmark::State& state) {
  time_staticflow_step(state, [](sf_model& m) { return make_train_step(m); });
}
void TrainStep_Minimize(benchmark::State& state) {
  time_staticflow_step(state, [](sf_model& m) { return make_minimize_step(m); });
}
void TrainStep_Hand(benchmark::State& state) {
  flush_subnormals();
  const batch_data data(static_cast<std::size_t>(state.range(0)));
  hand_model h;
  for (auto _ : state) benchmark::DoNotOptimize(h.step(data.x, data.y));
}

void batches(benchmark::internal::Benchmark* b) {
  for (int n : {32, 128, 256}) b->Arg(n);
  b->Unit(benchmark::kMicrosecond);
  sf_bench::add_min(b);
}
BENCHMARK(TrainStep_Staticflow)->Apply(batches);
BENCHMARK(TrainStep_Minimize)->Apply(batches);
BENCHMARK(TrainStep_Hand)->Apply(batches);

}  // namespace
