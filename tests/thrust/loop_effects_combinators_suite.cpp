// The backend-parameterized suite's loop effects in the loop combinators (effects/loop_statement.hpp,
// the loop kernels of backend/cpu/control.hpp and backend/thrust/control.hpp): assignments and
// sf::print in fori_loop and scan bodies, tensor loop variables of any size (0 and 1 included),
// and conds and loops with effects nested in loop bodies (and a while_loop in a for_range). The
// order of effects in while_loop bodies, rollback and collectives: loop_effects_order_suite.cpp
// (each TU kept under the 2 GB compile budget). Built with STATICFLOW_LOOP_EFFECTS=1 as a program
// of its own (tests/thrust/CMakeLists.txt).
#include <catch2/catch.hpp>

#include <sstream>
#include <tuple>
#include <vector>

#include "suite_backend.hpp"

namespace {
// A rank-0 result of either backend as its C++ value.
template <class R>
auto scalar(const R& r) {
  return suite::flat(suite::host(r)).at(0);
}
}  // namespace

TEST_CASE("suite loop effects: fori_loop, scan and tensor loop variables of any size", "[suite][effects][loop]") {
  INFO("backend " << suite::name());
  sf::variable<float> s{0.f};
  auto powers = sf::function(
      [&](auto n, auto x) {
        return sf::fori_loop(0, n, [&](auto, auto acc) { s.assign_add(acc); return acc * x; }, 1.f);
      },
      suite::backend);
  CHECK(scalar(powers(3, 2.f)) == 8.f);
  CHECK(s.value() == 7.f);

  sf::variable<double> seen{0.0};
  std::ostringstream printed;
  auto cumulative = sf::function(
      [&](auto xs) {
        return sf::scan(
            [&](auto carry, auto x) {
              seen.assign_add(x);
              sf::print(sf::output_stream(printed), "x", x);
              return std::tuple{carry + x, carry * 1.0};
            },
            0.0, xs);
      },
      suite::backend);
  const xt::xtensor<double, 1> xs = {1.0, 2.0, 4.0};
  const auto [total, before] = cumulative(suite::in(xs));
  CHECK(scalar(total) == 7.0);
  CHECK(suite::flat(suite::host(before)) == std::vector<double>{0.0, 1.0, 3.0});
  CHECK(seen.value() == 7.0);
  CHECK(printed.str() == "x 1\nx 2\nx 4\n");
  const xt::xtensor<double, 1> no_xs = xt::xtensor<double, 1>::from_shape({0});
  const auto [none, empty] = cumulative(suite::in(no_xs));  // size 0: no iteration
  CHECK(scalar(none) == 0.0);
  CHECK(suite::host(empty).size() == 0);
  CHECK(seen.value() == 7.0);

  sf::variable<float> sums{0.f};
  auto doubling = sf::function(
      [&](auto x, auto n) {
        return sf::fori_loop(0, n, [&](auto, auto v) { sums.assign_add(sf::reduce_sum(v)); return v * 2.f; }, x);
      },
      suite::backend);
  const xt::xtensor<float, 1> x = {1.f, 2.f, 3.f}, one = {0.5f}, none_x = xt::xtensor<float, 1>::from_shape({0});
  CHECK(suite::flat(suite::host(doubling(suite::in(x), 3))) == std::vector<float>{8.f, 16.f, 24.f});
  CHECK(sums.value() == 6.f + 12.f + 24.f);
  CHECK(suite::flat(suite::host(doubling(suite::in(one), 2))) == std::vector<float>{2.f});
  CHECK(sums.value() == 42.f + 0.5f + 1.f);
  CHECK(suite::host(doubling(suite::in(none_x), 2)).size() == 0);
  CHECK(sums.value() == 43.5f);
}

TEST_CASE("suite loop effects: conds and loops with effects nest in loop bodies", "[suite][effects][loop]") {
  INFO("backend " << suite::name());
  sf::variable<int> evens{0};
  auto picks = sf::function(
      [&](auto n) {
        return sf::while_loop([&](auto k) { return k < n; },
                              [&](auto k) {
                                sf::cond(k % 2 == 0, [&] { evens.assign_add(k); }, [] {});
                                auto bonus =
                                    sf::cond(k == 3, [&] { evens.assign_add(100); return 1; }, [] { return 0; });
                                return k + 1 + bonus * 0;
                              },
                              0);
      },
      suite::backend);
  CHECK(scalar(picks(5)) == 5);
  CHECK(evens.value() == 0 + 2 + 4 + 100);

  std::ostringstream printed;
  auto pairs = sf::function(
      [&](auto n) {
        return sf::while_loop([&](auto i) { return i < n; },
                              [&](auto i) {
                                auto inner = sf::while_loop([&](auto j) { return j < i; },
                                                            [&](auto j) {
                                                              sf::print(sf::output_stream(printed), "pair", i, j);
                                                              return j + 1;
                                                            },
                                                            0);
                                return i + 1 + inner * 0;
                              },
                              0);
      },
      suite::backend);
  CHECK(scalar(pairs(3)) == 3);
  CHECK(printed.str() == "pair 1 0\npair 2 0\npair 2 1\n");

  sf::variable<int> ticks{0};
  auto in_range = sf::function(
      [&](auto n) {
        sf::for_range(n, [&](auto i) {
          auto r = sf::while_loop([&](auto k) { return k < i; }, [&](auto k) { ticks.assign_add(1); return k + 1; }, 0);
          ticks.assign_add(r * 10);
        });
      },
      suite::backend);
  in_range(3);  // i = 0, 1, 2: 0 + 1 + 2 ticks, then 10 * (0 + 1 + 2)
  CHECK(ticks.value() == 33);
}
