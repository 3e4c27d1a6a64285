// expect: static assertion failed: staticflow: a symbolic tensor has no value while tracing, so it cannot be converted to a C\+\+ number. use sf::cast<T>\(x\)
// A symbolic tensor has no value to convert to a C++ number.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x) {
    return x * static_cast<float>(x);  // fix: return x * sf::cast<float>(x);
  });
  xt::xtensor_fixed<float, xt::xshape<3>> x = {1.f, 2.f, 3.f};
  auto y = f(x);
  return static_cast<int>(y(0));
}
