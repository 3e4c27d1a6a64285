// expect: static assertion failed: staticflow: cumsum / cumprod take an axis, then at most one sf::exclusive and one sf::reversed
// sf::reversed given twice.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x) {
    return sf::cumsum(x, sf::axes<0>{}, sf::reversed, sf::reversed);  // fix: sf::cumsum(x, sf::axes<0>{}, sf::reversed)
  });
  xt::xtensor_fixed<float, xt::xshape<4>> x{};
  auto y = f(x);
  return static_cast<int>(y(0));
}
