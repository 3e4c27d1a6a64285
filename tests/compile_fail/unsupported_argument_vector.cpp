// expect: static assertion failed: staticflow: unsupported argument type: pass a row-major xt::xtensor_fixed, xt::xtensor or xt::adapt view
// A std::vector is no tensor argument (adapt it with xt::adapt).
#include <staticflow/staticflow.hpp>
#include <vector>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x) { return x * 2; });
  std::vector<float> x = {1.f, 2.f, 3.f};  // fix: xt::xtensor<float, 1> x = {1.f, 2.f, 3.f};
  auto y = f(x);
  return static_cast<int>(y(0));
}
