// expect: static assertion failed: staticflow: sf::gradients: gradients through sf::while_loop / sf::fori_loop / sf::scan / sf::map_fn are not supported yet
// A loop whose body reads the source (here a captured argument) has no gradient yet: a compile
// error, not a silent zero.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto g = sf::grad([](auto x) {
    return sf::reduce_sum(sf::fori_loop(0, 3, [&](auto, auto v) { return v * x; }, x * 0.f + 1.f));
  });
  xt::xtensor_fixed<float, xt::xshape<3>> x = {1.f, 2.f, 3.f};
  auto d = g(x);
  (void)d;
  return 0;
}
