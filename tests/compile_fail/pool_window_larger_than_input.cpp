// expect: static assertion failed: staticflow: pooling with VALID padding: the window is taller than the input
// A 3x3 VALID window over a static image 2 rows tall.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto image) {
    return sf::max_pool2d(image, sf::ksize<3>);  // fix: sf::padding::same, or a smaller window
  });
  xt::xtensor_fixed<float, xt::xshape<1, 2, 8, 3>> image{};
  auto y = f(image);
  return static_cast<int>(y(0, 0, 0, 0));
}
