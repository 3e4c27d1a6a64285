// Tests for optimizers/sgd.hpp, adam.hpp and optimizer.hpp: each update rule against a
// hand-written float64 reference over several steps (variables and slots), Keras's defaults, the
// step count, a learning rate changed between steps without a new trace, the returned loss seen
// before the step, a failed step that changes nothing, 1 and 2 threads bit-for-bit, and the
// errors.
#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <tuple>
#include <vector>

#include <xtensor/xfixed.hpp>
#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

namespace {
// loss(w, b) = sum((w * x + b - y)^2) over 4 points, w of shape (4,), b a scalar
const std::array<double, 4> xs{0.5, -1.0, 2.0, 1.5}, ys{1.0, 0.0, -2.0, 3.0};

struct reference_grads {
  std::array<double, 4> dw;
  double db;
};
reference_grads grads_at(const std::array<double, 4>& w, double b) {
  reference_grads g{};
  for (std::size_t i = 0; i < 4; ++i) {
    const double r = 2 * (w[i] * xs[i] + b - ys[i]);
    g.dw[i] = r * xs[i];
    g.db += r;
  }
  return g;
}
double loss_at(const std::array<double, 4>& w, double b) {
  double l = 0;
  for (std::size_t i = 0; i < 4; ++i) l += (w[i] * xs[i] + b - ys[i]) * (w[i] * xs[i] + b - ys[i]);
  return l;
}

template <class Opt>
auto make_step(Opt& opt, sf::variable<double, 4>& w, sf::variable<double>& b) {
  return sf::function([&](auto x, auto y) {
    sf::gradient_tape tape;
    auto loss = sf::reduce_sum(sf::square(w * x + b - y));
    opt.apply_gradients(tape.gradient(loss, w, b), w, b);
    return loss;
  });
}

const xt::xtensor_fixed<double, xt::xshape<4>> x_in{0.5, -1.0, 2.0, 1.5}, y_in{1.0, 0.0, -2.0, 3.0};
const std::array<double, 4> w_start{0.3, -0.2, 0.1, 0.7};
constexpr double b_start = -0.4;

void check_w(const sf::variable<double, 4>& w, const std::array<double, 4>& ref) {
  for (std::size_t i = 0; i < 4; ++i) CHECK(w.value()(i) == Approx(ref[i]).epsilon(1e-13).margin(1e-15));
}
}  // namespace

TEST_CASE("sgd without momentum: var -= learning_rate * g", "[optimizers][sgd]") {
  sf::variable<double, 4> w{{w_start[0], w_start[1], w_start[2], w_start[3]}};
  sf::variable<double> b{b_start};
  sf::sgd opt{0.05};
  CHECK(opt.momentum() == 0.0);
  CHECK_FALSE(opt.nesterov());
  auto step = make_step(opt, w, b);
  auto rw = w_start;
  double rb = b_start;
  for (int s = 0; s < 5; ++s) {
    const double loss = step(x_in, y_in);
    CHECK(loss == Approx(loss_at(rw, rb)).epsilon(1e-14));  // the loss before the step
    const auto g = grads_at(rw, rb);
    for (std::size_t i = 0; i < 4; ++i) rw[i] -= 0.05 * g.dw[i];
    rb -= 0.05 * g.db;
    check_w(w, rw);
    CHECK(b.value() == Approx(rb).epsilon(1e-13).margin(1e-15));
  }
  CHECK(opt.iterations.value() == 5);
  CHECK(step.tracing_count() == 1);
  CHECK_THROWS_WITH(opt.slot(w, "momentum"), "staticflow: optimizer::slot: the variable has no slot named 'momentum'");
  // the gradient slot holds the last gradient applied
  CHECK(opt.slot(b, "gradient").value() != 0.0);
}

