// expect: static assertion failed: staticflow: shapes do not broadcast \(the two shapes are the arguments of shapes_do_not_broadcast<lhs, rhs>
// Static shapes (2,) and (3,) cannot broadcast: a compile error, not a run-time shape_error.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto a, auto b) { return a + b; });
  xt::xtensor_fixed<float, xt::xshape<2>> a = {1.f, 2.f};
  xt::xtensor_fixed<float, xt::xshape<3>> b = {1.f, 2.f, 3.f};  // fix: xt::xtensor_fixed<float, xt::xshape<2>> b = {1.f, 2.f};
  auto y = f(a, b);
  return static_cast<int>(y(0));
}
