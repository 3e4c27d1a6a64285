// expect: static assertion failed: staticflow: sf::gradients through sf::while_loop / sf::fori_loop: the loop's condition or body holds an sf::cond
// A differentiated loop body whose sf::cond reads the loop variable: not supported yet (the
// reverse loop would have to rewrite the branches' graphs), a compile error naming the fix.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto g = sf::grad([](auto x) {
    return sf::reduce_sum(sf::fori_loop(0, 3, [&](auto, auto v) {
      return sf::cond(sf::reduce_sum(v) > 0.f, [&] { return v * x; }, [&] { return v - x; });  // fix: sf::where
    }, x));
  });
  xt::xtensor_fixed<float, xt::xshape<3>> x = {1.f, 2.f, 3.f};
  auto d = g(x);
  (void)d;
  return 0;
}
