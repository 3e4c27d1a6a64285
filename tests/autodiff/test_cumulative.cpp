// Gradients of sf::cumsum (the reverse cumsum of the adjoint) and sf::cumprod (TF's rule) against
// central differences in float64: every combination of exclusive and reverse, two axes, static
// and run-time shapes.
#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("cumsum gradients: exclusive and reverse, along both axes") {
  xt::xtensor_fixed<double, xt::xshape<4, 5>> x;
  fill(x);
  const auto sums = [](auto a) {
    return sf::sin(sf::cumsum(a)) + sf::square(sf::cumsum(a, sf::axes<1>{}, sf::exclusive)) +
           sf::cos(sf::cumsum(a, sf::axes<-1>{}, sf::reversed)) * sf::cumsum(a, sf::axes<0>{}, sf::exclusive, sf::reversed);
  };
  CHECK(check_gradients(sums, x) == 20);
  const auto y = random_tensor<2>({extent(1, 7), extent(1, 9)});
  const auto runtime_axis = [](auto a) { return sf::tanh(sf::cumsum(a, 1, sf::reversed) * 0.3); };
  CHECK(check_gradients(runtime_axis, y) == y.size());
}

TEST_CASE("cumprod gradients: exclusive and reverse, values away from 0") {
  const auto x = random_tensor<2>({extent(2, 5), extent(2, 6)}, 0.5, 1.5);
  const auto products = [](auto a) {
    return sf::cumprod(a, sf::axes<1>{}) + sf::sqrt(sf::cumprod(a, sf::axes<0>{}, sf::exclusive, sf::reversed)) +
           sf::cumprod(a, sf::axes<1>{}, sf::reversed) * sf::cumprod(a, sf::axes<1>{}, sf::exclusive);
  };
  CHECK(check_gradients(products, x) == x.size());
}
