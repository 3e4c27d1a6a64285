// expect: static assertion failed: staticflow: logical ops need bool tensors \(compare first, e.g. x > 0\)
// && on symbolic tensors is tf.logical_and, which needs bool tensors.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x, auto y) {
    return x && y;  // fix: return (x > 0) && (y > 0);
  });
  xt::xtensor_fixed<float, xt::xshape<3>> x = {1.f, 0.f, 3.f};
  xt::xtensor_fixed<float, xt::xshape<3>> y = {1.f, 2.f, 0.f};
  auto z = f(x, y);
  return z(0) ? 0 : 1;
}
