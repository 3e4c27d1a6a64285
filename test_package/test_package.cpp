#include <staticflow/staticflow.hpp>
#include <iostream>
namespace sf = staticflow;
int main() {
  auto f = sf::function([](auto x, auto y) { return x * x + y; });
  xt::xtensor_fixed<int, xt::xshape<2>> x = {2, 3}, y = {3, -2};
  auto r = f(x, y);
  std::cout << r(0) << ' ' << r(1) << '\n';
  return (r(0) == 7 && r(1) == 7 && f.tracing_count() == 1) ? 0 : 1;
}
