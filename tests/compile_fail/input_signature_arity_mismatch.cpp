// expect: staticflow: the call passes 2 arguments, the input signature has 1
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto h = sf::function<sf::spec<float, sf::dyn>>([](auto x, auto y) { return x * y; });
  xt::xtensor<float, 1> x = {1.f};
  h(x, x);  // fix: declare sf::function<sf::spec<float, sf::dyn>, sf::spec<float, sf::dyn>>
}
