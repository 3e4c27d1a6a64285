// Gradients of sf::conv2d (TF's Conv2DBackpropInput / Conv2DBackpropFilter nodes) against central
// differences in float64: VALID and SAME padding, strides 1 and 2, a 1x1 filter, static and
// run-time shapes of random extents, inside a small layer (bias, activation, reduction).
#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("conv2d gradients: VALID, stride 1, static shapes, in a layer") {
  xt::xtensor_fixed<double, xt::xshape<2, 5, 6, 3>> x;
  xt::xtensor_fixed<double, xt::xshape<3, 2, 3, 4>> f;
  xt::xtensor_fixed<double, xt::xshape<4>> bias;
  fill(x), fill(f), fill(bias);
  const auto layer = [](auto image, auto kernel, auto b) { return sf::tanh(sf::conv2d(image, kernel) + b); };
  CHECK(check_gradients(layer, x, f, bias) == 180 + 72 + 4);
}

TEST_CASE("conv2d gradients: SAME padding with strides 2 and (2, 1)") {
  xt::xtensor_fixed<double, xt::xshape<1, 7, 6, 2>> x;
  xt::xtensor_fixed<double, xt::xshape<3, 3, 2, 3>> f;
  fill(x), fill(f);
  const auto s2 = [](auto image, auto kernel) { return sf::square(sf::conv2d(image, kernel, sf::padding::same, sf::strides<2>)); };
  CHECK(check_gradients(s2, x, f) == 84 + 54);
  const auto s21 = [](auto image, auto kernel) {
    return sf::sin(sf::conv2d(image, kernel, sf::padding::same, sf::strides<2, 1>));
  };
  CHECK(check_gradients(s21, x, f) == 84 + 54);
}

TEST_CASE("conv2d gradients: a 1x1 filter and a VALID stride-2 filter on run-time shapes of random extents") {
  std::mt19937 rng(11);
  std::uniform_int_distribution<std::size_t> d(1, 4);
  for (int round = 0; round < 3; ++round) {
    const std::size_t n = d(rng), c = d(rng), o = d(rng), h = 2 + d(rng), w = 2 + d(rng);
    const auto x = random_tensor<4>({n, h, w, c});
    const auto f1 = random_tensor<4>({1, 1, c, o});
    const auto f2 = random_tensor<4>({2, 2, c, o});
    INFO("x " << n << "x" << h << "x" << w << "x" << c << ", " << o << " filters");
    const auto pointwise = [](auto image, auto kernel) { return sf::exp(sf::conv2d(image, kernel) * 0.5); };
    CHECK(check_gradients(pointwise, x, f1) == x.size() + f1.size());
    const auto strided = [](auto image, auto kernel) {
      return sf::square(sf::conv2d(image, kernel, sf::padding::valid, sf::strides<2>));
    };
    CHECK(check_gradients(strided, x, f2) == x.size() + f2.size());
  }
}
