// Effects in while loop bodies (effects/loop_statement.hpp, effects/loop_effects.hpp): run once
// per iteration, in program order with the function's other effects; a read in the body sees the
// writes before it in the same iteration; a condition sees every iteration's writes; a throw in
// any iteration puts every variable back; sf::fori_loop (run-time bounds) and sf::scan. The forms
// such a loop takes are in test_loop_effects_forms.cpp, eager mode in test_loop_effects_eager.cpp
// (three TUs: one was 3.2 GB of g++, and only one case needs eager mode compiled in).
// staticflow-test: loop effects (built with STATICFLOW_LOOP_EFFECTS=1, the default; tests/CMakeLists.txt)
#include <catch2/catch.hpp>

#include <cstdint>
#include <sstream>
#include <tuple>

#include <xtensor/xfixed.hpp>
#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

TEST_CASE("a while loop's body assigns and prints on every iteration", "[loop][effects]") {
  sf::variable<int> total{0};
  std::ostringstream printed;
  auto f = sf::function([&](auto n) {
    return sf::while_loop([&](auto k) { return k < n; },
                          [&](auto k) {
                            total.assign_add(k);
                            sf::print(sf::output_stream(printed), "k", k, "total", total);
                            return k + 1;
                          },
                          0);
  });
  CHECK(f(3) == 3);
  CHECK(total.value() == 3);
  CHECK(printed.str() == "k 0 total 0\nk 1 total 1\nk 2 total 3\n");
  CHECK(f(0) == 0);  // no iteration: no effect
  CHECK(total.value() == 3);
  CHECK(f(2) == 2);
  CHECK(total.value() == 4);
  CHECK(f.tracing_count() == 1);
  CHECK(f.get_concrete_function(1).effects()->effect_count() == 1);
}

TEST_CASE("a read in the body sees the writes before it in the same iteration", "[loop][effects]") {
  sf::variable<int> v{0};
  auto g = sf::function([&](auto n) {
    return sf::while_loop([&](auto i, auto) { return i < n; },
                          [&](auto i, auto acc) {
                            auto before = v.read();
                            v.assign_add(1);
                            return std::tuple{i + 1, acc + before * 10 + v.read()};
                          },
                          0, 0);
  });
  const auto [steps, acc] = g(3);  // iteration i: before = i, after = i + 1
  CHECK(steps == 3);
  CHECK(acc == 36);
  CHECK(v.value() == 3);
  const auto [steps2, acc2] = g(1);
  CHECK(steps2 == 1);
  CHECK(acc2 == 34);  // before 3, after 4
  CHECK(v.value() == 4);
}

TEST_CASE("the condition sees the body's writes; effects around the loop keep program order", "[loop][effects]") {
  sf::variable<int> w{0};
  auto h = sf::function([&](auto step) {
    return sf::while_loop([&](auto) { return w < 10; }, [&](auto k) { w.assign_add(step); return k + 1; }, 0);
  });
  CHECK(h(3) == 4);  // 0 3 6 9 12
  CHECK(w.value() == 12);
  CHECK(h(1) == 0);  // the condition fails at once
  CHECK(w.value() == 12);

  sf::variable<std::int64_t> u{0};
  std::ostringstream printed;
  auto p = sf::function([&](auto n) {
    const auto start = u.read();  // before the loop: keeps the value it had here
    u.assign(100);
    auto r = sf::while_loop([&](auto k) { return k < n; }, [&](auto k) { u.assign_add(k); return k + 1; }, std::int64_t{0});
    sf::print(sf::output_stream(printed), "after the loop", u);
    u.assign_add(1000);
    return std::tuple{r, start * 1, u.read() * 1};
  });
  const auto [r, start, last] = p(std::int64_t{3});
  CHECK(r == 3);
  CHECK(start == 0);
  CHECK(last == 1103);
  CHECK(printed.str() == "after the loop 103\n");
  CHECK(u.value() == 1103);
}

TEST_CASE("a throw in any iteration puts every variable back", "[loop][effects]") {
  sf::variable<int> count{0};
  sf::variable<int, sf::dyn> d{xt::xtensor<int, 1>{1, 2}};
  auto f = sf::function([&](auto n, auto y) {
    count.assign(-1);
    return sf::while_loop([&](auto k) { return k < n; },
                          [&](auto k) {
                            count.assign_add(1);
                            sf::cond(k == 2, [&] { d.assign_add(y); }, [] {});  // a y of another length throws here
                            return k + 1;
                          },
                          0);
  });
  CHECK_THROWS_AS(f(4, xt::xtensor<int, 1>{1, 1, 1}), sf::shape_error);
  CHECK(count.value() == 0);
  CHECK((d.value() == xt::xtensor<int, 1>{1, 2}));
  CHECK(f(2, xt::xtensor<int, 1>{1, 1, 1}) == 2);  // k never reaches 2
  CHECK(count.value() == 1);
  CHECK(f(3, xt::xtensor<int, 1>{5, 5}) == 3);
  CHECK(count.value() == 2);
  CHECK((d.value() == xt::xtensor<int, 1>{6, 7}));
}

TEST_CASE("fori_loop with run-time bounds and scan have effects too", "[loop][effects]") {
  sf::variable<float> s{0.f};
  auto powers = sf::function([&](auto n, auto x) {
    return sf::fori_loop(0, n, [&](auto, auto acc) { s.assign_add(acc); return acc * x; }, 1.f);
  });
  CHECK(powers(3, 2.f) == 8.f);
  CHECK(s.value() == 7.f);

  sf::variable<double> seen{0.0};
  std::ostringstream printed;
  auto cumulative = sf::function([&](auto xs) {
    return sf::scan([&](auto carry, auto x) {
      seen.assign_add(x);
      sf::print(sf::output_stream(printed), "x", x);
      return std::tuple{carry + x, carry * 1.0};
    }, 0.0, xs);
  });
  const auto [total, before] = cumulative(xt::xtensor<double, 1>{1.0, 2.0, 4.0});
  CHECK(total == 7.0);
  CHECK((before == xt::xtensor<double, 1>{0.0, 1.0, 3.0}));
  CHECK(seen.value() == 7.0);
  CHECK(printed.str() == "x 1\nx 2\nx 4\n");
  const auto [none, empty] = cumulative(xt::xtensor<double, 1>::from_shape({0}));  // size 0: no iteration
  CHECK(none == 0.0);
  CHECK(empty.size() == 0);
  CHECK(seen.value() == 7.0);
}
