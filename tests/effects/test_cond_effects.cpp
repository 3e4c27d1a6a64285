// Effects in sf::cond / sf::switch_case branches that return values (effects/cond_statement.hpp):
// only the picked branch's effects run, in program order; the branch's values see its writes; the
// selector is read once per call even when a branch writes what it reads; a throw later in the
// call puts every variable back; loop bodies still refuse effects.
// staticflow-test: loop effects (a cond with effects in a loop body; tests/CMakeLists.txt)
#include <catch2/catch.hpp>

#include <cstdint>
#include <sstream>
#include <tuple>

#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

TEST_CASE("a value-returning sf::cond runs the effects of the branch it picks", "[cond][effects]") {
  sf::variable<int> hits{0};
  std::ostringstream printed;
  auto f = sf::function([&](auto x) {
    return sf::cond(
        x > 0,
        [&] {
          hits.assign_add(1);
          return x * 2;
        },
        [&] {
          sf::print(sf::output_stream(printed), "not positive:", x);
          return -x;
        });
  });
  CHECK(f(3) == 6);
  CHECK(hits.value() == 1);
  CHECK(printed.str().empty());
  CHECK(f(-2) == 2);
  CHECK(hits.value() == 1);
  CHECK(printed.str() == "not positive: -2\n");
  CHECK(f(5) == 10);
  CHECK(f(0) == 0);
  CHECK(hits.value() == 2);
  CHECK(printed.str() == "not positive: -2\nnot positive: 0\n");
  CHECK(f.tracing_count() == 1);
  CHECK(f.get_concrete_function(1).effects()->effect_count() == 1);
}

TEST_CASE("a branch's values see the writes before them and not those after", "[cond][effects]") {
  sf::variable<int> v{10};
  auto g = sf::function([&](auto x) {
    return sf::cond(
        x > 0,
        [&] {
          auto before = v.read();
          v.assign_add(x);
          return std::tuple{before * 1, v.read() * 1};
        },
        [&] { return std::tuple{v.read() * 1, v.read() * 0}; });
  });
  const auto [before, after] = g(5);
  CHECK(before == 10);
  CHECK(after == 15);
  CHECK(v.value() == 15);
  const auto [unchanged, zero] = g(-1);
  CHECK(unchanged == 15);
  CHECK(zero == 0);
  const auto [again, later] = g(1);  // the read before the write is armed again on the next call
  CHECK(again == 15);
  CHECK(later == 16);

  // a write after the cond, at the top level, leaves the branch's value as it was
  auto h = sf::function([&](auto x) {
    auto r = sf::cond(
        x > 0,
        [&] {
          v.assign_add(1);
          return v.read() * 1;
        },
        [&] { return v.read() * 1; });
    v.assign(0);
    return r;
  });
  v.assign(7);
  CHECK(h(1) == 8);
  CHECK(v.value() == 0);
  v.assign(7);
  CHECK(h(-1) == 7);
  CHECK(v.value() == 0);
}

TEST_CASE("the selector sees one value per call even when the branch writes what it reads", "[cond][effects]") {
  sf::variable<int> state{0};
  auto toggle = sf::function([&](auto x) {
    return sf::cond(
        state == 0,
        [&] {
          state.assign(1);
          return x + 100;
        },
        [&] {
          state.assign(0);
          return x - 100;
        });
  });
  CHECK(toggle(1) == 101);
  CHECK(state.value() == 1);
  CHECK(toggle(1) == -99);
  CHECK(state.value() == 0);
  CHECK(toggle(2) == 102);
  CHECK(state.value() == 1);
}

TEST_CASE("sf::switch_case runs the effects of its branch; an index out of range runs the last", "[cond][effects]") {
  sf::variable<int> total{0};
  std::ostringstream printed;
  auto s = sf::function([&](auto i) {
    return sf::switch_case(
        i,
        [&] {
          sf::print(sf::output_stream(printed), "zero");
          return i * 10;
        },
        [&] {
          total.assign_add(i);
          return i * 20;
        },
        [&] {
          sf::print(sf::output_stream(printed), "other", i);
          total.assign_sub(1);
          return i;
        });
  });
  CHECK(s(0) == 0);
  CHECK(s(1) == 20);
  CHECK(s(7) == 7);
  CHECK(s(-3) == -3);
  CHECK(printed.str() == "zero\nother 7\nother -3\n");
  CHECK(total.value() == -1);
}

