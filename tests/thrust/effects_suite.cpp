// The backend-parameterized suite's effects (effects/evaluator.hpp, backend/thrust/effect_graph.hpp):
// variables read and assigned in program order, sf::print, rollback when a call throws,
// optimizers' training steps and sf::random_generator draws, each checked against exact values
// or a float64 reference (and, on the Thrust backend, against the CPU backend in the same build);
// for_range loops and cond branches of effects; collectives (over a two-process communicator
// that logs them) and a data-parallel training step. Effects in while_loop / fori_loop / scan
// bodies: loop_effects_suite.cpp.
#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include <xtensor/xfixed.hpp>

#include "suite_backend.hpp"
#include <staticflow/distributed/collectives.hpp>
#include <staticflow/distributed/data_parallel.hpp>

#include "../distributed/twin_communicator.hpp"

TEST_CASE("suite effects: a variable read and assigned in program order", "[suite][effects]") {
  INFO("backend " << suite::name());
  sf::variable<float> total{1.f};
  auto f = sf::function(
      [&](auto x) {
        auto before = x * total;        // reads the contents before the write below
        total.assign_add(sf::reduce_sum(x));
        return std::tuple{before, x * total};  // ... and this read sees it
      },
      suite::backend);
  const xt::xtensor<float, 1> x = {1.f, 2.f, 3.f};
  auto [a, b] = suite::host(f(suite::in(x)));
  CHECK(suite::flat(a) == std::vector<float>{1.f, 2.f, 3.f});
  CHECK(suite::flat(b) == std::vector<float>{7.f, 14.f, 21.f});
  CHECK(total.value() == 7.f);
  std::tie(a, b) = suite::host(f(suite::in(x)));  // every call runs the effect again
  CHECK(suite::flat(a) == std::vector<float>{7.f, 14.f, 21.f});
  CHECK(total.value() == 13.f);
  CHECK(f.tracing_count() == 1);
  total.assign(0.5f);  // a change outside is seen by the next call
  std::tie(a, b) = suite::host(f(suite::in(x)));
  CHECK(suite::flat(a) == std::vector<float>{0.5f, 1.f, 1.5f});
  CHECK(total.value() == 6.5f);
}

TEST_CASE("suite effects: assign of a vector, C++ scalars in the value, and a function that returns nothing",
          "[suite][effects]") {
  INFO("backend " << suite::name());
  sf::variable<double, 4> w{{1.0, 2.0, 3.0, 4.0}};
  auto scale = sf::function([&](auto x, auto k) { w.assign(w * k + x); }, suite::backend);
  const xt::xtensor<double, 1> x = {0.5, 0.0, -1.0, 2.0};
  scale(suite::in(x), 2.0);
  CHECK(std::vector<double>(w.value().begin(), w.value().end()) == std::vector<double>{2.5, 4.0, 5.0, 10.0});
  scale(suite::in(x), -1.0);
  CHECK(std::vector<double>(w.value().begin(), w.value().end()) == std::vector<double>{-2.0, -4.0, -6.0, -8.0});
  const std::string spec = scale.get_concrete_function(suite::in(x), 2.0).pretty_printed_signature();
  CHECK(spec.find("Captures:\n  ") != std::string::npos);
  CHECK(spec.find("TensorSpec(shape=(4,), dtype=tf.float64, name=None)") != std::string::npos);
}

TEST_CASE("suite effects: sf::print shows the values a call computes", "[suite][effects]") {
  INFO("backend " << suite::name());
  std::ostringstream out;
  sf::variable<std::int32_t> calls{0};
  auto f = sf::function(
      [&](auto x) {
        calls.assign_add(1);
        sf::print(sf::output_stream(out), "call", calls, "x * 2 =", x * 2);
        return x + 1;
      },
      suite::backend);
  const xt::xtensor<std::int32_t, 1> x = {1, 2, 3};
  (void)suite::host(f(suite::in(x)));
  (void)suite::host(f(suite::in(x)));
  CHECK(out.str() == "call 1 x * 2 = [2 4 6]\ncall 2 x * 2 = [2 4 6]\n");
}

