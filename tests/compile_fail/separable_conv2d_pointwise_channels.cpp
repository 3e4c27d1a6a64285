// expect: static assertion failed: staticflow: separable_conv2d: the pointwise filter's in_channels \(dim 2\) differ from the depthwise result's channels
// 3 channels times a multiplier of 2 make 6, which the pointwise filter must take whole (no groups).
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto image, auto depthwise, auto pointwise) {
    return sf::separable_conv2d(image, depthwise, pointwise, sf::padding::same);  // fix: a [1, 1, 6, 8] pointwise filter
  });
  xt::xtensor_fixed<float, xt::xshape<1, 8, 8, 3>> image{};
  xt::xtensor_fixed<float, xt::xshape<3, 3, 3, 2>> depthwise{};
  xt::xtensor_fixed<float, xt::xshape<1, 1, 3, 8>> pointwise{};
  auto y = f(image, depthwise, pointwise);
  return static_cast<int>(y(0, 0, 0, 0));
}
