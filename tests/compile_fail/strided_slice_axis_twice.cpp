// expect: static assertion failed: staticflow: strided_slice: an axis is sliced twice
// Axis 1 given twice (as 1 and as -1).
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x) {
    return sf::strided_slice(x, sf::axes<1, -1>{}, sf::span(1, sf::none), sf::span(sf::none, -1));  // fix: sf::axes<0, 1>{}
  });
  xt::xtensor<float, 2> x{{1, 2}, {3, 4}};
  auto y = f(x);
  return static_cast<int>(y(0, 0));
}
