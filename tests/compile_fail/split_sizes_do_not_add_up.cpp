// expect: static assertion failed: staticflow: split: the sizes do not add up to the axis's extent
// tf.split(x, [1, 2], axis=1) of a 2x4 matrix: 1 + 2 is not 4 (a -1 would take the rest).
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x) {
    const auto [a, b] = sf::split(x, sf::sizes<1, 2>{}, sf::axes<1>{});  // fix: sf::sizes<1, -1>{}
    return a + b(sf::whole, sf::static_span<0, 1>{});
  });
  xt::xtensor_fixed<float, xt::xshape<2, 4>> x{};
  auto y = f(x);
  return static_cast<int>(y(0, 0));
}