TEST_CASE("suite effects: a call that throws leaves every variable as it was", "[suite][effects]") {
  INFO("backend " << suite::name());
  sf::variable<float> count{0.f};
  sf::variable<float, 3> fixed{{1.f, 2.f, 3.f}};
  auto f = sf::function(
      [&](auto x) {
        count.assign_add(1.f);
        fixed.assign_add(x);  // x of run-time length: checked when the call runs
        return x;
      },
      suite::backend);
  const xt::xtensor<float, 1> good = {1.f, 1.f, 1.f}, bad = {1.f, 1.f};
  (void)suite::host(f(suite::in(good)));
  CHECK(count.value() == 1.f);
  CHECK_THROWS_AS(f(suite::in(bad)), sf::shape_error);
  CHECK_THROWS_WITH(f(suite::in(bad)), "staticflow: shapes (3,) and (2,) do not broadcast");
  CHECK(count.value() == 1.f);  // the first assignment of the failed call is undone
  CHECK(std::vector<float>(fixed.value().begin(), fixed.value().end()) == std::vector<float>{2.f, 3.f, 4.f});
}

TEST_CASE("suite effects: the seed's loop of assignments (sf::for_range) and its prints", "[suite][effects]") {
  INFO("backend " << suite::name());
  // for i in tf.range(x): v.assign_add(i); tf.print(i)
  sf::variable<std::int32_t> v{1};
  std::ostringstream out;
  auto f = sf::function(
      [&](auto n) {
        sf::for_range(n, [&](auto i) {
          v.assign_add(i);
          sf::print(sf::output_stream(out), i, v);
        });
      },
      suite::backend);
  f(std::int32_t{3});
  CHECK(v.value() == 4);
  CHECK(out.str() == "0 1\n1 2\n2 4\n");
  f(std::int32_t{0});  // an empty range: nothing runs
  CHECK(v.value() == 4);
  const xt::xtensor<std::int32_t, 0> n = 2;  // a tensor bound
  sf::variable<std::int32_t> w{0};
  auto g = sf::function([&](auto m) { sf::for_range(1, m + 1, [&](auto i) { w.assign_add(i * i); }); }, suite::backend);
  g(suite::in(n));
  CHECK(w.value() == 5);
}

TEST_CASE("suite effects: effects in sf::cond branches, with and without values", "[suite][effects]") {
  INFO("backend " << suite::name());
  sf::variable<std::int32_t> positive{0}, other{0};
  auto f = sf::function(
      [&](auto x) {
        auto s = sf::reduce_sum(x);
        return sf::cond(
            s > 0,
            [&] {
              positive.assign_add(1);
              return x * positive;  // sees the write before it in the same branch
            },
            [&] {
              other.assign_add(std::int32_t{10});
              return -x;
            });
      },
      suite::backend);
  const xt::xtensor<std::int32_t, 1> up = {1, 2}, down = {-1, -2};
  CHECK(suite::flat(suite::host(f(suite::in(up)))) == std::vector<std::int32_t>{1, 2});
  CHECK(suite::flat(suite::host(f(suite::in(up)))) == std::vector<std::int32_t>{2, 4});
  CHECK(suite::flat(suite::host(f(suite::in(down)))) == std::vector<std::int32_t>{1, 2});
  CHECK(positive.value() == 2);
  CHECK(other.value() == 10);
  std::ostringstream out;
  auto g = sf::function([&](auto x) { sf::cond(x > 1, [&] { sf::print(sf::output_stream(out), "big", x); }, [&] {}); },
                        suite::backend);
  g(1);
  g(5);
  CHECK(out.str() == "big 5\n");
}

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

