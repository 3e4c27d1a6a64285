// Gradients of the convolutions with their options (graph/conv_options.hpp) against central
// differences in float64, part 1: conv2d with dilations, explicit padding and groups on random
// run-time shapes; a Hessian-vector product through a dilated grouped convolution (the gradient
// nodes' own adjoints). Part 2, the other convolutions and layouts: test_conv_options_variants.cpp.
#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("conv2d gradients with dilations, explicit padding and groups, random run-time shapes", "[autodiff][conv]") {
  for (int round = 0; round < 2; ++round) {
    const std::size_t groups = extent(1, 3), cg = extent(1, 2), og = extent(1, 2);
    const auto x = random_tensor<4>({extent(1, 2), extent(5, 7), extent(5, 7), groups * cg});
    const auto f = random_tensor<4>({2, extent(1, 3), cg, groups * og});
    INFO("x " << x.shape(1) << "x" << x.shape(2) << "x" << x.shape(3) << ", f " << f.shape(1) << "x" << cg << "x" << groups * og);
    const auto dilated = [](auto a, auto b) { return sf::tanh(sf::conv2d(a, b, sf::dilations<2>, sf::padding::same)); };
    CHECK(check_gradients(dilated, x, f) == x.size() + f.size());
    const auto padded = [](auto a, auto b) {
      return sf::square(sf::conv2d(a, b, sf::padding::explicit_<1, 0, 2, 1>, sf::strides<2, 1>, sf::dilations<1, 2>));
    };
    CHECK(check_gradients(padded, x, f) == x.size() + f.size());
  }
}

TEST_CASE("second derivatives through a dilated grouped conv2d", "[autodiff][conv]") {
  const auto x = random_tensor<4>({1, 5, 5, 4});
  const auto v = random_tensor<4>({1, 5, 5, 4});
  const auto f = random_tensor<4>({2, 2, 2, 4});
  CHECK(hvp_error([](auto a, auto b) { return sf::reduce_sum(sf::square(sf::conv2d(a * a, b, sf::dilations<2>, sf::padding::same))); }, x,
                  v, f) < 1e-6);
  CHECK(hvp_error([](auto b, auto a) { return sf::reduce_sum(sf::tanh(sf::conv2d(a, b * b, sf::dilations<2>))); }, f,
                  random_tensor<4>({2, 2, 2, 4}), x) < 1e-6);
}
