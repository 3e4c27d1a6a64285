// expect: static assertion failed: staticflow: pad: REFLECT paddings must be less than the extent of their axis
// A REFLECT padding of 3 on an axis of extent 3 (the mirror without the edge has only 2 elements).
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x) {
    return sf::pad(x, sf::paddings<0, 0, 3, 3>{}, sf::pad_mode::reflect);  // fix: at most 2, or pad_mode::symmetric
  });
  xt::xtensor_fixed<float, xt::xshape<2, 3>> x{{1, 2, 3}, {4, 5, 6}};
  auto y = f(x);
  return static_cast<int>(y(0, 0));
}
