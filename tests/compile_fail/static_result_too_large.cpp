// expect: static assertion failed: staticflow: a static result larger than STATICFLOW_MAX_STATIC_BYTES would live on the stack
// A float64[100000] result is 800 kB: too big for an xt::xtensor_fixed on the stack.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x) { return x * 2; });
  auto& c = f.get_concrete_function(sf::spec<double, 100000>{});
  static xt::xtensor_fixed<double, xt::xshape<100000>> x, out;
  out = c(x);  // fix: c.call_into(out, x);
  return static_cast<int>(out(0));
}