namespace {
// Comm: sf_test::twin (host buffers), or on the Thrust backend sf_test::twin_device (device buffers,
// as NCCL's: the operands are evaluated into them, an argument is read where it is)
template <class Comm>
void collectives_and_data_parallel() {
  Comm comm;  // two processes holding the same values: a sum doubles, a gather repeats
  sf::variable<std::int32_t, 3> counts{xt::xtensor_fixed<std::int32_t, xt::xshape<3>>{1, 2, 3}};
  auto f = sf::function(
      [&](auto x) {
        auto total = sf::all_reduce(x, comm);          // an argument
        auto gathered = sf::all_gather(counts, comm);  // a variable, read where it lies
        counts.assign_add(sf::cast<std::int32_t>(sf::reduce_sum(total)));
        auto [a, b] = sf::all_reduce(std::tuple{x * 2.f, sf::reduce_sum(gathered)}, comm, sf::reduce_op::mean);
        return std::tuple{total, gathered, a + 0.f, b * 1};
      },
      suite::backend);
  const xt::xtensor<float, 2> x = {{1.f, 2.f}, {3.f, 4.f}};
  const auto [total, gathered, a, b] = suite::host(f(suite::in(x)));
  CHECK(suite::flat(total) == std::vector<float>{2.f, 4.f, 6.f, 8.f});
  CHECK(suite::flat(gathered) == std::vector<std::int32_t>{1, 2, 3, 1, 2, 3});
  CHECK(suite::flat(a) == std::vector<float>{2.f, 4.f, 6.f, 8.f});  // the twin's mean is the value
  CHECK(suite::flat(b) == std::vector<std::int32_t>{12});
  CHECK(suite::flat(counts.value()) == std::vector<std::int32_t>{21, 22, 23});  // after the gather: 1 2 3 + 20
  CHECK(comm.log == std::vector<std::string>{"all_reduce float32 x4 sum", "all_gather int32 x3",
                                             "all_reduce float32 x4 mean", "all_reduce int32 x1 mean"});
  const xt::xtensor<float, 2> none = xt::xtensor<float, 2>::from_shape({0, 2});  // size 0: ordinary input
  CHECK(suite::host(std::get<0>(f(suite::in(none)))).size() == 0);
  CHECK(suite::flat(counts.value()) == std::vector<std::int32_t>{21, 22, 23});

  // data-parallel training: one collective for the gradients and the loss, then sgd
  comm.log.clear();
  sf::distributed::data_parallel dp{comm};
  sf::variable<double, 2, 1> w{xt::xtensor_fixed<double, xt::xshape<2, 1>>{{0.5}, {-1.}}};
  sf::variable<double, 1> bias{xt::xtensor_fixed<double, xt::xshape<1>>{0.25}};
  sf::sgd<double> opt{0.1};
  auto step = sf::function(
      [&](auto xs, auto ys) { return dp.minimize(opt, sf::reduce_mean(sf::square(sf::matmul(xs, w) + bias - ys)), w, bias); },
      suite::backend);
  const xt::xtensor<double, 2> xs{{1., 2.}, {3., -1.}}, ys{{1.}, {0.}};
  const double r0 = 0.5 - 2. + 0.25 - 1., r1 = 1.5 + 1. + 0.25;  // residuals -2.25, 2.75
  CHECK(suite::flat(suite::host(step(suite::in(xs), suite::in(ys)))).at(0) == Approx((r0 * r0 + r1 * r1) / 2.).epsilon(1e-14));
  CHECK(w.value()(0, 0) == Approx(0.5 - 0.1 * (r0 * 1. + r1 * 3.)).epsilon(1e-14));
  CHECK(w.value()(1, 0) == Approx(-1. - 0.1 * (r0 * 2. + r1 * -1.)).epsilon(1e-14));
  CHECK(bias.value()(0) == Approx(0.25 - 0.1 * (r0 + r1)).epsilon(1e-14));
  CHECK(comm.log == std::vector<std::string>{"all_reduce float64 x4 mean"});
}
}  // namespace

TEST_CASE("suite effects: collectives in program order, bucketed per dtype, in data-parallel training",
          "[suite][effects][distributed]") {
  INFO("backend " << suite::name());
  collectives_and_data_parallel<sf_test::twin>();
}

#if defined(STATICFLOW_SUITE_THRUST)
TEST_CASE("suite effects: collectives over a communicator of device buffers (as NCCL's) in traced functions",
          "[suite][effects][distributed]") {
  INFO("backend " << suite::name());
  collectives_and_data_parallel<sf_test::twin_device>();

  // what data_parallel does outside traced functions stages variables through device memory
  sf_test::twin_device comm;
  sf::distributed::data_parallel dp{comm};
  sf::variable<float, 2> v{xt::xtensor_fixed<float, xt::xshape<2>>{1.5f, -2.f}};
  dp.broadcast_variables(v);
  CHECK(suite::flat(v.value()) == std::vector<float>{1.5f, -2.f});
  CHECK(dp.replicas_identical(v));
  CHECK(comm.log == std::vector<std::string>{"broadcast float32 x2 from 0", "all_gather float32 x2", "all_reduce int32 x1 min"});
  CHECK(comm.live == 0);
}
#endif
