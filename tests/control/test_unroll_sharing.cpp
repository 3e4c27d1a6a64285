// Tests for control/fori_loop.hpp's unrolling with shared steps (issue 25): a body that reads a
// loop variable more than once gets the previous step's value as one shared node, so the graph,
// its trace and its plan grow linearly with the trip count (they grew as uses^trips), and the
// results are those of the same loop with run-time bounds.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <string>

#include <staticflow/staticflow.hpp>

#include "listing_count.hpp"

namespace sf = staticflow;

namespace {
using staticflow_test::count_of;

// x = x * x + x: three reads a step (3^16 copies of x before)
constexpr auto square_plus = [](auto, auto v) { return v * v + v; };

// what a plan with two values under one shared tag throws
const char* const two_values_under_one_tag =
    "staticflow: a graph holds two different values under one shared tag: two sf::gradients calls in one "
    "function differentiate graphs of the same type whose values differ (literals or variable reads), or one "
    "unrolled sf::fori_loop (the same body lambda) runs twice over values of the same type that differ; compute "
    "the gradients with one sf::gradients call, give the loop run-time bounds, or use separate functions";

// smooth(x): the same unrolled loop wherever it is called
constexpr auto smooth = [](auto x) { return sf::fori_loop(sf::static_value<0>{}, sf::static_value<3>{}, square_plus, x); };
}  // namespace

TEST_CASE("x = x * x + x unrolled 16 times equals the run-time loop and lists 16 steps", "[fori_loop][unroll]") {
  auto unrolled = sf::function([](auto x) { return sf::fori_loop(sf::static_value<0>{}, sf::static_value<16>{}, square_plus, x); });
  auto looped = sf::function([](auto x) { return sf::fori_loop(0, 16, square_plus, x); });
  std::mt19937 rng(25);
  std::uniform_real_distribution<double> in(-0.9, 0.0);  // x * x + x stays in [-0.25, 0]
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{33}}) {
    xt::xtensor<double, 1> x = xt::zeros<double>({n});
    for (auto& v : x) v = in(rng);
    const xt::xtensor<double, 1> a = unrolled(x);
    const xt::xtensor<double, 1> b = looped(x);
    REQUIRE(a.size() == n);
    for (std::size_t i = 0; i < n; ++i) CHECK(a[i] == Approx(b[i]).epsilon(1e-12).margin(1e-300));
  }
  // one equation per op of each step, each step's value computed once (15 slots: the steps after
  // the first read the one before from a buffer), and no loop left in the graph
  const xt::xtensor<double, 1> probe = {-0.5};
  const std::string listing = unrolled.get_concrete_function(probe).graph_string();
  CHECK(count_of(listing, " = Mul ") == 16);
  CHECK(count_of(listing, " = AddV2 ") == 16);
  CHECK(count_of(listing, " = materialize ") == 15);
  CHECK(count_of(listing, "While") == 0);
  sf::plan::materialization_counter() = 0;
  (void)unrolled(probe);
  CHECK(sf::plan::materialization_counter() == 15);
}

TEST_CASE("a body reading its variable once still fuses every step into one loop", "[fori_loop][unroll]") {
  auto f = sf::function([](auto x) {
    return sf::fori_loop(sf::static_value<0>{}, sf::static_value<8>{}, [](auto i, auto v) { return v * 0.5f + i; }, x);
  });
  const xt::xtensor<float, 1> x = {1.f, 2.f};
  const std::string listing = f.get_concrete_function(x).graph_string();
  CHECK(count_of(listing, "materialize") == 0);
  sf::plan::materialization_counter() = 0;
  const xt::xtensor<float, 1> y = f(x);
  CHECK(sf::plan::materialization_counter() == 0);
  float expect = 1.f;
  for (int i = 0; i < 8; ++i) expect = expect * 0.5f + float(i);
  CHECK(y[0] == Approx(expect));
}

