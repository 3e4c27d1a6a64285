// expect: staticflow: argument 1 is Literal\[3\], the input signature expects int32\[\] \(an input signature takes tensors, not static values\)
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto h = sf::function<sf::spec<int, sf::dyn>, sf::spec<int>>([](auto x, auto n) { return x * n; });
  xt::xtensor<int, 1> x = {1};
  h(x, sf::static_value<3>{});  // fix: h(x, 3);
}
