// expect: static assertion failed: staticflow: pad / tile: give one amount per axis of the tensor
// Paddings for one axis of a matrix.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x) {
    return sf::pad(x, sf::paddings<1, 1>{});  // fix: sf::paddings<1, 1, 0, 0>{} (before and after, per axis)
  });
  xt::xtensor<float, 2> x{{1, 2}, {3, 4}};
  auto y = f(x);
  return static_cast<int>(y(0, 0));
}
