// expect: static assertion failed: staticflow: sf::gradients: reduce_prod has no gradient rule yet
// Ops without a gradient rule say so at compile time.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto g = sf::grad([](auto x) { return sf::reduce_prod(x); });
  xt::xtensor_fixed<float, xt::xshape<3>> x = {1.f, 2.f, 3.f};
  auto d = g(x);
  (void)d;
  return 0;
}
