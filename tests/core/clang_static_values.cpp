// Built, linked and run with clang++ by CTest (compiler.clang.static_value_literals): `2_c` and
// `-1_c` inside a traced generic lambda. clang 14 emitted an undefined call to the consteval
// literal operator there, so such a program compiled (the syntax checks passed) but did not link
// (core/static_value.hpp).
#include <cstdio>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;
using namespace sf::literals;

int main() {
  auto f = sf::function([](auto x) { return std::tuple{sf::reduce_mean(x, -1_c), x / 2_c}; });
  xt::xtensor_fixed<int, xt::xshape<2, 3>> x = {{1, 2, 4}, {-7, 0, 0}};
  const auto [mean, half] = f(x);
  const bool ok = mean(0) == 2 && mean(1) == -2 && half(0, 2) == 2 && half(1, 0) == -3;
  std::printf("reduce_mean(x, -1_c) = [%d, %d], (x / 2_c)[1, 0] = %d: %s\n", mean(0), mean(1), half(1, 0),
              ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
