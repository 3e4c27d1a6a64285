// expect: static assertion failed: staticflow: random: a shape with sf::dyn extents; use sf::shape_of
// A static shape type with a run-time extent: its size is not known to the draw.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x) {
    return x + sf::random::stateless_uniform(sf::shape<sf::dyn>{}, {1, 2});  // fix: sf::shape_of(x)
  });
  xt::xtensor<float, 1> x{1, 2};
  auto y = f(x);
  return static_cast<int>(y(0));
}
