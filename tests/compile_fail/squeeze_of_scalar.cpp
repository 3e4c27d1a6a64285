// expect: static assertion failed: staticflow: squeeze of a scalar
// tf.squeeze(x, axis) with a plain int axis on a 0-d tensor: there is no axis to remove.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x) {
    return sf::squeeze(sf::reduce_sum(x), 0);  // fix: return sf::reduce_sum(x);
  });
  xt::xtensor_fixed<float, xt::xshape<3>> x{};
  auto y = f(x);
  (void)y;
  return 0;
}
