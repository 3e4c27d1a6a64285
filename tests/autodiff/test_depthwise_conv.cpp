// Gradients of sf::depthwise_conv2d (DepthwiseConv2dNativeBackpropInput / ...Filter) against
// central differences in float64: VALID and SAME, strides 1 and 2, multipliers 1 and 2, static
// and run-time shapes; second derivatives through the bilinear rules (hessian_vector_product).
#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("depthwise_conv2d gradients: VALID and SAME, strides 1 and 2, multipliers 1 and 2") {
  xt::xtensor_fixed<double, xt::xshape<2, 5, 4, 3>> x;
  xt::xtensor_fixed<double, xt::xshape<3, 2, 3, 2>> f;
  xt::xtensor_fixed<double, xt::xshape<2, 2, 3, 1>> f1;
  fill(x), fill(f), fill(f1);
  CHECK(check_gradients([](auto a, auto b) { return sf::tanh(sf::depthwise_conv2d(a, b)); }, x, f) == 120 + 36);
  CHECK(check_gradients([](auto a, auto b) { return sf::square(sf::depthwise_conv2d(a, b, sf::padding::same, sf::strides<2>)); }, x, f1) ==
        120 + 12);
  const auto xr = random_tensor<4>({1, extent(3, 5), extent(3, 5), extent(1, 3)});
  const auto fr = random_tensor<4>({2, 3, xr.shape(3), 2});
  CHECK(check_gradients([](auto a, auto b) { return sf::sin(sf::depthwise_conv2d(a, b, sf::padding::same, sf::strides<2, 1>)); }, xr, fr) ==
        xr.size() + fr.size());
}

TEST_CASE("depthwise_conv2d second derivatives: a Hessian-vector product through both gradient nodes") {
  const auto x = random_tensor<4>({1, 4, 4, 2});
  const auto v = random_tensor<4>({1, 4, 4, 2});
  const auto f = random_tensor<4>({2, 2, 2, 2});
  CHECK(hvp_error([](auto a, auto b) { return sf::reduce_sum(sf::square(sf::depthwise_conv2d(a * a, b, sf::padding::same))); }, x, v, f) <
        1e-6);
  CHECK(hvp_error([](auto b, auto a) { return sf::reduce_sum(sf::tanh(sf::depthwise_conv2d(a, b * b))); }, f, random_tensor<4>({2, 2, 2, 2}), x) <
        1e-6);
}

TEST_CASE("separable_conv2d gradients: the depthwise and the pointwise filter and the image") {
  const auto x = random_tensor<4>({1, extent(4, 6), extent(4, 6), 3});
  const auto dw = random_tensor<4>({2, 2, 3, 2});
  const auto pw = random_tensor<4>({1, 1, 6, 2});
  const auto separable = [](auto a, auto d, auto p) {
    return sf::tanh(sf::separable_conv2d(a, d, p, sf::padding::same, sf::dilations<2>));
  };
  CHECK(check_gradients(separable, x, dw, pw) == x.size() + dw.size() + pw.size());
}
