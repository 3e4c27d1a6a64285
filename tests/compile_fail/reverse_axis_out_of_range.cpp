// expect: static assertion failed: staticflow: reverse / roll / repeat / split / unstack: an axis is out of range
// A vector reversed along axis 1.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x) {
    return sf::reverse(x, sf::axes<1>{});  // fix: sf::axes<0>{} (or -1)
  });
  xt::xtensor<float, 1> x{1, 2, 3};
  auto y = f(x);
  return static_cast<int>(y(0));
}
