// expect: static assertion failed: staticflow: max_pool needs a numeric tensor, avg_pool a float32 or float64 one
// The mean of integer windows (TF's avg_pool takes floats only).
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto image) {
    return sf::avg_pool2d(image, sf::ksize<2>);  // fix: sf::avg_pool2d(sf::cast<float>(image), sf::ksize<2>)
  });
  xt::xtensor_fixed<int, xt::xshape<1, 8, 8, 3>> image{};
  auto y = f(image);
  return static_cast<int>(y(0, 0, 0, 0));
}
