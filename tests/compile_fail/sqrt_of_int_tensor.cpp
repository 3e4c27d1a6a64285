// expect: static assertion failed: staticflow: this op needs floating-point tensors \(use sf::cast<float>\(x\) for integers\)
// sqrt is defined for floating-point dtypes only.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x) {
    return sf::sqrt(x);  // fix: return sf::sqrt(sf::cast<float>(x));
  });
  xt::xtensor_fixed<int, xt::xshape<3>> x = {1, 4, 9};
  auto y = f(x);
  return static_cast<int>(y(0));
}
