// expect: static assertion failed: staticflow: unsupported argument type: pass a row-major xt::xtensor_fixed, xt::xtensor or xt::adapt view
// get_concrete_function checks its arguments as a call does; what it returns after the report takes any use, so the report is the one error.
#include <staticflow/staticflow.hpp>
#include <vector>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x) { return x * 2; });
  std::vector<float> x = {1.f, 2.f, 3.f};  // fix: xt::xtensor<float, 1> x = {1.f, 2.f, 3.f};
  auto& c = f.get_concrete_function(x);
  auto y = c(x);
  return static_cast<int>(y(0));
}
