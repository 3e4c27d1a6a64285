// reduce_logsumexp at the edges, TensorFlow's values: -inf for a slice of -inf only (was NaN), +inf
// for a slice holding +inf; the gradient of an all -inf slice is 0, not NaN (jax#6811).
#include <cmath>
#include <limits>

#include "gradient_check.hpp"

namespace sf = staticflow;

TEST_CASE("reduce_logsumexp: a slice of -inf only is -inf with a zero gradient (not NaN, jax#6811)") {
  const double inf = std::numeric_limits<double>::infinity();
  xt::xtensor_fixed<double, xt::xshape<3, 3>> x = {{-inf, -inf, -inf}, {1., 2., -inf}, {inf, 0., 1.}};
  auto vg = sf::value_and_grad([](auto v) { return sf::reduce_logsumexp(v, sf::axes<1>{}) * sf::constant(
                                                       xt::xtensor_fixed<double, xt::xshape<3>>{1., 1., 0.}); });
  const auto [value, d] = vg(x);
  (void)value;
  auto f = sf::function([](auto v) { return sf::reduce_logsumexp(v, sf::axes<1>{}); });
  const auto lse = f(x);
  CHECK(lse(0) == -inf);                                            // TensorFlow's value
  CHECK(lse(1) == Approx(std::log(std::exp(1.) + std::exp(2.))).epsilon(1e-15));
  CHECK(lse(2) == inf);
  for (std::size_t j = 0; j < 3; ++j) CHECK(d(0, j) == 0.);         // finite: nothing to move
  CHECK(d(1, 0) == Approx(std::exp(1.) / (std::exp(1.) + std::exp(2.))).epsilon(1e-15));
  CHECK(d(1, 2) == 0.);
  // over all axes: the whole tensor -inf
  auto all = sf::value_and_grad([](auto v) { return sf::reduce_logsumexp(v); });
  const xt::xtensor_fixed<double, xt::xshape<2>> none = {-inf, -inf};
  const auto [empty, de] = all(none);
  CHECK(empty == -inf);
  CHECK(de(0) == 0.);
  CHECK(de(1) == 0.);
}
