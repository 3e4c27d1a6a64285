// expect: static assertion failed: staticflow: sf::padding::explicit_ takes two values per spatial axis: <top, bottom, left, right> for a 2-D convolution, <left, right> for a 1-D one
// A 2-D convolution given the padding of one axis (conv1d's form).
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto image, auto kernel) {
    return sf::conv2d(image, kernel, sf::padding::explicit_<1, 1>);  // fix: sf::padding::explicit_<1, 1, 1, 1>
  });
  xt::xtensor_fixed<float, xt::xshape<1, 8, 8, 3>> image{};
  xt::xtensor_fixed<float, xt::xshape<3, 3, 3, 8>> kernel{};
  auto y = f(image, kernel);
  return static_cast<int>(y(0, 0, 0, 0));
}