TEST_CASE("sgd with momentum and with Nesterov momentum", "[optimizers][sgd]") {
  for (const bool nesterov : {false, true}) {
    sf::variable<double, 4> w{{w_start[0], w_start[1], w_start[2], w_start[3]}};
    sf::variable<double> b{b_start};
    sf::sgd opt{0.02, 0.9, nesterov};
    auto step = make_step(opt, w, b);
    auto rw = w_start;
    double rb = b_start;
    std::array<double, 4> mw{};
    double mb = 0;
    for (int s = 0; s < 6; ++s) {
      step(x_in, y_in);
      const auto g = grads_at(rw, rb);
      for (std::size_t i = 0; i < 4; ++i) {
        mw[i] = 0.9 * mw[i] - 0.02 * g.dw[i];
        rw[i] += nesterov ? 0.9 * mw[i] - 0.02 * g.dw[i] : mw[i];
      }
      mb = 0.9 * mb - 0.02 * g.db;
      rb += nesterov ? 0.9 * mb - 0.02 * g.db : mb;
      check_w(w, rw);
      CHECK(b.value() == Approx(rb).epsilon(1e-13).margin(1e-15));
      CHECK(opt.slot(b, "momentum").value() == Approx(mb).epsilon(1e-13).margin(1e-15));
      for (std::size_t i = 0; i < 4; ++i) CHECK(opt.slot(w, "momentum").value()(i) == Approx(mw[i]).epsilon(1e-13).margin(1e-15));
    }
  }
  CHECK_THROWS_WITH(sf::sgd(0.1, 1.5), "staticflow: sf::sgd: momentum must be in [0, 1]");
}

TEST_CASE("adam: Keras's defaults and update rule, bias correction by the step count", "[optimizers][adam]") {
  sf::adam<double> defaults;
  CHECK(defaults.learning_rate.value() == 0.001);
  CHECK(defaults.beta_1() == 0.9);
  CHECK(defaults.beta_2() == 0.999);
  CHECK(defaults.epsilon() == 1e-7);
  CHECK(defaults.iterations.value() == 0);
  sf::adam f32{1e-3f};  // class template argument deduction: adam<float>
  static_assert(std::is_same_v<decltype(f32), sf::adam<float>>);

  sf::variable<double, 4> w{{w_start[0], w_start[1], w_start[2], w_start[3]}};
  sf::variable<double> b{b_start};
  sf::adam opt{0.1, 0.8, 0.99, 1e-6};
  auto step = make_step(opt, w, b);
  auto rw = w_start;
  double rb = b_start;
  std::array<double, 4> mw{}, vw{};
  double mb = 0, vb = 0;
  for (int s = 1; s <= 7; ++s) {
    step(x_in, y_in);
    const auto g = grads_at(rw, rb);
    const double alpha = 0.1 * std::sqrt(1 - std::pow(0.99, s)) / (1 - std::pow(0.8, s));
    for (std::size_t i = 0; i < 4; ++i) {
      mw[i] += (g.dw[i] - mw[i]) * (1 - 0.8);
      vw[i] += (g.dw[i] * g.dw[i] - vw[i]) * (1 - 0.99);
      rw[i] -= alpha * mw[i] / (std::sqrt(vw[i]) + 1e-6);
    }
    mb += (g.db - mb) * (1 - 0.8);
    vb += (g.db * g.db - vb) * (1 - 0.99);
    rb -= alpha * mb / (std::sqrt(vb) + 1e-6);
    check_w(w, rw);
    CHECK(b.value() == Approx(rb).epsilon(1e-13).margin(1e-15));
    CHECK(opt.slot(b, "m").value() == Approx(mb).epsilon(1e-13));
    CHECK(opt.slot(b, "v").value() == Approx(vb).epsilon(1e-13));
    for (std::size_t i = 0; i < 4; ++i) {
      CHECK(opt.slot(w, "m").value()(i) == Approx(mw[i]).epsilon(1e-13).margin(1e-15));
      CHECK(opt.slot(w, "v").value()(i) == Approx(vw[i]).epsilon(1e-13).margin(1e-15));
    }
  }
  CHECK(opt.iterations.value() == 7);
  CHECK_THROWS_WITH(sf::adam(0.1, 1.0, 0.9), "staticflow: sf::adam: beta_1 and beta_2 must be in [0, 1)");
}

