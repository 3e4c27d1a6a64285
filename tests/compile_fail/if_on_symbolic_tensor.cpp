// expect: static assertion failed: staticflow: a symbolic tensor has no value while tracing, so it cannot be a C\+\+ bool
// `if` needs a value, but while tracing x is symbolic (JAX's ConcretizationTypeError); a static
// value (TensorFlow's Python argument) can steer an `if`.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x, auto double_it) {
    if (x > 0) return x * 2;  // fix: if (double_it) return x * 2;
    (void)double_it;
    return x * 3;
  });
  xt::xtensor_fixed<float, xt::xshape<3>> x = {1.f, -2.f, 3.f};
  auto y = f(x, sf::static_value<true>{});
  return static_cast<int>(y(0));
}
