// expect: static assertion failed: staticflow: unsupported argument type: pass a row-major xt::xtensor_fixed, xt::xtensor or xt::adapt view
// unsigned has no dtype (TensorFlow's uint32 is not supported), so it is no scalar argument.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x) { return x * 2; });
  unsigned n = 3;
  auto y = f(n);  // fix: auto y = f(static_cast<int>(n));
  return static_cast<int>(y);
}
