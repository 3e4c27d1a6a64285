// expect: staticflow: argument 1 is float32\[2,3\], the input signature expects float32\[None,4\] \(dimension 1 is 3, not 4\)
// A static dimension of the argument differs from the input signature's.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function<sf::spec<float, sf::dyn>, sf::spec<float, sf::dyn, 4>>([](auto v, auto m) { return m * 2.f + v; });
  xt::xtensor<float, 1> v = {1.f};
  xt::xtensor_fixed<float, xt::xshape<2, 3>> m{};  // fix: xt::xtensor_fixed<float, xt::xshape<2, 4>> m{};
  f(v, m);
}
