// The backend-parameterized suite's loops (one of its translation units, each kept under the 2 GB
// compile budget; cond_suite.cpp holds the branches): while_loop with a data-dependent trip count,
// maximum_iterations, a reduction in the condition and a variable that grows; fori_loop, scan and
// map_fn; tensor arrays written in a loop or outside one, stacked, and their errors. Same rules as
// backend_suite.cpp: every case computes on `suite::backend` and checks values that do not depend
// on the backend.
#include <catch2/catch.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "suite_backend.hpp"

// Control flow: a loop's condition and tensor-array indices are computed where the backend
// computes (on the device for Thrust) and read back by the host, which decides whether to iterate
// again.
TEST_CASE("suite: while_loop with a data-dependent trip count (Collatz)", "[suite][control]") {
  INFO("backend " << suite::name());
  auto collatz = sf::function([](auto n) {
    auto [steps, m] = sf::while_loop([](auto, auto m) { return m != 1; },
                                     [](auto s, auto m) { return std::tuple{s + 1, sf::where(m % 2 == 0, m / 2, 3 * m + 1)}; },
                                     0, n);
    return std::tuple{steps, m};
  }, suite::backend);
  const auto reference = [](std::int32_t n) {
    std::int32_t steps = 0;
    while (n != 1) n = n % 2 == 0 ? n / 2 : 3 * n + 1, ++steps;
    return steps;
  };
  for (std::int32_t n : {1, 2, 3, 6, 7, 27, 97, 871}) {
    const auto [steps, m] = suite::host(collatz(suite::in(n)));
    CHECK(steps() == reference(n));
    CHECK(m() == 1);
  }
  const auto [steps27, m27] = suite::host(collatz(suite::in(std::int32_t{27})));
  CHECK(steps27() == 111);
  CHECK(collatz.tracing_count() == 1);

  // maximum_iterations stops a loop whose condition still holds
  auto capped = sf::function([](auto start) {
    return sf::while_loop([](auto i) { return i < 1000; }, [](auto i) { return i + 1; }, start, sf::maximum_iterations(5));
  }, suite::backend);
  CHECK(suite::host(capped(suite::in(std::int32_t{10})))() == 15);
  CHECK(suite::host(capped(suite::in(std::int32_t{998})))() == 1000);
}

TEST_CASE("suite: while_loop over vectors (a reduction in the condition, a growing variable)", "[suite][control]") {
  INFO("backend " << suite::name());
  auto f = sf::function([](auto x) {
    return sf::while_loop([](auto v) { return sf::reduce_sum(v) < 100.f; }, [](auto v) { return v * 2.f; }, x);
  }, suite::backend);
  const xt::xtensor<float, 1> x = {1, 2, 3}, big = {200, 1};
  CHECK(suite::flat(suite::host(f(suite::in(x)))) == std::vector<float>{32, 64, 96});
  CHECK(suite::flat(suite::host(f(suite::in(big)))) == std::vector<float>{200, 1});  // zero iterations

  // a variable of run-time shape that changes its extents every iteration
  auto grow = sf::function([](auto x) {
    return sf::while_loop([](auto v) { return sf::size(v) < 8; }, [](auto v) { return sf::concat<0>(v, v * 2); }, x);
  }, suite::backend);
  const xt::xtensor<std::int32_t, 1> one = {1}, three = {1, 2, 3};
  CHECK(suite::flat(suite::host(grow(suite::in(one)))) == std::vector<std::int32_t>{1, 2, 2, 4, 2, 4, 4, 8});
  CHECK(suite::flat(suite::host(grow(suite::in(three)))) ==
        std::vector<std::int32_t>{1, 2, 3, 2, 4, 6, 2, 4, 6, 4, 8, 12});
}