namespace {
// Inputs, targets and starting weights of n elements for the one-pass tests below.
std::tuple<xt::xtensor<double, 1>, xt::xtensor<double, 1>, xt::xtensor<double, 1>> grouped_update_data(std::size_t n) {
  xt::xtensor<double, 1> x = xt::zeros<double>({n}), y = xt::zeros<double>({n}), w0 = xt::zeros<double>({n});
  for (std::size_t i = 0; i < n; ++i) {
    x(i) = std::sin(0.37 * double(i));
    y(i) = std::cos(0.11 * double(i));
    w0(i) = 0.01 * double(i % 17) - 0.05;
  }
  return {x, y, w0};
}
}  // namespace

TEST_CASE("adam writes a variable and its slots in one pass, with the same values", "[optimizers][adam]") {
  // 600 elements: above cpu::min_grouped_count, so the effect that assigns the variable, m and v
  // runs as one pass over them (cpu::fused_pass_counter counts it); 4 elements (above) take the
  // one-by-one fallback, whose order keeps every value computed from the state before the step
  constexpr std::size_t n = 600;
  const auto [x, y, w0] = grouped_update_data(n);
  sf::variable<double, sf::dyn> w{w0};
  sf::adam opt{0.05};
  auto step = sf::function([&](auto xv, auto yv) {
    sf::gradient_tape tape;
    auto loss = sf::reduce_sum(sf::square(w * xv - yv));
    opt.apply_gradients(tape.gradient(loss, w), w);
    return loss;
  });
  std::vector<double> rw(w0.begin(), w0.end()), m(n, 0.0), v(n, 0.0);
  for (int s = 1; s <= 3; ++s) {
    const std::size_t before = sf::cpu::fused_pass_counter();
    step(x, y);
    CHECK(sf::cpu::fused_pass_counter() == before + 1);
    const double alpha = 0.05 * std::sqrt(1 - std::pow(0.999, s)) / (1 - std::pow(0.9, s));
    for (std::size_t i = 0; i < n; ++i) {
      const double g = 2 * (rw[i] * x(i) - y(i)) * x(i);
      m[i] += (g - m[i]) * (1 - 0.9);
      v[i] += (g * g - v[i]) * (1 - 0.999);
      rw[i] -= alpha * m[i] / (std::sqrt(v[i]) + 1e-7);
    }
    for (std::size_t i = 0; i < n; ++i) {
      CHECK(w.value()(i) == Approx(rw[i]).epsilon(1e-12).margin(1e-14));
      CHECK(opt.slot(w, "m").value()(i) == Approx(m[i]).epsilon(1e-12).margin(1e-14));
      CHECK(opt.slot(w, "v").value()(i) == Approx(v[i]).epsilon(1e-12).margin(1e-14));
    }
  }
}

TEST_CASE("sgd with momentum writes a variable and its momentum in one pass, in place", "[optimizers][sgd]") {
  // 600 elements of static shape, a step that returns minimize's loss: the variable and its
  // momentum are one effect computed in one pass, written in place (nothing after them can throw)
  constexpr std::size_t n = 600;
  const auto [x, y, w0] = grouped_update_data(n);
  for (const bool nesterov : {false, true}) {
    INFO("nesterov " << nesterov);
    sf::variable<double, n> w{w0};
    sf::sgd opt{0.05, 0.9, nesterov};
    auto step = sf::function([&](auto xv, auto yv) { return opt.minimize(sf::reduce_sum(sf::square(w * xv - yv)), w); });
    std::vector<double> rw(w0.begin(), w0.end()), m(n, 0.0);
    const double* const buffer = w.value().data();
    for (int s = 1; s <= 3; ++s) {
      const std::size_t before = sf::cpu::fused_pass_counter();
      step(x, y);
      CHECK(sf::cpu::fused_pass_counter() == before + 1);
      for (std::size_t i = 0; i < n; ++i) {
        const double g = 2 * (rw[i] * x(i) - y(i)) * x(i);
        m[i] = 0.9 * m[i] - 0.05 * g;
        rw[i] += nesterov ? 0.9 * m[i] - 0.05 * g : m[i];
      }
      for (std::size_t i = 0; i < n; ++i) {
        CHECK(w.value()(i) == Approx(rw[i]).epsilon(1e-12).margin(1e-14));
        CHECK(opt.slot(w, "momentum").value()(i) == Approx(m[i]).epsilon(1e-12).margin(1e-14));
      }
    }
    CHECK(w.value().data() == buffer);
  }
}

