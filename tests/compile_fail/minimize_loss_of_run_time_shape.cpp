// expect: static assertion failed: staticflow: optimizer::minimize: the loss needs a static shape
// optimizer::minimize keeps the loss in a slot of its own, so the loss's shape must be static.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  sf::variable<float, 3> w;
  sf::sgd opt{0.1f};
  auto step = sf::function([&](auto x) { return opt.minimize(sf::square(x * w), w); });
  xt::xtensor<float, 2> x = xt::zeros<float>({2, 3});
  auto l = step(x);
  (void)l;
  return 0;
}
