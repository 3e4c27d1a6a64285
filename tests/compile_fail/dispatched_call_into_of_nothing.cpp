// expect: static assertion failed: staticflow: call_into: this function returns nothing
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function<sf::ranks<1>>([](auto) {});
  xt::xarray<float> x = {1.f}, out = {0.f};
  f.call_into(out, x);  // fix: f(x);
}
