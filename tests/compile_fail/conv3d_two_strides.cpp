// expect: static assertion failed: staticflow: sf::strides and sf::dilations take one value, or one per spatial axis: <rows, cols> for a 2-D convolution, <depth, rows, cols> for a 3-D one
// Two strides for a 3-D convolution: depth, rows and columns need three (or one for all).
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto volume, auto kernel) {
    return sf::conv3d(volume, kernel, sf::strides<1, 2>);  // fix: sf::strides<1, 2, 2>
  });
  xt::xtensor_fixed<float, xt::xshape<1, 4, 8, 8, 3>> volume{};
  xt::xtensor_fixed<float, xt::xshape<3, 3, 3, 3, 8>> kernel{};
  auto y = f(volume, kernel);
  return static_cast<int>(y(0, 0, 0, 0, 0));
}
