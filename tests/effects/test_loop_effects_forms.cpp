// Effects in loop bodies (effects/loop_statement.hpp, effects/loop_effects.hpp), the forms such a
// loop takes: tensor loop variables of any size, conds and loops nested in the body, a loop
// without effects among effects, an unrolled fori_loop, a gradient through the loop; effects in
// a loop's condition are refused. (test_loop_effects.cpp: program order, reads, rollback.)
// staticflow-test: loop effects (built with STATICFLOW_LOOP_EFFECTS=1, the default; tests/CMakeLists.txt)
#include <catch2/catch.hpp>

#include <cstdint>
#include <sstream>
#include <tuple>

#include <xtensor/xfixed.hpp>
#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

TEST_CASE("tensor loop variables: effects read the current values, of any size", "[loop][effects]") {
  sf::variable<float> sums{0.f};
  auto doubling = sf::function([&](auto x, auto n) {
    return sf::fori_loop(0, n, [&](auto, auto v) { sums.assign_add(sf::reduce_sum(v)); return v * 2.f; }, x);
  });
  const xt::xtensor_fixed<float, xt::xshape<3>> x{1.f, 2.f, 3.f};
  const xt::xtensor_fixed<float, xt::xshape<3>> r = doubling(x, 3);
  CHECK((r == xt::xtensor_fixed<float, xt::xshape<3>>{8.f, 16.f, 24.f}));
  CHECK(sums.value() == 6.f + 12.f + 24.f);
  const xt::xtensor<float, 1> one = doubling(xt::xtensor<float, 1>{0.5f}, 2);
  CHECK((one == xt::xtensor<float, 1>{2.f}));
  CHECK(sums.value() == 42.f + 0.5f + 1.f);
  const xt::xtensor<float, 1> none = doubling(xt::xtensor<float, 1>::from_shape({0}), 2);
  CHECK(none.size() == 0);
  CHECK(sums.value() == 43.5f);
}

TEST_CASE("conds and loops with effects nest in loop bodies", "[loop][effects]") {
  sf::variable<int> evens{0};
  auto picks = sf::function([&](auto n) {
    return sf::while_loop([&](auto k) { return k < n; },
                          [&](auto k) {
                            sf::cond(k % 2 == 0, [&] { evens.assign_add(k); }, [] {});
                            auto bonus = sf::cond(k == 3, [&] { evens.assign_add(100); return 1; }, [] { return 0; });
                            return k + 1 + bonus * 0;
                          },
                          0);
  });
  CHECK(picks(5) == 5);
  CHECK(evens.value() == 0 + 2 + 4 + 100);

  std::ostringstream printed;
  auto pairs = sf::function([&](auto n) {
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
  });
  CHECK(pairs(3) == 3);
  CHECK(printed.str() == "pair 1 0\npair 2 0\npair 2 1\n");

  sf::variable<int> ticks{0};
  auto in_range = sf::function([&](auto n) {
    sf::for_range(n, [&](auto i) {
      auto r = sf::while_loop([&](auto k) { return k < i; }, [&](auto k) { ticks.assign_add(1); return k + 1; }, 0);
      ticks.assign_add(r * 10);
    });
  });
  in_range(3);  // i = 0, 1, 2: 0 + 1 + 2 ticks, then 10 * (0 + 1 + 2)
  CHECK(ticks.value() == 33);
}

TEST_CASE("an effect in a loop's condition is refused while tracing, before any effect", "[loop][effects]") {
  sf::variable<int> v{1};
  auto f = sf::function([&](auto n) {
    v.assign(5);
    return sf::while_loop([&](auto k) { v.assign_add(1); return k < n; }, [](auto k) { return k + 1; }, 0);
  });
  CHECK_THROWS_WITH(f(3), "staticflow: assign_add inside sf::while_loop conditions is not supported: effects run at "
                          "the top level of a function, in loop bodies and in sf::cond / sf::switch_case branches "
                          "(move it into the loop's body)");
  CHECK(v.value() == 1);
}

TEST_CASE("a loop without effects still reads variables where it stands in program order", "[loop][effects]") {
  sf::variable<int> v{5};
  auto f = sf::function([&](auto n) {
    // the loop is a node of the graph, computed with the outputs, after the assignment below:
    // its reads of v (condition and body) still see the 5 they stand before
    auto r = sf::while_loop([&](auto k) { return k < n * v; }, [&](auto k) { return k + v; }, 0);
    v.assign(1);
    return r;
  });
  CHECK(f(2) == 10);
  CHECK(v.value() == 1);
  v.assign(5);
  CHECK(f(1) == 5);
  CHECK(f.get_concrete_function(1).effects()->effect_count() == 1);
}

TEST_CASE("an unrolled fori_loop's effects run once per unrolled step", "[loop][effects]") {
  sf::variable<int> total{0};
  auto f = sf::function([&](auto x) {
    return sf::fori_loop(sf::static_value<0>{}, sf::static_value<3>{}, [&](auto i, auto acc) {
      total.assign_add(acc);
      return acc + i;
    }, x);
  });
  CHECK(f(10) == 13);  // 10, 10, 11 -> 13
  CHECK(total.value() == 31);
}

TEST_CASE("a gradient through a loop whose body has effects runs the effects once per call", "[loop][effects][grad]") {
  sf::variable<double> total{0.0};
  std::ostringstream printed;
  auto g = sf::grad<0>([&](auto x, auto n) {
    return sf::reduce_sum(sf::fori_loop(std::int64_t{0}, n, [&](auto i, auto v) {
      total.assign_add(sf::reduce_sum(v));
      sf::print(sf::output_stream(printed), "i", i);
      return v * 2.0;
    }, x));
  });
  const xt::xtensor_fixed<double, xt::xshape<3>> x = {1., 2., 3.};
  const xt::xtensor_fixed<double, xt::xshape<3>> dx = g(x, std::int64_t{3});
  CHECK((dx == xt::xtensor_fixed<double, xt::xshape<3>>{8., 8., 8.}));  // d/dx sum(2^3 x)
  CHECK(total.value() == 6. + 12. + 24.);  // the forward iterations' effects, once each
  CHECK(printed.str() == "i 0\ni 1\ni 2\n");
}
