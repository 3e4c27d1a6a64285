// expect: static assertion failed: staticflow: sf::gradients through sf::while_loop / sf::fori_loop: the loop's condition or body holds another loop
// A differentiated loop body holding another loop that reads the loop variable: not supported
// yet (the reverse loop would have to rewrite the inner loop's body), a compile error naming the
// fix. (A cond there is differentiable: tests/autodiff/test_while_loop_cond.cpp.)
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto g = sf::grad<0>([](auto x, auto n) {
    return sf::reduce_sum(sf::fori_loop(0, n, [&](auto, auto v) {
      return sf::fori_loop(0, n, [&](auto, auto w) { return w * v; }, x);  // fix: sf::static_value bounds
    }, x));
  });
  xt::xtensor_fixed<float, xt::xshape<3>> x = {1.f, 2.f, 3.f};
  auto d = g(x, 2);
  (void)d;
  return 0;
}
