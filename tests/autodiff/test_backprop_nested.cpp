// Reverse accumulation (autodiff/backprop.hpp) with more than elementwise ops between the
// accumulation points: an unrolled loop whose step goes through a cond (the walks toward a step
// stop at the cond, whose own walk carries what goes through it), and a second derivative through
// an unrolled loop (the reverse walk of a gradient whose graph holds the points' summed adjoints);
// against central differences in float64 and closed forms. The simpler cases: test_backprop.cpp.
#include <cmath>
#include <cstdint>
#include <tuple>

#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("backprop: an unrolled loop whose step also goes through a cond") {
  // v is read by the elementwise ops and inside both branches: the walks toward a step stop at the
  // cond, whose own walk carries what goes through it. (Two steps: each cond's walk is a fresh one
  // over the steps before it, so the cost still grows faster than the steps: this TU's front end at
  // 3 steps took 41 s and 4.2 GB, 188 s and 19.5 GB before reverse accumulation; 2 steps 16 s and
  // 1.8 GB.)
  const auto fn = [](auto x, auto w) {
    return sf::fori_loop(sf::static_value<0>{}, sf::static_value<2>{}, [&](auto, auto v) {
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
    const double second = (unrolled_square_plus_derivative(x(i) + h, 3) - unrolled_square_plus_derivative(x(i) - h, 3)) / (2 * h);
    CHECK(hv(i) == Approx(second * v(i)).epsilon(1e-6).margin(1e-8));
  }
  CHECK(hvp_error(fn, x, v) < 1e-6);
}

