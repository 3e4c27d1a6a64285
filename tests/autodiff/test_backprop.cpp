// The reverse walk (autodiff/backprop.hpp) over graphs that read values several times: reverse
// accumulation at shared nodes reached along several paths (an unrolled loop whose body reads its
// variable three times), the type-level machinery (which nodes are accumulation points, in which
// order), and materialized values read several times by hand, at different shapes; against central
// differences in float64, closed forms, and the same loop with run-time bounds. A matmul and a
// reduction read several times by hand: test_backprop_reuse.cpp; a cond on the way and second
// derivatives: test_backprop_nested.cpp. (Three translation units, each under 2 GB of g++.)
#include <cmath>
#include <cstdint>
#include <tuple>

#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("backprop: a loop unrolled 5 steps, each step read three times, matches the chain rule and central differences") {
  const auto fn = [](auto x) {
    return sf::fori_loop(sf::static_value<0>{}, sf::static_value<5>{}, [](auto, auto v) { return v * v + v; }, x);
  };
  auto g = sf::grad<0>([&](auto x) { return sf::reduce_sum(fn(x)); });
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, extent(2, 9)}) {
    INFO("extent " << n);
    const auto x = random_tensor<1>({n}, -0.6, 0.2);  // |f^k(x)| stays below 1 there
    const xt::xtensor<double, 1> dx = g(x);
    REQUIRE(dx.size() == n);
    for (std::size_t i = 0; i < n; ++i) CHECK(dx(i) == Approx(unrolled_square_plus_derivative(x(i), 5)).epsilon(1e-12));
    CHECK(check_gradients(fn, x) == n);
  }
}

TEST_CASE("backprop: the unrolled loop's gradient equals the run-time loop's") {
  auto unrolled = sf::grad<0>([](auto x) {
    return sf::reduce_sum(sf::fori_loop(sf::static_value<0>{}, sf::static_value<4>{}, [](auto, auto v) { return sf::sin(v) * v + v; }, x));
  });
  auto run_time = sf::grad<0>([](auto x) {
    return sf::reduce_sum(sf::fori_loop(std::int64_t{0}, std::int64_t{4}, [](auto, auto v) { return sf::sin(v) * v + v; }, x));
  });
  const auto x = random_tensor<2>({extent(1, 4), extent(1, 5)}, -1, 1);
  const xt::xtensor<double, 2> a = unrolled(x);
  const xt::xtensor<double, 2> b = run_time(x);
  REQUIRE(a.shape() == b.shape());
  for (std::size_t i = 0; i < a.size(); ++i) CHECK(a.data()[i] == Approx(b.data()[i]).epsilon(1e-12));
}

namespace {
struct tag_a {};
struct tag_b {};
using leaf = sf::graph::argument<0, double, sf::shape<3>>;
using inner = sf::graph::shared<tag_a, sf::graph::stored<sf::graph::binary<sf::op::multiply, leaf, leaf>>>;
using twice = sf::graph::binary<sf::op::add, inner, inner>;
using outer = sf::graph::shared<tag_b, sf::graph::stored<twice>>;
using once = sf::graph::binary<sf::op::multiply, outer, leaf>;
using thrice = sf::graph::binary<sf::op::add, sf::graph::binary<sf::op::multiply, outer, outer>, outer>;
namespace ad = sf::autodiff::detail;
}  // namespace

// Which shared nodes are accumulation points (float, reached along two paths or more) and their
// order (a node before the shared nodes inside it), from the types alone.
static_assert(ad::paths_to<inner, twice>::value == 2 && ad::paths_to<inner, once>::value == 2 && ad::paths_to<outer, once>::value == 1);
static_assert(ad::paths_to<inner, thrice>::value == 2);  // (counted up to 2: 6 paths)
static_assert(std::is_same_v<ad::accumulation_points<once>::type, std::tuple<inner>>);
static_assert(std::is_same_v<ad::accumulation_points<thrice>::type, std::tuple<outer, inner>>);
static_assert(std::is_same_v<ad::accumulation_points<inner>::type, std::tuple<>>);
// Whose type determines its values (the gradient builder keys those by type, the others by path).
static_assert(sf::graph::value_free_v<twice> && sf::graph::value_free_v<sf::graph::reduce<sf::op::reduce_sum, leaf, sf::axes<0>, false>>);
static_assert(!sf::graph::value_free_v<sf::graph::binary<sf::op::multiply, leaf, sf::graph::literal<double>>>);
static_assert(!sf::graph::value_free_v<sf::graph::reduce<sf::op::reduce_sum, leaf, sf::runtime_axis, false>>);
static_assert(sf::graph::value_free_v<sf::graph::binary<sf::op::multiply, leaf, sf::graph::static_literal<double, 2.0>>>);

TEST_CASE("backprop: materialized values read several times by hand") {
  // y = sum(o * o + o), o = materialize(i + i), i = materialize(x * x): dy/dx = (2o + 1) * 2 * 2x
  auto f = sf::grad<0>([](auto a) {
    const auto i = sf::materialize(a * a);
    const auto o = sf::materialize(i + i);
    return sf::reduce_sum(o * o + o);
  });
  const xt::xtensor_fixed<double, xt::xshape<3>> a = {0.5, -1.25, 2.};
  const auto g = f(a);
  for (std::size_t k = 0; k < 3; ++k) {
    const double o = 2 * a(k) * a(k);
    CHECK(g(k) == Approx((2 * o + 1) * 2 * 2 * a(k)).epsilon(1e-14));
  }
}
