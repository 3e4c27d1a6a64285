// expect: staticflow: sf::cond: output 0 is int32\[3\] in the true branch and float32\[3\] in the false branch
// Both branches are traced; their results must have the same specs.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;
int main() {
  auto f = sf::function([](auto x) {
    return sf::cond(sf::reduce_sum(x) > 0, [&] { return x; }, [&] { return sf::cast<float>(x); });
  });
  xt::xtensor_fixed<int, xt::xshape<3>> x = {1, 2, 3};
  (void)f(x);
}
