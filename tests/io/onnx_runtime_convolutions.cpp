// The onnx_runtime test's models: conv2d, its options, conv3d and conv2d_transpose (see
// onnx_runtime.cpp).
#include "onnx_runtime_common.hpp"

namespace onnx_runtime_test {
void export_convolutions() {
  // conv2d (graph/conv.hpp): NHWC x HWIO around ONNX's NCHW Conv, VALID and SAME (auto_pad
  // SAME_UPPER), strides; run-time image extents
  auto conv = sf::function<sf::spec<float, sf::dyn, sf::dyn, sf::dyn, 3>, sf::spec<float, 3, 2, 3, 4>>([](auto x, auto f) {
    return std::tuple{sf::conv2d(x, f), sf::relu(sf::conv2d(x, f, sf::padding::same, sf::strides<2>)),
                      sf::conv2d(x, f, sf::padding::same, sf::strides<3, 2>)};
  });
  auto run_conv = exported("conv", conv);
  run_conv("image2x9x8", xt::xarray<float>(xt::random::randn<float>({2, 9, 8, 3})),
           xt::xarray<float>(xt::random::randn<float>({3, 2, 3, 4})));

  // the convolutions' options (graph/conv_options.hpp): dilations, explicit pads, groups (a filter
  // of 2 in_channels on 4 channels), depthwise_conv2d as Conv with group = channels
  auto conv_options = sf::function<sf::spec<float, sf::dyn, sf::dyn, sf::dyn, 4>, sf::spec<float, 3, 2, 2, 6>,
                                   sf::spec<float, 2, 2, 4, 2>>([](auto x, auto f, auto d) {
    return std::tuple{sf::conv2d(x, f, sf::dilations<2>, sf::padding::same),
                      sf::conv2d(x, f, sf::padding::explicit_<1, 0, 2, 1>, sf::strides<2>, sf::dilations<1, 2>),
                      sf::depthwise_conv2d(x, d, sf::dilations<2, 1>),
                      sf::depthwise_conv2d(x, d, sf::padding::same, sf::strides<2>)};
  });
  auto run_conv_options = exported("conv_options", conv_options);
  run_conv_options("image2x9x8", xt::xarray<float>(xt::random::randn<float>({2, 9, 8, 4})),
                   xt::xarray<float>(xt::random::randn<float>({3, 2, 2, 6})), xt::xarray<float>(xt::random::randn<float>({2, 2, 4, 2})));

  // conv3d as a Conv of three spatial axes: SAME strided, explicit padding with dilations, groups
  // (2 in_channels on 4 channels); conv2d over two batch axes (a Reshape to one and back)
  auto conv3d = sf::function<sf::spec<float, sf::dyn, sf::dyn, sf::dyn, sf::dyn, 4>, sf::spec<float, 2, 3, 2, 2, 6>,
                             sf::spec<float, 2, 3, 5, 6, 4>, sf::spec<float, 3, 3, 4, 5>>([](auto x, auto f, auto b, auto k) {
    return std::tuple{sf::conv3d(x, f, sf::padding::same, sf::strides<2, 1, 2>),
                      sf::conv3d(x, f, sf::padding::explicit_<1, 0, 0, 2, 1, 1>, sf::dilations<2, 1, 2>),
                      sf::conv3d(x, f, sf::padding::same, sf::dilations<1, 2, 1>), sf::conv2d(b, k, sf::padding::same)};
  });
  auto run_conv3d = exported("conv3d", conv3d);
  run_conv3d("volume2x5x7x6", xt::xarray<float>(xt::random::randn<float>({2, 5, 7, 6, 4})),
             xt::xarray<float>(xt::random::randn<float>({2, 3, 2, 2, 6})), xt::xarray<float>(xt::random::randn<float>({2, 3, 5, 6, 4})),
             xt::xarray<float>(xt::random::randn<float>({3, 3, 4, 5})));

  // conv2d_transpose (conv2d's image gradient) as ConvTranspose: SAME stride 2, VALID stride 2
  // with and without a remainder (output_padding), and explicit padding with dilations
  auto conv_transpose = sf::function<sf::spec<float, 1, 4, 4, 6>, sf::spec<float, 3, 3, 3, 6>, sf::spec<float, 1, 2, 5, 6>>(
      [](auto y, auto f, auto z) {
        return std::tuple{sf::conv2d_transpose(y, f, sf::shape<1, 8, 8, 3>{}, sf::padding::same, sf::strides<2>),
                          sf::conv2d_transpose(y, f, sf::shape<1, 9, 9, 3>{}, sf::strides<2>),
                          sf::conv2d_transpose(y, f, sf::shape<1, 10, 10, 3>{}, sf::strides<2>),
                          sf::conv2d_transpose(z, f, sf::shape<1, 5, 6, 3>{}, sf::padding::explicit_<1, 0, 2, 1>, sf::dilations<2>)};
      });
  auto run_conv_transpose = exported("conv_transpose", conv_transpose);
  run_conv_transpose("y1x4x4", xt::xarray<float>(xt::random::randn<float>({1, 4, 4, 6})),
                     xt::xarray<float>(xt::random::randn<float>({3, 3, 3, 6})), xt::xarray<float>(xt::random::randn<float>({1, 2, 5, 6})));
}
}  // namespace onnx_runtime_test
