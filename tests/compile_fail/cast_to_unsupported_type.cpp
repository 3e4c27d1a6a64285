// expect: static assertion failed: staticflow: sf::cast<T> needs a dtype: bool, int32_t, int64_t, float or double
// unsigned has no dtype, so sf::cast cannot convert to it.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x) {
    return sf::cast<unsigned>(x);  // fix: return sf::cast<int>(x);
  });
  xt::xtensor_fixed<float, xt::xshape<3>> x = {1.f, 2.f, 3.f};
  auto y = f(x);
  return static_cast<int>(y(0));
}
