// expect: static assertion failed: staticflow: sf::custom_gradient: the vjp must return one gradient per input
// A custom gradient's vjp returns one adjoint per input of the function: here one for two.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  const auto product = sf::custom_gradient([](auto a, auto b) { return a * b; }, [](auto g, auto, auto b) { return g * b; });
  auto g = sf::grad([product](auto a, auto b) { return sf::reduce_sum(product(a, b)); });
  xt::xtensor_fixed<float, xt::xshape<3>> a = {1.f, 2.f, 3.f}, b = {4.f, 5.f, 6.f};
  auto d = g(a, b);
  (void)d;
  return 0;
}
