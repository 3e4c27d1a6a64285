// expect: static assertion failed: staticflow: conv2d: a grouped convolution's out_channels \(the filter's dim 3\) must be a multiple of the groups
// A filter of 2 in_channels on a 4-channel image is 2 groups, which cannot share 3 filters.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto image, auto kernel) {
    return sf::conv2d(image, kernel, sf::padding::same);  // fix: a [3, 3, 2, 4] kernel (2 filters per group)
  });
  xt::xtensor_fixed<float, xt::xshape<1, 8, 8, 4>> image{};
  xt::xtensor_fixed<float, xt::xshape<3, 3, 2, 3>> kernel{};
  auto y = f(image, kernel);
  return static_cast<int>(y(0, 0, 0, 0));
}
