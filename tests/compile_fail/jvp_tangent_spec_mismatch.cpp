// expect: static assertion failed: staticflow: sf::jvp / sf::hessian_vector_product: each tangent must have the dtype and shape of the argument its argnum names
// A float64 tangent for a float32 argument.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto jvp = sf::jvp<0>([](auto x) { return sf::tanh(x); });
  xt::xtensor<float, 1> x = {1.f, 2.f};
  xt::xtensor<double, 1> v = {1.0, 0.0};
  (void)jvp(x, v);  // fix: a tangent of x's dtype, xt::xtensor<float, 1>
  return 0;
}
