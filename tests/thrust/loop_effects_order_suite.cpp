// The backend-parameterized suite's loop effects (effects/loop_statement.hpp, the loop kernels of
// backend/cpu/control.hpp and backend/thrust/control.hpp): assignments and sf::print in
// sf::while_loop bodies run once per iteration, in program order with the function's other
// effects; a read in the body sees the writes before it in the same iteration; the condition sees
// every iteration's writes; a throw in any iteration puts every variable back; a collective in a
// fori_loop body (over a two-process communicator that logs it). fori_loop / scan bodies and
// nesting: loop_effects_combinators_suite.cpp (each TU kept under the 2 GB compile budget). Built
// with STATICFLOW_LOOP_EFFECTS=1 as a program of its own (tests/thrust/CMakeLists.txt).
#include <catch2/catch.hpp>

#include <cstdint>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "suite_backend.hpp"
#include <staticflow/distributed/collectives.hpp>

#include "../distributed/twin_communicator.hpp"

namespace {
// A rank-0 result of either backend as its C++ value.
template <class R>
auto scalar(const R& r) {
  return suite::flat(suite::host(r)).at(0);
}
}  // namespace

TEST_CASE("suite loop effects: a while loop's body assigns and prints on every iteration", "[suite][effects][loop]") {
  INFO("backend " << suite::name());
  sf::variable<int> total{0};
  std::ostringstream printed;
  auto f = sf::function(
      [&](auto n) {
        return sf::while_loop([&](auto k) { return k < n; },
                              [&](auto k) {
                                total.assign_add(k);
                                sf::print(sf::output_stream(printed), "k", k, "total", total);
                                return k + 1;
                              },
                              0);
      },
      suite::backend);
  CHECK(scalar(f(3)) == 3);
  CHECK(total.value() == 3);
  CHECK(printed.str() == "k 0 total 0\nk 1 total 1\nk 2 total 3\n");
  CHECK(scalar(f(0)) == 0);  // no iteration: no effect
  CHECK(total.value() == 3);
  CHECK(scalar(f(2)) == 2);
  CHECK(total.value() == 4);
  CHECK(f.tracing_count() == 1);
}

TEST_CASE("suite loop effects: reads see the writes before them; the condition sees every iteration's",
          "[suite][effects][loop]") {
  INFO("backend " << suite::name());
  sf::variable<int> v{0};
  auto g = sf::function(
      [&](auto n) {
        return sf::while_loop([&](auto i, auto) { return i < n; },
                              [&](auto i, auto acc) {
                                auto before = v.read();
                                v.assign_add(1);
                                return std::tuple{i + 1, acc + before * 10 + v.read()};
                              },
                              0, 0);
      },
      suite::backend);
  const auto [steps, acc] = g(3);  // iteration i: before = i, after = i + 1
  CHECK(scalar(steps) == 3);
  CHECK(scalar(acc) == 36);
  CHECK(v.value() == 3);

  sf::variable<int> w{0};
  auto h = sf::function(
      [&](auto step) {
        return sf::while_loop([&](auto) { return w < 10; }, [&](auto k) { w.assign_add(step); return k + 1; }, 0);
      },
      suite::backend);
  CHECK(scalar(h(3)) == 4);  // 0 3 6 9 12
  CHECK(w.value() == 12);
  CHECK(scalar(h(1)) == 0);  // the condition fails at once
  CHECK(w.value() == 12);

  sf::variable<std::int64_t> u{0};
  std::ostringstream printed;
  auto p = sf::function(
      [&](auto n) {
        const auto start = u.read();  // before the loop: keeps the value it had here
        u.assign(100);
        auto r = sf::while_loop([&](auto k) { return k < n; }, [&](auto k) { u.assign_add(k); return k + 1; },
                                std::int64_t{0});
        sf::print(sf::output_stream(printed), "after the loop", u);
        u.assign_add(1000);
        return std::tuple{r, start * 1, u.read() * 1};
      },
      suite::backend);
  const auto [r, start, last] = p(std::int64_t{3});
  CHECK(scalar(r) == 3);
  CHECK(scalar(start) == 0);
  CHECK(scalar(last) == 1103);
  CHECK(printed.str() == "after the loop 103\n");
  CHECK(u.value() == 1103);
}

TEST_CASE("suite loop effects: a throw in any iteration puts every variable back", "[suite][effects][loop]") {
  INFO("backend " << suite::name());
  sf::variable<int> count{0};
  sf::variable<int, sf::dyn> d{xt::xtensor<int, 1>{1, 2}};
  auto f = sf::function(
      [&](auto n, auto y) {
        count.assign(-1);
        return sf::while_loop([&](auto k) { return k < n; },
                              [&](auto k) {
                                count.assign_add(1);
                                sf::cond(k == 2, [&] { d.assign_add(y); }, [] {});  // a y of another length throws
                                return k + 1;
                              },
                              0);
      },
      suite::backend);
  const xt::xtensor<int, 1> three = {1, 1, 1}, two = {5, 5};
  CHECK_THROWS_WITH(f(4, suite::in(three)), "staticflow: shapes (2,) and (3,) do not broadcast");
  CHECK(count.value() == 0);
  CHECK(suite::flat(d.value()) == std::vector<int>{1, 2});
  CHECK(scalar(f(2, suite::in(three))) == 2);  // k never reaches 2
  CHECK(count.value() == 1);
  CHECK(scalar(f(3, suite::in(two))) == 3);
  CHECK(count.value() == 2);
  CHECK(suite::flat(d.value()) == std::vector<int>{6, 7});
}

TEST_CASE("suite loop effects: a collective in a loop body runs once per iteration", "[suite][effects][loop]") {
  INFO("backend " << suite::name());
  sf_test::twin comm;  // a sum doubles
  sf::variable<float> seen{0.f};
  auto f = sf::function(
      [&](auto a, auto n) {
        return sf::fori_loop(0, n, [&](auto, auto x) {
          seen.assign_add(1.f);
          return sf::all_reduce(x * 2.f, comm);
        }, a);
      },
      suite::backend);
  const xt::xtensor<float, 1> a = {1.f, 2.f};
  CHECK(suite::flat(suite::host(f(suite::in(a), 2))) == std::vector<float>{16.f, 32.f});
  CHECK(seen.value() == 2.f);
  CHECK(comm.log == std::vector<std::string>{"all_reduce float32 x2 sum", "all_reduce float32 x2 sum"});
}
