// expect: static assertion failed: staticflow: conv3d with VALID or explicit padding: the \(dilated\) filter is larger than the \(padded\) image
// A 3-deep filter over a volume 2 deep: VALID padding leaves no output depth.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto volume, auto kernel) {
    return sf::conv3d(volume, kernel);  // fix: sf::padding::same, or a deeper volume
  });
  xt::xtensor_fixed<float, xt::xshape<1, 2, 8, 8, 3>> volume{};
  xt::xtensor_fixed<float, xt::xshape<3, 3, 3, 3, 8>> kernel{};
  auto y = f(volume, kernel);
  return static_cast<int>(y(0, 0, 0, 0, 0));
}
