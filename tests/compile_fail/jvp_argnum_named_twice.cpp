// expect: static assertion failed: staticflow: sf::jvp / sf::hessian_vector_product: an argnum is named twice
// The same argument twice among the argnums.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto hvp = sf::hessian_vector_product<0, 0>([](auto x) { return sf::reduce_sum(sf::exp(x)); });
  xt::xtensor<double, 1> x = {1.0, 2.0}, v = {1.0, 0.0};
  (void)hvp(x, v, v);  // fix: sf::hessian_vector_product<0>, one tangent
  return 0;
}
