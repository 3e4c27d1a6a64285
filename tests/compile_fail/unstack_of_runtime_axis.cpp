// expect: static assertion failed: staticflow: unstack: the axis's extent must be static
// unstack of an axis whose extent is known only at run time (an xt::xtensor argument).
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x) {
    const auto rows = sf::unstack(x, sf::axes<0>{});  // fix: an input signature with a static extent
    return rows[0];
  });
  xt::xtensor<float, 2> x{{1, 2}, {3, 4}};
  auto y = f(x);
  return static_cast<int>(y(0));
}
