// The backend-parameterized suite's branches (one of its translation units, each kept under the
// 2 GB compile budget; loops_suite.cpp holds the loops): cond with tensor and C++ scalar
// predicates, tuple results used twice and nested conds, and switch_case with a run-time and a
// computed selector. Same rules as backend_suite.cpp: every case computes on `suite::backend` and
// checks values that do not depend on the backend.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "suite_backend.hpp"

// Control flow: the selector is computed where the backend computes (on the device for Thrust) and
// read back by the host, which picks the branch.
TEST_CASE("suite: cond runs the branch its predicate picks (a reduction, a C++ scalar)", "[suite][control]") {
  INFO("backend " << suite::name());
  auto f = sf::function(
      [](auto x) { return sf::cond(sf::reduce_sum(x) > 0, [&] { return x * x; }, [&] { return sf::floordiv(-x, 2); }); },
      suite::backend);
  const xt::xtensor<std::int32_t, 1> pos = {1, -2, 3}, neg = {-1, -2, 3, -5};
  CHECK(suite::flat(suite::host(f(suite::in(pos)))) == std::vector<std::int32_t>{1, 4, 9});
  CHECK(suite::flat(suite::host(f(suite::in(neg)))) == std::vector<std::int32_t>{0, 1, -2, 2});
  CHECK(f.tracing_count() == 1);

  // a branch with a materialized node of its own, and a predicate that is a C++ scalar argument
  auto g = sf::function([](auto x, auto flag) {
    return sf::cond(flag, [&] { return x / sf::reduce_max(x); }, [&] { return x - 1.f; });
  }, suite::backend);
  const xt::xtensor<float, 1> x = {1, 2, 4};
  CHECK(suite::flat(suite::host(g(suite::in(x), suite::in(true)))) == std::vector<float>{0.25f, 0.5f, 1.f});
  CHECK(suite::flat(suite::host(g(suite::in(x), suite::in(false)))) == std::vector<float>{0.f, 1.f, 3.f});
}

TEST_CASE("suite: cond with tuple results, used twice, computed once", "[suite][control]") {
  INFO("backend " << suite::name());
  auto f = sf::function([](auto x, auto y) {
    auto [a, b] = sf::cond(sf::reduce_sum(x) > sf::reduce_sum(y), [&] { return std::tuple{x, y}; },
                           [&] { return std::tuple{y, x}; });
    return std::tuple{a, b - 1, a * 2 + b};
  }, suite::backend);
  const xt::xtensor<std::int32_t, 1> x = {5, 6}, y = {1, 2};
  {
    const auto [hi, lo, mix] = suite::host(f(suite::in(x), suite::in(y)));
    CHECK(suite::flat(hi) == std::vector<std::int32_t>{5, 6});
    CHECK(suite::flat(lo) == std::vector<std::int32_t>{0, 1});
    CHECK(suite::flat(mix) == std::vector<std::int32_t>{11, 14});
  }
  const auto before = sf::plan::materialization_counter();
  const auto [hi, lo, mix] = suite::host(f(suite::in(y), suite::in(x)));
  CHECK(sf::plan::materialization_counter() - before == 3);  // two reduce_sums and one cond
  CHECK(suite::flat(hi) == std::vector<std::int32_t>{5, 6});
  CHECK(suite::flat(lo) == std::vector<std::int32_t>{0, 1});
  CHECK(suite::flat(mix) == std::vector<std::int32_t>{11, 14});

  // nested conds on a scalar
  auto sign = sf::function([](auto v) {
    return sf::cond(sf::reduce_sum(v) > 0, [&] { return v * 0 + 1; },
                    [&] { return sf::cond(sf::reduce_sum(v) < 0, [&] { return v * 0 - 1; }, [&] { return v * 0; }); });
  }, suite::backend);
  const xt::xtensor<std::int32_t, 1> p = {3}, m = {-4}, z = {0};
  CHECK(suite::flat(suite::host(sign(suite::in(p)))) == std::vector<std::int32_t>{1});
  CHECK(suite::flat(suite::host(sign(suite::in(m)))) == std::vector<std::int32_t>{-1});
  CHECK(suite::flat(suite::host(sign(suite::in(z)))) == std::vector<std::int32_t>{0});
}

TEST_CASE("suite: switch_case runs the indexed branch, the last one when out of range", "[suite][control]") {
  INFO("backend " << suite::name());
  auto f = sf::function([](auto i, auto x) {
    return sf::switch_case(i, [&] { return x + 1; }, [&] { return x * 10; }, [&] { return -x; });
  }, suite::backend);
  const xt::xtensor<std::int32_t, 1> x = {5, -3};
  CHECK(suite::flat(suite::host(f(suite::in(0), suite::in(x)))) == std::vector<std::int32_t>{6, -2});
  CHECK(suite::flat(suite::host(f(suite::in(1), suite::in(x)))) == std::vector<std::int32_t>{50, -30});
  CHECK(suite::flat(suite::host(f(suite::in(2), suite::in(x)))) == std::vector<std::int32_t>{-5, 3});
  CHECK(suite::flat(suite::host(f(suite::in(7), suite::in(x)))) == std::vector<std::int32_t>{-5, 3});
  CHECK(suite::flat(suite::host(f(suite::in(-1), suite::in(x)))) == std::vector<std::int32_t>{-5, 3});
  // a selector computed from a tensor (an argmax on the device)
  auto g = sf::function([](auto v, auto x) {
    return sf::switch_case(sf::argmax(v), [&] { return x + 1; }, [&] { return x * 10; }, [&] { return -x; });
  }, suite::backend);
  const xt::xtensor<float, 1> v = {0.f, 3.f, 1.f};
  CHECK(suite::flat(suite::host(g(suite::in(v), suite::in(x)))) == std::vector<std::int32_t>{50, -30});
}
