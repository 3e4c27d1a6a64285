// expect: static assertion failed: staticflow: split: the axis's extent does not split into equal parts
// An axis of 6 split in 4.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x) {
    const auto parts = sf::split<4>(x, sf::axes<0>{});  // fix: 2, 3 or 6 parts
    return parts[0];
  });
  xt::xtensor_fixed<float, xt::xshape<6>> x{1, 2, 3, 4, 5, 6};
  auto y = f(x);
  return static_cast<int>(y(0));
}
