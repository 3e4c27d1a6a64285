// Gradients of reduce_max / reduce_min (ties split equally), materialize and stop_gradient, against
// central differences (float64, random inputs and extents).
#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("reduce_max / reduce_min: the adjoint goes to the extremum, split equally among ties") {
  const auto whole = [](auto x) { return sf::reduce_max(x) * 2.0; };
  const auto kept = [](auto x) {
    return sf::reduce_sum(sf::reduce_min(x, sf::axes<1>{}, sf::keepdims) * sf::reduce_max(x, sf::axes<0>{}, sf::keepdims));
  };
  const auto dropped = [](auto x) { return sf::reduce_sum(sf::square(sf::reduce_min(x, sf::axes<1>{}))); };
  const auto x = random_tensor<2>({extent(1, 6), extent(1, 11)});
  check_gradients(whole, x);
  check_gradients(kept, x);
  check_gradients(dropped, x);
  auto ties = sf::grad([](auto x) { return sf::reduce_max(x); });
  xt::xtensor_fixed<double, xt::xshape<4>> tied = {3.0, 1.0, 3.0, 3.0};
  const auto dx = ties(tied);
  CHECK(dx(0) == Approx(1.0 / 3));
  CHECK(dx(1) == 0.0);
  CHECK(dx(3) == Approx(1.0 / 3));
}

TEST_CASE("materialize and stop_gradient") {
  const auto f = [](auto x, auto y) {
    const auto shared = sf::materialize(sf::tanh(x * y));
    return shared * shared + sf::stop_gradient(x * 100.0) * 0.0 + x;
  };
  const std::size_t n = extent(1, 30);
  check_gradients(f, random_tensor<1>({n}), random_tensor<1>({n}));
  auto g = sf::grad<0>([](auto x) { return x * sf::stop_gradient(x); });
  xt::xtensor_fixed<double, xt::xshape<2>> x = {3.0, -2.0};
  const auto dx = g(x);
  CHECK(dx(0) == 3.0);  // d/dx (x * c) with c = x held constant
  CHECK(dx(1) == -2.0);
}
