// expect: static assertion failed: staticflow: gather_nd / scatter_nd: the indices' last axis \(the depth K of each index tuple\) must be a static extent
// gather_nd with indices whose every extent is known only at run time (an xt::xtensor argument):
// the result's rank depends on the depth, so it must be in the type.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x, auto i) {
    return sf::gather_nd(x, i);  // fix: sf::gather_nd(x, sf::reshape<sf::shape<sf::dyn, 2>>(i))
  });
  xt::xtensor<float, 2> x{{1, 2}, {3, 4}};
  xt::xtensor<int, 2> i{{0, 1}};
  auto y = f(x, i);
  return static_cast<int>(y(0));
}
