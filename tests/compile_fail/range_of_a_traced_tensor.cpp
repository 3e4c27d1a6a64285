// expect: static assertion failed: staticflow: range / linspace / eye: a bound that is a traced tensor would make the result's shape depend on its value
// tf.range(n) with n a tensor argument: its length is data, not a shape.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x, auto n) {
    return x * sf::cast<float>(sf::range(n));  // fix: a C++ number, a static value (5_c), or sf::for_range(n)
  });
  xt::xtensor<float, 1> x{1, 2};
  xt::xtensor<std::int32_t, 0> n(2);
  auto y = f(x, n);
  return static_cast<int>(y(0));
}
