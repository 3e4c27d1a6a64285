// expect: static assertion failed: staticflow: sf::jvp: a derivative is defined for float32 / float64 arguments, not for integer or bool ones
// A Jacobian-vector product with respect to an int32 argument.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto jvp = sf::jvp<1>([](auto x, auto n) { return x * sf::cast<float>(n); });
  xt::xtensor<float, 1> x = {1.f, 2.f};
  xt::xtensor<int, 1> n = {3, 4}, dn = {1, 1};
  (void)jvp(x, n, dn);  // fix: differentiate with respect to x, sf::jvp<0>, with a float tangent
  return 0;
}