TEST_CASE("the learning rate is a variable: changing it takes effect without a new trace", "[optimizers]") {
  sf::variable<double, 4> w{{1.0, 1.0, 1.0, 1.0}};
  sf::variable<double> b{0.0};
  sf::sgd opt{0.1};
  auto step = make_step(opt, w, b);
  step(x_in, y_in);
  const double b1 = b.value();
  CHECK(b1 == Approx(-0.1 * grads_at({1.0, 1.0, 1.0, 1.0}, 0.0).db));
  opt.learning_rate.assign(0.0);
  step(x_in, y_in);
  CHECK(b.value() == b1);  // a zero rate leaves the variables alone
  CHECK(step.tracing_count() == 1);
}

TEST_CASE("a step that throws leaves every variable and slot as it was", "[optimizers]") {
  sf::variable<double, 4> w{{w_start[0], w_start[1], w_start[2], w_start[3]}};
  sf::variable<double> b{b_start};
  sf::variable<double, 3> last_input{{0.0, 0.0, 0.0}};
  sf::adam opt{0.1};
  auto step = make_step(opt, w, b);
  step(x_in, y_in);
  const auto w1 = w.value();
  const double b1 = b.value(), m1 = opt.slot(b, "m").value(), v1 = opt.slot(b, "v").value();
  const auto mw1 = opt.slot(w, "m").value();
  CHECK(opt.iterations.value() == 1);

  auto failing = sf::function([&](auto x, auto y) {
    sf::gradient_tape tape;
    auto loss = sf::reduce_sum(sf::square(w * x + b - y));
    opt.apply_gradients(tape.gradient(loss, w, b), w, b);
    last_input.assign(x);  // after the update; x has 4 elements at run time, last_input 3
    return loss;
  });
  const xt::xtensor<double, 1> x_dyn{0.5, -1.0, 2.0, 1.5}, y_dyn{1.0, 0.0, -2.0, 3.0};
  CHECK_THROWS_WITH(failing(x_dyn, y_dyn), "staticflow: shapes (4,) and (3,) do not broadcast");
  CHECK((w.value() == w1));
  CHECK(b.value() == b1);
  CHECK(opt.slot(b, "m").value() == m1);
  CHECK(opt.slot(b, "v").value() == v1);
  CHECK((opt.slot(w, "m").value() == mw1));
  CHECK(opt.iterations.value() == 1);
  step(x_in, y_in);  // the optimizer goes on from where it was
  CHECK(opt.iterations.value() == 2);
}

TEST_CASE("a training step gives bit-for-bit the same variables with 1 and 2 threads", "[optimizers]") {
  const std::size_t n = 4099;  // above the parallel grain, with a SIMD tail
  xt::xtensor<float, 1> x = xt::zeros<float>({n}), y = xt::zeros<float>({n}), w0 = xt::zeros<float>({n});
  for (std::size_t i = 0; i < n; ++i) {
    x(i) = std::sin(0.37f * float(i));
    y(i) = std::cos(0.11f * float(i));
    w0(i) = 0.01f * float(i % 17);
  }
  std::vector<xt::xtensor<float, 1>> results;
  for (int threads : {1, 2}) {
    sf::set_num_threads(threads);
    sf::variable<float, sf::dyn> w{w0};
    sf::adam opt{0.01f};
    auto step = sf::function([&](auto xv, auto yv) {
      sf::gradient_tape tape;
      auto loss = sf::reduce_mean(sf::square(sf::tanh(w * xv) - yv));
      opt.apply_gradients(tape.gradient(loss, w), w);
      return loss;
    });
    for (int s = 0; s < 3; ++s) step(x, y);
    results.push_back(w.value());
  }
  sf::set_num_threads(1);
  CHECK((results[0] == results[1]));
  CHECK_FALSE((results[0] == w0));
}
