// expect: static assertion failed: staticflow: conv3d needs a rank-5 NDHWC input \[batch, depth, height, width, channels\]
// A conv2d image given to conv3d.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto image, auto kernel) {
    return sf::conv3d(image, kernel);  // fix: sf::conv2d with a [3, 3, 3, 8] filter, or a 5-D volume
  });
  xt::xtensor_fixed<float, xt::xshape<1, 8, 8, 3>> image{};
  xt::xtensor_fixed<float, xt::xshape<3, 3, 3, 3, 8>> kernel{};
  auto y = f(image, kernel);
  return static_cast<int>(y(0, 0, 0, 0));
}