TEST_CASE("several loop variables: only the ones read twice are shared", "[fori_loop][unroll]") {
  auto fib = sf::function([](auto a, auto b) {
    return sf::fori_loop(sf::static_value<0>{}, sf::static_value<8>{},
                         [](auto, auto x, auto y) { return std::tuple{y, x + y + (y * y - y * y)}; }, a, b);
  });
  auto fib_loop = sf::function([](auto a, auto b) {
    return sf::fori_loop(0, 8, [](auto, auto x, auto y) { return std::tuple{y, x + y + (y * y - y * y)}; }, a, b);
  });
  const xt::xtensor<std::int64_t, 1> a = {0, 1};
  const xt::xtensor<std::int64_t, 1> b = {1, 1};
  const auto [x1, y1] = fib(a, b);
  const auto [x2, y2] = fib_loop(a, b);
  CHECK(x1 == x2);
  CHECK(y1 == y2);
  CHECK(y1[0] == 34);  // fib(9)
}

TEST_CASE("one unrolled loop over two different values of one type is refused before any effect", "[fori_loop][unroll]") {
  sf::variable<double> untouched{5.0};
  auto twice = sf::function([&](auto x) {
    untouched.assign(untouched + 1.0);
    return smooth(x * 0.5) + smooth(x * 0.25);
  });
  const xt::xtensor<double, 1> x = {-0.5, -1.0};
  CHECK_THROWS_WITH(twice(x), two_values_under_one_tag);
  CHECK(untouched.value() == 5.0);
  // the same values twice are one value
  auto same = sf::function([](auto x) { return smooth(x * 0.5) - smooth(x * 0.5); });
  const xt::xtensor<double, 1> zero = same(x);
  CHECK(zero[0] == 0.0);
  CHECK(zero[1] == 0.0);
}

TEST_CASE("a branch holding another value under a step's tag is refused before any effect", "[fori_loop][unroll][cond]") {
  // the branch would read the step the plan computes (x * 0.5's), not its own (x * 0.25's)
  sf::variable<double> untouched{5.0};
  auto f = sf::function([&](auto x) {
    untouched.assign(untouched + 1.0);
    const auto a = smooth(x * 0.5);
    return sf::cond(sf::reduce_sum(a) < 0.0, [=] { return smooth(x * 0.25); }, [=] { return a; });
  });
  const xt::xtensor<double, 1> x = {-0.5, -1.0};
  CHECK_THROWS_WITH(f(x), two_values_under_one_tag);
  CHECK(untouched.value() == 5.0);
  // the same value in the branch is the step the plan computes
  auto g = sf::function([](auto x) {
    const auto a = smooth(x * 0.5);
    return sf::cond(sf::reduce_sum(a) < 0.0, [=] { return smooth(x * 0.5) * 2.0; }, [=] { return a; });
  });
  const xt::xtensor<double, 1> y = g(x);
  for (std::size_t i = 0; i < x.size(); ++i) {
    double v = x[i] * 0.5;
    for (int s = 0; s < 3; ++s) v = v * v + v;
    CHECK(y[i] == Approx(v * 2.0).epsilon(1e-12));
  }
}

TEST_CASE("gradient through an unrolled loop that reads its variable twice", "[fori_loop][unroll][autodiff]") {
  // y = sum(f(f(x))), f(v) = v * v + v: dy/dx = f'(f(x)) * f'(x) = (2 f(x) + 1) (2 x + 1)
  auto grad = sf::grad([](auto x) {
    return sf::reduce_sum(sf::fori_loop(sf::static_value<0>{}, sf::static_value<2>{}, square_plus, x));
  });
  const xt::xtensor<double, 1> x = {-0.75, 0.5, 2.0};
  const xt::xtensor<double, 1> g = grad(x);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double f = x[i] * x[i] + x[i];
    CHECK(g[i] == Approx((2 * f + 1) * (2 * x[i] + 1)).epsilon(1e-12));
  }
}
