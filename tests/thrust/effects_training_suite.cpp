// The backend-parameterized suite's training state (effects/evaluator.hpp,
// backend/thrust/effect_graph.hpp): optimizers' training steps (sgd against a float64 reference;
// on the Thrust backend, adam against the CPU backend in the same build) and sf::random_generator
// draws, bit for bit as the CPU backend's. The other effects: effects_suite.cpp.
#include <catch2/catch.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "suite_backend.hpp"

namespace {
// loss(w, b) = sum((w * x + b - y)^2) over 4 points (tests/optimizers/test_optimizers.cpp's)
const std::array<double, 4> xs{0.5, -1.0, 2.0, 1.5}, ys{1.0, 0.0, -2.0, 3.0};

template <class Opt, class B>
auto training_step(Opt& opt, sf::variable<double, 4>& w, sf::variable<double>& b, B backend) {
  return sf::function(
      [&](auto x, auto y) {
        sf::gradient_tape tape;
        auto loss = sf::reduce_sum(sf::square(w * x + b - y));
        opt.apply_gradients(tape.gradient(loss, w, b), w, b);
        return loss;
      },
      backend);
}
}  // namespace

TEST_CASE("suite effects: sgd training steps against a float64 reference", "[suite][effects][optimizers]") {
  INFO("backend " << suite::name());
  sf::variable<double, 4> w{{0.3, -0.2, 0.1, 0.7}};
  sf::variable<double> b{-0.4};
  sf::sgd opt{0.05};
  auto step = training_step(opt, w, b, suite::backend);
  std::array<double, 4> rw{0.3, -0.2, 0.1, 0.7};
  double rb = -0.4;
  const xt::xtensor<double, 1> x{xs[0], xs[1], xs[2], xs[3]}, y{ys[0], ys[1], ys[2], ys[3]};
  for (int s = 0; s < 4; ++s) {
    double loss = 0, db = 0;
    std::array<double, 4> dw{};
    for (std::size_t i = 0; i < 4; ++i) {
      const double r = rw[i] * xs[i] + rb - ys[i];
      loss += r * r;
      dw[i] = 2 * r * xs[i];
      db += 2 * r;
    }
    const auto l = suite::host(step(suite::in(x), suite::in(y)));
    CHECK(l() == Approx(loss).epsilon(1e-13));  // the loss before the step
    for (std::size_t i = 0; i < 4; ++i) rw[i] -= 0.05 * dw[i];
    rb -= 0.05 * db;
    for (std::size_t i = 0; i < 4; ++i) CHECK(w.value()(i) == Approx(rw[i]).epsilon(1e-13).margin(1e-15));
    CHECK(b.value() == Approx(rb).epsilon(1e-13).margin(1e-15));
  }
  CHECK(step.tracing_count() == 1);
}

#if defined(STATICFLOW_SUITE_THRUST)
TEST_CASE("suite effects: adam steps on the Thrust backend match the CPU backend's", "[suite][effects][optimizers]") {
  INFO("backend " << suite::name());
  sf::variable<double, 4> w_dev{{0.3, -0.2, 0.1, 0.7}}, w_cpu{{0.3, -0.2, 0.1, 0.7}};
  sf::variable<double> b_dev{-0.4}, b_cpu{-0.4};
  sf::adam opt_dev{0.01}, opt_cpu{0.01};
  auto step_dev = training_step(opt_dev, w_dev, b_dev, sf::backend::thrust);
  auto step_cpu = training_step(opt_cpu, w_cpu, b_cpu, sf::backend::cpu);
  const xt::xtensor<double, 1> x{xs[0], xs[1], xs[2], xs[3]}, y{ys[0], ys[1], ys[2], ys[3]};
  for (int s = 0; s < 5; ++s) {
    const double l_cpu = step_cpu(x, y);
    const auto l_dev = step_dev(sf::to_device(x), sf::to_device(y)).to_host();
    CHECK(l_dev() == Approx(l_cpu).epsilon(1e-12));
    for (std::size_t i = 0; i < 4; ++i) CHECK(w_dev.value()(i) == Approx(w_cpu.value()(i)).epsilon(1e-12).margin(1e-15));
    CHECK(b_dev.value() == Approx(b_cpu.value()).epsilon(1e-12).margin(1e-15));
  }
  CHECK(opt_dev.iterations.value() == 5);
}

TEST_CASE("suite effects: sf::random_generator draws on the Thrust backend as on the CPU backend", "[suite][effects][random]") {
  INFO("backend " << suite::name());
  auto gen_dev = sf::random_generator::from_seed(7);
  auto gen_cpu = sf::random_generator::from_seed(7);
  auto draw = [](auto& gen) { return [&gen](auto x) { return x + gen.uniform(sf::shape_of(x)); }; };
  auto f_dev = sf::function(draw(gen_dev), sf::backend::thrust);
  auto f_cpu = sf::function(draw(gen_cpu), sf::backend::cpu);
  const xt::xtensor<float, 1> x = xt::zeros<float>({std::size_t{37}});
  for (int call = 0; call < 3; ++call) {
    const auto a = f_dev(sf::to_device(x)).to_host();
    const xt::xtensor<float, 1> b = f_cpu(x);
    CHECK(suite::flat(a) == suite::flat(b));  // the same counter-based draws, bit for bit
    CHECK(std::vector<std::int64_t>(gen_dev.state().value().begin(), gen_dev.state().value().end()) ==
          std::vector<std::int64_t>(gen_cpu.state().value().begin(), gen_cpu.state().value().end()));
  }
  const auto first = f_dev(sf::to_device(x)).to_host(), second = f_dev(sf::to_device(x)).to_host();
  CHECK(suite::flat(first) != suite::flat(second));  // the state moved on between calls
}

#endif
