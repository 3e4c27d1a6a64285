// expect: static assertion failed: staticflow: sf::gradients: each source must be an argument of the traced function as the lambda received it, or an sf::variable, not an expression computed from one
// The sources of sf::gradients are leaves: arguments, not expressions built from them.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x) {
    auto h = x * 2.f;
    return sf::gradients(sf::reduce_sum(h * h), h);  // fix: sf::gradients(..., x)
  });
  xt::xtensor_fixed<float, xt::xshape<3>> x = {1.f, 2.f, 3.f};
  auto d = f(x);
  (void)d;
  return 0;
}
