// expect: static assertion failed: staticflow: bitwise ops and shifts need int32 or int64 tensors
// `&`, `|`, `^`, `<<`, `>>` are bitwise on integer tensors and logical on bool tensors; a float
// tensor has neither.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x, auto y) {
    return x & y;  // fix: return sf::cast<int>(x) & sf::cast<int>(y); or (x > 0) & (y > 0)
  });
  xt::xtensor_fixed<float, xt::xshape<3>> x = {1, 4, 9};
  auto z = f(x, x);
  return static_cast<int>(z(0));
}
