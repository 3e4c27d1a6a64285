// expect: static assertion failed: staticflow: conv3d: the filter's in_channels \(dim 3\) differ from the image's channels \(dim 4\) and do not divide them into groups
// A filter for 4 channels over a volume of 6.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto volume, auto kernel) {
    return sf::conv3d(volume, kernel, sf::padding::same);  // fix: a [3, 3, 3, 6, 8] filter (or 2 / 3 in_channels: groups)
  });
  xt::xtensor_fixed<float, xt::xshape<1, 4, 8, 8, 6>> volume{};
  xt::xtensor_fixed<float, xt::xshape<3, 3, 3, 4, 8>> kernel{};
  auto y = f(volume, kernel);
  return static_cast<int>(y(0, 0, 0, 0, 0));
}
