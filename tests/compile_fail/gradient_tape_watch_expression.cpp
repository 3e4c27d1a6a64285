// expect: static assertion failed: staticflow: gradient_tape::watch: x must be an argument of the traced function as the lambda received it, or an sf::variable, not an expression computed from one
// TensorFlow's tape can watch any tensor; here the graph's type holds every value's history, so a
// source is a leaf: watch the argument and differentiate with respect to it.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x) {
    sf::gradient_tape tape;
    auto h = x * 2.f;
    tape.watch(h);  // fix: tape.watch(x)
    return tape.gradient(sf::reduce_sum(h * h), x);
  });
  xt::xtensor_fixed<float, xt::xshape<3>> x = {1.f, 2.f, 3.f};
  (void)f(x);
  return 0;
}
