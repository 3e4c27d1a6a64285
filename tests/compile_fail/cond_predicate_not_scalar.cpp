// expect: staticflow: sf::cond: the predicate must be a scalar bool tensor, not bool\[3\]
// tf.cond needs a scalar predicate; a vector comparison must be reduced first.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;
int main() {
  auto f = sf::function([](auto x) { return sf::cond(x > 0, [&] { return x; }, [&] { return -x; }); });
  xt::xtensor_fixed<int, xt::xshape<3>> x = {1, 2, 3};
  (void)f(x);
}
