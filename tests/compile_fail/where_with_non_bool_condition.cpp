// expect: static assertion failed: staticflow: the condition of sf::where must be a bool tensor
// The condition of sf::where is a bool tensor; a float tensor is not implicitly `!= 0`.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x) {
    return sf::where(x, x, -x);  // fix: return sf::where(x > 0, x, -x);
  });
  xt::xtensor_fixed<float, xt::xshape<3>> x = {1.f, -2.f, 3.f};
  auto y = f(x);
  return static_cast<int>(y(0));
}
