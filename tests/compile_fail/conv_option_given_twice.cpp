// expect: static assertion failed: staticflow: a convolution takes its input and filter, then at most one each of sf::padding, sf::strides, sf::dilations and sf::data_format, in any order
// Two strides for one convolution: which one was meant cannot be told.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto image, auto kernel) {
    return sf::conv2d(image, kernel, sf::strides<2>, sf::padding::same, sf::strides<1>);  // fix: one sf::strides<2>
  });
  xt::xtensor_fixed<float, xt::xshape<1, 8, 8, 3>> image{};
  xt::xtensor_fixed<float, xt::xshape<3, 3, 3, 8>> kernel{};
  auto y = f(image, kernel);
  return static_cast<int>(y(0, 0, 0, 0));
}
