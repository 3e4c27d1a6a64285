// expect: static assertion failed: staticflow: sf::gradients: a batched matmul with a vector operand has no gradient rule yet
// Ops without a gradient rule say so at compile time.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto g = sf::grad([](auto m, auto v) { return sf::reduce_sum(sf::matmul(m, v)); });
  xt::xtensor_fixed<float, xt::xshape<2, 3, 4>> m{};
  xt::xtensor_fixed<float, xt::xshape<4>> v = {1.f, 2.f, 3.f, 4.f};
  auto d = g(m, v);
  (void)d;
  return 0;
}
