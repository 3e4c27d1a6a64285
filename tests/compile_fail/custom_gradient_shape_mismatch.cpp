// expect: static assertion failed: staticflow: sf::custom_gradient: a gradient the vjp returned does not broadcast to its input's shape
// The adjoint a vjp returns must broadcast to its input's shape: float32[4] for a float32[3] input.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  const auto twice = sf::custom_gradient([](auto x) { return x * 2.f; },
                                         [](auto g, auto) { return sf::broadcast_to<sf::shape<4>>(sf::reduce_sum(g)); });
  auto g = sf::grad([twice](auto x) { return sf::reduce_sum(twice(x)); });
  xt::xtensor_fixed<float, xt::xshape<3>> x = {1.f, 2.f, 3.f};
  auto d = g(x);
  (void)d;
  return 0;
}
