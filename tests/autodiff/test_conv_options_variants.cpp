// Gradients of the convolutions with their options (graph/conv_options.hpp) against central
// differences in float64, part 2: channels-first conv2d, conv2d_transpose, conv1d and
// depthwise_conv2d with dilations and explicit padding (part 1: test_conv_options.cpp).
#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("conv2d gradients in NCHW, and conv2d_transpose's with dilations", "[autodiff][conv]") {
  const auto x = random_tensor<4>({1, 4, 6, 5});  // NCHW
  const auto f = random_tensor<4>({3, 2, 2, 6});  // 2 groups of 2 channels
  const auto nchw = [](auto a, auto b) { return sf::sin(sf::conv2d(a, b, sf::data_format::nchw, sf::strides<2>, sf::padding::same)); };
  CHECK(check_gradients(nchw, x, f) == x.size() + f.size());
  const auto y = random_tensor<4>({1, 3, 3, 2});
  const auto ft = random_tensor<4>({2, 2, 3, 2});
  const auto up = [](auto a, auto b) {
    return sf::square(sf::conv2d_transpose(a, b, sf::shape<1, 6, 5, 3>{}, sf::dilations<2>, sf::strides<2>, sf::padding::same));
  };
  CHECK(check_gradients(up, y, ft) == y.size() + ft.size());
}

TEST_CASE("conv1d and depthwise_conv2d gradients with dilations and explicit padding", "[autodiff][conv]") {
  const auto x = random_tensor<3>({2, extent(7, 9), 4});
  const auto f = random_tensor<3>({3, 2, 4});  // 2 groups
  const auto line = [](auto a, auto b) { return sf::tanh(sf::conv1d(a, b, sf::dilations<2>, sf::padding::explicit_<2, 1>)); };
  CHECK(check_gradients(line, x, f) == x.size() + f.size());
  const auto xd = random_tensor<4>({1, extent(5, 7), extent(5, 7), 3});
  const auto fd = random_tensor<4>({2, 3, 3, 2});
  const auto depthwise = [](auto a, auto b) {
    return sf::square(sf::depthwise_conv2d(a, b, sf::dilations<2, 1>, sf::padding::explicit_<0, 1, 1, 1>, sf::strides<1, 2>));
  };
  CHECK(check_gradients(depthwise, xd, fd) == xd.size() + fd.size());
}