TEST_CASE("a throw after a branch's effects puts the variables back", "[cond][effects]") {
  sf::variable<int> n{0};
  auto bad = sf::function([&](auto a, auto b) {
    auto r = sf::cond(
        sf::reduce_sum(a) > 0,
        [&] {
          n.assign_add(1);
          return a * 1;
        },
        [&] { return a * 0; });
    return r + b;  // a and b of different lengths: a shape_error after the effects ran
  });
  CHECK_THROWS_AS(bad(xt::xtensor<int, 1>{1, 2}, xt::xtensor<int, 1>{1, 2, 3}), sf::shape_error);
  CHECK(n.value() == 0);
  CHECK((bad(xt::xtensor<int, 1>{1, 2}, xt::xtensor<int, 1>{1, 1}) == xt::xtensor<int, 1>{2, 3}));
  CHECK(n.value() == 1);
  // size 0: the sum is 0, the false branch runs, nothing is written
  CHECK(bad(xt::xtensor<int, 1>::from_shape({0}), xt::xtensor<int, 1>::from_shape({0})).size() == 0);
  CHECK(n.value() == 1);
}

TEST_CASE("value-returning conds inside for_range bodies and cond statements", "[cond][effects]") {
  sf::variable<int> evens{0}, sum{0};
  auto k = sf::function([&](auto n) {
    sf::for_range(n, [&](auto i) {
      auto doubled = sf::cond(
          i % 2 == 0,
          [&] {
            evens.assign_add(1);
            return i * 2;
          },
          [&] { return i * 1; });
      sum.assign_add(doubled);
    });
  });
  k(5);  // 0 1 4 3 8
  CHECK(evens.value() == 3);
  CHECK(sum.value() == 16);

  sf::variable<std::int64_t> log{0};
  auto nested = sf::function([&](auto x) {
    sf::cond(x > 0, [&] {
      auto y = sf::cond(x > 10, [&] { log.assign_add(std::int64_t{100}); return x * 1; }, [&] { return x * 2; });
      log.assign_add(y);
    }, [] {});
  });
  nested(std::int64_t{3});
  CHECK(log.value() == 6);
  nested(std::int64_t{20});
  CHECK(log.value() == 126);
  nested(std::int64_t{-5});
  CHECK(log.value() == 126);
}

TEST_CASE("a value-returning cond with effects in a loop body reads the loop's variables", "[cond][effects]") {
  sf::variable<int> v{1};
  auto in_loop = sf::function([&](auto x) {
    return sf::while_loop([](auto k) { return k < 5; },
                          [&](auto k) {
                            return sf::cond(k > 0, [&] { v.assign_add(k); return k + 1; }, [&] { return k + 2; });
                          },
                          x);
  });
  CHECK(in_loop(0) == 5);  // k: 0 -> 2 -> 3 -> 4 -> 5
  CHECK(v.value() == 1 + 2 + 3 + 4);
}

TEST_CASE("in eager mode the picked branch's effects act as it runs", "[cond][effects][eager]") {
  sf::variable<int> hits{0};
  std::ostringstream printed;
  auto f = sf::function([&](auto x) {
    sf::print(sf::output_stream(printed), "before");
    auto y = sf::cond(
        x > 0,
        [&] {
          hits.assign_add(1);
          sf::print(sf::output_stream(printed), "positive", hits);
          return x * 2;
        },
        [&] {
          sf::print(sf::output_stream(printed), "not positive");
          return -x;
        });
    sf::print(sf::output_stream(printed), "after", y);
    return y;
  });
  const sf::run_functions_eagerly_scope eagerly(true);
  CHECK(f(3) == 6);
  CHECK(f(-1) == 1);
  CHECK(hits.value() == 1);
  CHECK(printed.str() == "before\npositive 1\nafter 6\nbefore\nnot positive\nafter 1\n");
  CHECK(f.tracing_count() == 0);
}

TEST_CASE("an assignment or a print may hold a cond's value, whose branches read other arguments", "[cond][effects]") {
  sf::variable<float> v{0.f};
  std::ostringstream printed;
  auto f = sf::function([&](auto x, auto y) {
    // y is read only inside the branches: the effect's own signature must still carry it
    v.assign(sf::cond(x > 0, [&] { return y * 2.f; }, [&] { return y - 1.f; }));
    sf::print(sf::output_stream(printed), "picked", sf::switch_case(x, [&] { return y; }, [&] { return -y; }));
  });
  f(1, 2.5f);
  CHECK(v.value() == 5.f);
  f(0, 2.5f);
  CHECK(v.value() == 1.5f);
  CHECK(printed.str() == "picked -2.5\npicked 2.5\n");
}
