// Gradients of the math functions (graph/math.hpp) against central differences in float64, on
// random inputs and extents (size 1, SIMD tails, static and run-time shapes), each inside its
// domain. The activations' are in test_activations.cpp.
#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("math functions: gradients match central differences", "[autodiff][math]") {
  const auto wide = [](auto x) {
    return sf::sin(x) + sf::cos(x) * 0.5 + sf::tan(x * 0.4) + sf::atan(x) + sf::sinh(x) * 0.25 + sf::cosh(x * 0.5) +
           sf::asinh(x) + sf::erf(x) + sf::erfc(x * 0.7) + sf::softplus(x) + sf::expm1(x * 0.5) + sf::exp2(x * 0.3);
  };
  const auto unit = [](auto x) { return sf::asin(x) + sf::acos(x * 0.5) + sf::atanh(x) + sf::log1p(x); };
  const auto above_one = [](auto x) { return sf::acosh(x) + sf::log2(x) + sf::rsqrt(x) + sf::reciprocal(x); };
  for (std::size_t n : {std::size_t{1}, std::size_t{4}, extent(5, 23)}) {
    INFO("extent " << n);
    CHECK(check_gradients(wide, random_tensor<1>({n})) == n);
    CHECK(check_gradients(unit, random_tensor<1>({n}, -0.9, 0.9)) == n);
    CHECK(check_gradients(above_one, random_tensor<1>({n}, 1.1, 6.0)) == n);
  }
  xt::xtensor_fixed<double, xt::xshape<2, 3>> fixed;
  fill(fixed);
  CHECK(check_gradients(wide, fixed) == 6);
}

TEST_CASE("atan2: gradients of both operands in every quadrant, with broadcasting", "[autodiff][math]") {
  const auto angle = [](auto y, auto x) { return sf::atan2(y, x) * 1.5; };
  CHECK(check_gradients(angle, random_tensor<2>({3, extent(1, 9)}), random_tensor<1>({1})) > 0);
  CHECK(check_gradients(angle, random_tensor<1>({7}), random_tensor<1>({7})) == 14);
}

TEST_CASE("rounding and sign have zero gradient; the rest of the expression still flows", "[autodiff][math]") {
  auto g = sf::grad<0>([](auto x) { return sf::reduce_sum(sf::floor(x) + sf::ceil(x) + sf::round(x) + sf::sign(x) + x); });
  const xt::xtensor<double, 1> x{0.3, -1.7, 2.5};
  CHECK((g(x) == xt::xtensor<double, 1>{1, 1, 1}));
}
