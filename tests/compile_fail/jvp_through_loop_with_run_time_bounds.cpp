// expect: static assertion failed: staticflow: a second derivative through sf::while_loop / sf::fori_loop with run-time bounds
// sf::jvp transposes the loop's reverse loop, which needs the reverse loop's own derivative: not
// supported yet, a compile error rather than a silent zero.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto jvp = sf::jvp<0>([](auto x, auto n) {
    return sf::fori_loop(0, n, [&](auto, auto v) { return sf::sin(v) * x; }, x);  // fix: sf::static_value bounds
  });
  xt::xtensor_fixed<double, xt::xshape<2>> x = {0.3, 0.5}, v = {1., 0.};
  auto [y, d] = jvp(x, 2, v);
  (void)y;
  (void)d;
  return 0;
}
