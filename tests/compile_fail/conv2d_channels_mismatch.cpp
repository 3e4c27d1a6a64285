// expect: static assertion failed: staticflow: conv2d: the filter's in_channels \(dim 2\) differ from the image's channels \(its last dim\)
// An RGB image [N, H, W, 3] convolved with a filter made for 4 input channels.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto image, auto kernel) {
    return sf::conv2d(image, kernel, sf::padding::same);  // fix: a [3, 3, 3, 8] kernel
  });
  xt::xtensor_fixed<float, xt::xshape<1, 8, 8, 3>> image{};
  xt::xtensor_fixed<float, xt::xshape<3, 3, 4, 8>> kernel{};
  auto y = f(image, kernel);
  return static_cast<int>(y(0, 0, 0, 0));
}
