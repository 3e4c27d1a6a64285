// The reverse walk (autodiff/backprop.hpp) over graphs that read values several times: reverse
// accumulation at shared nodes reached along several paths (an unrolled loop whose body reads its
// variable three times, with a cond on the way, and its second derivative), the type-level
// machinery (which nodes are accumulation points, in which order), and materialized values read
// several times by hand, at different shapes; against central differences in float64, closed
// forms, and the same loop with run-time bounds.
#include <cmath>
#include <cstdint>
#include <tuple>

#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

namespace {
/// d/dx of sum(f^steps(x)), f(v) = v * v + v, elementwise by the chain rule.
double unrolled_derivative(double x, int steps) {
  double d = 1;
  for (int i = 0; i < steps; ++i) {
    d *= 2 * x + 1;
    x = x * x + x;
  }
  return d;
}
}  // namespace

TEST_CASE("backprop: a loop unrolled 6 steps, each step read three times, matches the chain rule and central differences") {
  const auto fn = [](auto x) {
    return sf::fori_loop(sf::static_value<0>{}, sf::static_value<6>{}, [](auto, auto v) { return v * v + v; }, x);
  };
  auto g = sf::grad<0>([&](auto x) { return sf::reduce_sum(fn(x)); });
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, extent(2, 9)}) {
    INFO("extent " << n);
    const auto x = random_tensor<1>({n}, -0.6, 0.2);  // |f^k(x)| stays below 1 there
    const xt::xtensor<double, 1> dx = g(x);
    REQUIRE(dx.size() == n);
    for (std::size_t i = 0; i < n; ++i) CHECK(dx(i) == Approx(unrolled_derivative(x(i), 6)).epsilon(1e-12));
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

TEST_CASE("backprop: a matmul read three times by hand, and a reduction read at two shapes") {
  // m is materialized, its type determines its values, and it is read along three paths: one
  // accumulation point
  const auto product = [](auto a, auto b) {
    const auto m = sf::matmul(a, b);
    return m * m + sf::sin(m) * 0.5;
  };
  const std::size_t rows = extent(1, 4), inner = extent(1, 4), cols = extent(1, 4);
  CHECK(check_gradients(product, random_tensor<2>({rows, inner}, -1, 1), random_tensor<2>({inner, cols}, -1, 1)) ==
        rows * inner + inner * cols);

  // s (shape [n]) reaches the target broadcast against x [r, n] and elementwise: contributions of
  // shapes [r, n] and [n] summed into one adjoint
  const auto mixed = [](auto x) {
    const auto s = sf::reduce_sum(x * x, sf::axes<0>{});
    return sf::reduce_sum(x * s) + sf::reduce_sum(s * s) + sf::reduce_max(s);
  };
  const auto x = random_tensor<2>({extent(1, 4), extent(1, 5)}, -1, 1);
  CHECK(check_gradients(mixed, x) == x.size());
}

TEST_CASE("backprop: an unrolled loop whose step also goes through a cond") {
  // v is read by the elementwise ops and inside both branches: the walks toward a step stop at the
  // cond, whose own walk carries what goes through it
  const auto fn = [](auto x, auto w) {
    return sf::fori_loop(sf::static_value<0>{}, sf::static_value<3>{}, [&](auto, auto v) {
      const auto branch = sf::cond(sf::reduce_sum(v) > 0., [&] { return v * w; }, [&] { return v - w; });
      return v * branch + v * 0.5;
    }, x);
  };
  const std::size_t n = extent(1, 5);
  const auto w = random_tensor<1>({n}, -1, 1);
  CHECK(check_gradients(fn, random_tensor<1>({n}, 0.1, 0.8), w) == 2 * n);
  CHECK(check_gradients(fn, random_tensor<1>({n}, -0.8, -0.1), w) == 2 * n);
}

TEST_CASE("backprop: a second derivative through an unrolled loop") {
  const auto fn = [](auto x) {
    return sf::fori_loop(sf::static_value<0>{}, sf::static_value<3>{}, [](auto, auto v) { return v * v + v; }, x) * 1.;
  };
  const std::size_t n = extent(1, 6);
  const auto x = random_tensor<1>({n}, -0.6, 0.2);
  const auto v = random_tensor<1>({n}, -1, 1);
  // elementwise: H is diagonal, (H v)_i = f''(x_i) v_i
  auto hvp = sf::hessian_vector_product<0>([](auto a) { return sf::reduce_sum(sf::fori_loop(
      sf::static_value<0>{}, sf::static_value<3>{}, [](auto, auto u) { return u * u + u; }, a)); });
  const xt::xtensor<double, 1> hv = hvp(x, v);
  REQUIRE(hv.size() == n);
  for (std::size_t i = 0; i < n; ++i) {
    const double h = 1e-5;
    const double second = (unrolled_derivative(x(i) + h, 3) - unrolled_derivative(x(i) - h, 3)) / (2 * h);
    CHECK(hv(i) == Approx(second * v(i)).epsilon(1e-6).margin(1e-8));
  }
  CHECK(hvp_error(fn, x, v) < 1e-6);
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
static_assert(ad::paths_to_v<inner, twice> == 2 && ad::paths_to_v<inner, once> == 2 && ad::paths_to_v<outer, once> == 1);
static_assert(ad::paths_to_v<inner, thrice> == 2);  // (counted up to 2: 6 paths)
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
