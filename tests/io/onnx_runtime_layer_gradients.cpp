// The onnx_runtime test's models: value_and_grad of a dense layer and of the convolutions (see
// onnx_runtime.cpp).
#include "onnx_runtime_common.hpp"

namespace onnx_runtime_test {
void export_layer_gradients() {
  // A gradient function is a graph like any other: a value_and_grad exports too (the backward
  // pass's broadcasts, reductions and transposed matmuls included).
  auto gradient = sf::function<sf::spec<float, 3, 2>, sf::spec<float, 2>, sf::spec<float, sf::dyn, 3>,
                               sf::spec<float, sf::dyn, 2>>(sf::value_and_grad_fn<0, 1>([](auto w, auto b, auto x, auto y) {
    return sf::reduce_mean(sf::square(sf::tanh(sf::matmul(x, w) + b) - y));
  }));
  auto run_gradient = exported("value_and_grad", gradient);
  run_gradient("batch7", xt::xarray<float>(xt::random::randn<float>({3, 2})), xt::xarray<float>{0.5f, -0.25f},
               xt::xarray<float>(xt::random::randn<float>({7, 3})), xt::xarray<float>(xt::random::randn<float>({7, 2})));

  // ... and a convolution layer's: conv2d's image gradient (ConvTranspose) and filter gradient
  // (a Conv with image and gradient as input and weight), SAME strided and explicit dilated
  auto conv_gradient = sf::function<sf::spec<float, 2, 7, 6, 3>, sf::spec<float, 3, 2, 3, 4>>(
      sf::value_and_grad_fn<0, 1>([](auto x, auto f) {
        return sf::reduce_mean(sf::tanh(sf::conv2d(x, f, sf::padding::same, sf::strides<2>))) +
               sf::reduce_mean(sf::square(sf::conv2d(x, f, sf::padding::explicit_<1, 0, 0, 2>, sf::dilations<2, 1>)));
      }));
  auto run_conv_gradient = exported("conv_value_and_grad", conv_gradient);
  run_conv_gradient("image2x7x6", xt::xarray<float>(xt::random::randn<float>({2, 7, 6, 3})),
                    xt::xarray<float>(xt::random::randn<float>({3, 2, 3, 4})));

  // ... a grouped one's (2 groups: the turned-around Conv pairs every channel with every output,
  // a GatherElements keeps each output's group) ...
  auto grouped_gradient = sf::function<sf::spec<float, 2, 7, 6, 4>, sf::spec<float, 3, 2, 2, 6>>(
      sf::value_and_grad_fn<0, 1>([](auto x, auto f) {
        return sf::reduce_mean(sf::tanh(sf::conv2d(x, f, sf::padding::same, sf::strides<2>))) +
               sf::reduce_mean(sf::square(sf::conv2d(x, f, sf::dilations<2, 1>)));
      }));
  exported("grouped_conv_value_and_grad", grouped_gradient)("image2x7x6", xt::xarray<float>(xt::random::randn<float>({2, 7, 6, 4})),
                                                           xt::xarray<float>(xt::random::randn<float>({3, 2, 2, 6})));
  // ... and a conv3d layer's (3-D ConvTranspose and the turned-around Conv; groups), SAME strided
  // and explicit dilated
  auto conv3d_gradient = sf::function<sf::spec<float, 1, 5, 6, 5, 4>, sf::spec<float, 2, 3, 2, 2, 6>>(
      sf::value_and_grad_fn<0, 1>([](auto x, auto f) {
        return sf::reduce_mean(sf::tanh(sf::conv3d(x, f, sf::padding::same, sf::strides<2, 1, 2>))) +
               sf::reduce_mean(sf::square(sf::conv3d(x, f, sf::padding::explicit_<1, 0, 0, 2, 1, 1>, sf::dilations<1, 2, 1>)));
      }));
  exported("conv3d_value_and_grad", conv3d_gradient)("volume1x5x6x5", xt::xarray<float>(xt::random::randn<float>({1, 5, 6, 5, 4})),
                                                     xt::xarray<float>(xt::random::randn<float>({2, 3, 2, 2, 6})));
}
}  // namespace onnx_runtime_test