TEST_CASE("suite: fori_loop, scan and map_fn (while loops underneath)", "[suite][control]") {
  INFO("backend " << suite::name());
  auto fib = sf::function([](auto v, auto n) {
    auto [a, b] = sf::fori_loop(0, n, [](auto, auto a, auto b) { return std::tuple{a + b, a}; }, v, v * 0);
    return std::tuple{a, b};
  }, suite::backend);
  const xt::xtensor<std::int64_t, 1> v = {1, 2};
  const auto [a, b] = suite::host(fib(suite::in(v), suite::in(10)));
  CHECK(suite::flat(a) == std::vector<std::int64_t>{89, 178});
  CHECK(suite::flat(b) == std::vector<std::int64_t>{55, 110});

  auto squares = sf::function([](auto lo, auto hi) {
    return sf::fori_loop(lo, hi, [](auto i, auto acc) { return acc + i * i; }, 0);
  }, suite::backend);
  CHECK(suite::host(squares(suite::in(1), suite::in(5)))() == 30);
  CHECK(suite::host(squares(suite::in(5), suite::in(1)))() == 0);

  auto row_scan = sf::function([](auto m) {
    return sf::scan([](auto c, auto row) { return std::tuple{c + row, sf::reduce_sum(c)}; }, m[0] * 0.f, m);
  }, suite::backend);
  const xt::xtensor<float, 2> rows = {{1, 2}, {3, 4}, {5, 6}};
  const auto [c, sums] = suite::host(row_scan(suite::in(rows)));
  CHECK(suite::flat(c) == std::vector<float>{9, 12});
  CHECK(suite::flat(sums) == std::vector<float>{0, 3, 10});
  auto running_rows = sf::function([](auto m) {  // per-step results of run-time shape
    return sf::scan([](auto c, auto row) { return std::tuple{c + row, c + row}; }, m[0] * 0.f, m);
  }, suite::backend);
  const auto [last, partial] = suite::host(running_rows(suite::in(rows)));
  CHECK(suite::flat(last) == std::vector<float>{9, 12});
  CHECK(suite::flat(partial) == std::vector<float>{1, 2, 4, 6, 9, 12});
  CHECK(partial.shape()[0] == 3);

  auto norms = sf::function([](auto m) { return sf::map_fn([](auto row) { return sf::reduce_sum(row * row); }, m); },
                            suite::backend);
  const xt::xtensor<float, 2> m = {{3, 4}, {1, 0}, {0, 2}};
  CHECK(suite::flat(suite::host(norms(suite::in(m)))) == std::vector<float>{25, 1, 4});
}

TEST_CASE("suite: tensor arrays written in a loop and stacked; writes outside loops; errors", "[suite][control]") {
  INFO("backend " << suite::name());
  auto plus_one = sf::function([](auto x) {
    auto ta = sf::fori_loop(0, sf::size(x), [&](auto i, auto ta) { return ta.write(i, x[i] + 1); }, sf::tensor_array<int>{});
    return ta.stack();
  }, suite::backend);
  const xt::xtensor<int, 1> x = {1, 2, 3};
  CHECK(suite::flat(suite::host(plus_one(suite::in(x)))) == std::vector<int>{2, 3, 4});

  auto fill = sf::function([](auto n, auto size) {
    auto ta = sf::fori_loop(0, n, [](auto i, auto ta) { return ta.write(i, sf::cast<float>(i) * 0.5f); },
                            sf::tensor_array<float>::with_size(size));
    return std::tuple{ta.stack(), ta.size(), ta.read(1)};
  }, suite::backend);
  const auto [stacked, size, second] = suite::host(fill(suite::in(3), suite::in(4)));
  CHECK(suite::flat(stacked) == std::vector<float>{0.f, 0.5f, 1.f, 0.f});  // unwritten elements are zeros
  CHECK(size() == 4);
  CHECK(second() == 0.5f);
  CHECK_THROWS_WITH(fill(suite::in(5), suite::in(4)),
                    "staticflow: tensor_array::write: index 4 is out of range for a tensor array of size 4 "
                    "(its size is fixed; make it with dynamic_size to let it grow)");

  // an array of vectors written out of order, outside a loop: it grows to the largest index
  auto rows = sf::function([](auto x) {
    auto ta = sf::tensor_array<float, sf::shape<sf::dyn>>{}.write(2, x).write(0, x * 2.f);
    return ta.stack();
  }, suite::backend);
  const xt::xtensor<float, 1> r = {1, 2};
  const auto stacked_rows = suite::host(rows(suite::in(r)));
  CHECK(suite::shape(stacked_rows) == std::vector<std::size_t>{3, 2});
  CHECK(suite::flat(stacked_rows) == std::vector<float>{2, 4, 0, 0, 1, 2});
  auto negative = sf::function([](auto i) { return sf::tensor_array<int>{}.write(i, 1).stack(); }, suite::backend);
  CHECK_THROWS_WITH(negative(suite::in(-1)), "staticflow: tensor_array::write: index -1 is negative");
}
