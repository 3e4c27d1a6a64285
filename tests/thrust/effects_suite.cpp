// The backend-parameterized suite's effects (effects/evaluator.hpp, backend/thrust/effect_graph.hpp):
// variables read and assigned in program order, sf::print, rollback when a call throws, for_range
// loops and cond branches of effects, each checked against exact values. Optimizers' training
// steps and sf::random_generator draws: effects_training_suite.cpp; collectives and data-parallel
// training: collectives_suite.cpp (each TU kept under the 2 GB compile budget). Effects in
// while_loop / fori_loop / scan bodies: loop_effects_order_suite.cpp, loop_effects_combinators_suite.cpp.
#include <catch2/catch.hpp>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "suite_backend.hpp"

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
