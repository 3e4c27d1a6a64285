// expect: static assertion failed: staticflow: a 2-D pooling needs a rank-4 \[batch, height, width, channels\] input
// A [batch, width, channels] signal handed to the 2-D pooling (it wants max_pool1d).
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto signal) {
    return sf::max_pool2d(signal, sf::ksize<2>);  // fix: sf::max_pool1d(signal, sf::ksize<2>)
  });
  xt::xtensor_fixed<float, xt::xshape<4, 16, 3>> signal{};
  auto y = f(signal);
  return static_cast<int>(y(0, 0, 0));
}
