// The onnx_runtime test's models: the window ops' and the poolings' gradients and max_pool's jvp
// (see onnx_runtime.cpp).
#include "onnx_runtime_common.hpp"

namespace onnx_runtime_test {
void export_window_gradients() {
  // ... and the window ops' gradients: SliceGrad (Pad), ConcatGrad (Slice) and x[i]'s (ScatterND;
  // a run-time, negative index), run-time batch extents
  auto window_gradient = sf::function<sf::spec<float, sf::dyn, 5>, sf::spec<float, sf::dyn, 2>, sf::spec<std::int32_t>>(
      sf::value_and_grad_fn<0, 1>([](auto a, auto b, auto i) {
        const auto joined = sf::concat<1>(sf::tanh(a), b * b, sf::slice(a, sf::axes<1>{}, 1, 3));
        return sf::reduce_sum(sf::square(joined) * 0.5f) + sf::reduce_sum(sf::sin(sf::slice(a, sf::axes<0>{}, 1, 2))) +
               sf::reduce_sum(sf::exp(a[i])) + sf::reduce_sum(sf::square(b[i])) * 3.f;
      }));
  auto run_window_gradient = exported("window_value_and_grad", window_gradient);
  run_window_gradient("rows4", xt::xarray<float>(xt::random::randn<float>({4, 5})), xt::xarray<float>(xt::random::randn<float>({4, 2})),
                      std::int32_t{-1});
  run_window_gradient("rows3", xt::xarray<float>(xt::random::randn<float>({3, 5})), xt::xarray<float>(xt::random::randn<float>({3, 2})),
                      std::int32_t{1});

  // ... and the poolings' gradients: MaxPoolGrad as MaxPool's Indices and a ScatterElements that
  // adds (overlapping windows share maxima; run-time extents), AvgPoolGrad as a ConvTranspose of
  // ones over the gradient divided by each window's count (SAME's padding not counted; static)
  auto pool_gradient = sf::function<sf::spec<float, sf::dyn, sf::dyn, sf::dyn, 2>, sf::spec<float, 2, 7, 6, 3>,
                                    sf::spec<float, sf::dyn, 9, 2>>(sf::value_and_grad_fn<0, 1, 2>([](auto x, auto y, auto s) {
    return sf::reduce_sum(sf::square(sf::max_pool2d(x, sf::ksize<2>, sf::strides<1>))) +
           sf::reduce_sum(sf::tanh(sf::max_pool2d(x, sf::ksize<3>, sf::strides<2>, sf::padding::same))) +
           sf::reduce_sum(sf::square(sf::avg_pool2d(y, sf::ksize<3, 2>, sf::strides<2, 1>, sf::padding::same))) +
           sf::reduce_sum(sf::tanh(sf::avg_pool2d(y, sf::ksize<2>))) +
           sf::reduce_sum(sf::square(sf::max_pool1d(s, sf::ksize<3>, sf::strides<2>, sf::padding::same))) +
           sf::reduce_sum(sf::exp(sf::avg_pool1d(s, sf::ksize<2>, sf::strides<1>, sf::padding::same)));
  }));
  auto run_pool_gradient = exported("pool_value_and_grad", pool_gradient);
  const xt::xarray<float> tied = xt::round(xt::random::randn<float>({2, 5, 6, 2}));  // ties: the first maximum
  run_pool_gradient("tied2x5x6", tied, xt::xarray<float>(xt::random::randn<float>({2, 7, 6, 3})),
                    xt::xarray<float>(xt::random::randn<float>({3, 9, 2})));
  run_pool_gradient("image1x4x7", xt::xarray<float>(xt::random::randn<float>({1, 4, 7, 2})),
                    xt::xarray<float>(xt::random::randn<float>({2, 7, 6, 3})), xt::xarray<float>(xt::round(xt::random::randn<float>({1, 9, 2}))));

  // ... and max_pool's second derivative (MaxPoolGradGrad: a Gather at MaxPool's Indices), in a jvp
  auto pool_jvp = sf::function<sf::spec<float, sf::dyn, sf::dyn, sf::dyn, 2>, sf::spec<float, sf::dyn, sf::dyn, sf::dyn, 2>>(
      sf::jvp_fn<0>([](auto x) { return sf::tanh(sf::max_pool2d(x, sf::ksize<2>, sf::strides<1>)); }));
  exported("max_pool_jvp", pool_jvp)("tied2x5x6", tied, xt::xarray<float>(xt::random::randn<float>({2, 5, 6, 2})));
}
}  // namespace onnx_runtime_test
