// expect: static assertion failed: staticflow: cumsum / cumprod axis out of range
// A running sum along axis 2 of a matrix.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x) {
    return sf::cumsum(x, sf::axes<2>{});  // fix: sf::axes<1>{} (or -1) for the last axis
  });
  xt::xtensor_fixed<float, xt::xshape<2, 3>> x{};
  auto y = f(x);
  return static_cast<int>(y(0, 0));
}
