// expect: static assertion failed: staticflow: sf::gradients: the target y is not a float tensor, so it has no gradient
// An integer result has no gradient.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto g = sf::grad([](auto x) { return sf::argmax(x); });
  xt::xtensor_fixed<float, xt::xshape<3>> x = {1.f, 2.f, 3.f};
  auto d = g(x);
  (void)d;
  return 0;
}
