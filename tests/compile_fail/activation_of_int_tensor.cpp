// expect: static assertion failed: staticflow: this activation needs a float tensor \(use sf::cast<float>\(x\) for integers\)
// gelu, elu, selu, silu, softsign, leaky_relu and hard_sigmoid are defined for float tensors.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x) {
    return sf::gelu(x);  // fix: return sf::gelu(sf::cast<float>(x));
  });
  xt::xtensor_fixed<int, xt::xshape<3>> x = {1, 4, 9};
  auto y = f(x);
  return static_cast<int>(y(0));
}
