// expect: static assertion failed: staticflow: sf::grad / sf::value_and_grad: an argnum is not the index of an argument of the call
// argnums count the arguments of the call from 0.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto g = sf::grad<2>([](auto x, auto y) { return sf::reduce_sum(x * y); });  // fix: grad<1>
  xt::xtensor_fixed<float, xt::xshape<3>> x = {1.f, 2.f, 3.f};
  auto d = g(x, x);
  (void)d;
  return 0;
}
