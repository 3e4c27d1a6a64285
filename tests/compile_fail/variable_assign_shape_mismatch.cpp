// expect: staticflow: assign_add: a value of spec float32.2. does not fit a variable of spec float32.3.
// The value must broadcast to the variable's shape; fix: a float32[3] value, or a scalar.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;
int main() {
  sf::variable<float, 3> v{};
  auto f = sf::function([&](auto x) { v.assign_add(x); });
  f(xt::xtensor_fixed<float, xt::xshape<2>>{1.f, 2.f});
}
