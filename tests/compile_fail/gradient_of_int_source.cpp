// expect: static assertion failed: staticflow: sf::gradients: a gradient is defined for float32 / float64 sources, not for integer or bool ones
// A gradient with respect to an integer argument is not defined (TensorFlow returns None).
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto g = sf::grad<0>([](auto n, auto x) { return sf::reduce_sum(sf::cast<float>(n) * x); });  // fix: grad<1>
  xt::xtensor_fixed<int, xt::xshape<3>> n = {1, 2, 3};
  xt::xtensor_fixed<float, xt::xshape<3>> x = {1.f, 2.f, 3.f};
  auto d = g(n, x);
  (void)d;
  return 0;
}
