// expect: staticflow: sf::while_loop: the body changes loop variable 0 from float32\[2\] to float32\[4\]
// A static shape cannot change; a variable whose shape varies needs sf::dyn dimensions.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;
int main() {
  auto f = sf::function([](auto x) {
    return sf::while_loop([](auto v) { return sf::reduce_sum(v) < 10.f; }, [](auto v) { return sf::concat<0>(v, v); }, x);
  });
  xt::xtensor_fixed<float, xt::xshape<2>> x = {1, 2};
  (void)f(x);
}
