// expect: static assertion failed: staticflow: reverse: an axis is given more than once
// Axis 0 given twice (as 0 and as -1 of a vector): TF's "axis 0 specified more than once".
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x) {
    return sf::reverse(x, sf::axes<0, -1>{});  // fix: sf::axes<0>{}
  });
  xt::xtensor<float, 1> x{1, 2, 3};
  auto y = f(x);
  return static_cast<int>(y(0));
}
