// expect: static assertion failed: staticflow: top_k: k is more than the last axis's extent
// The 5 largest of 4 values.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;
using namespace sf::literals;

int main() {
  auto f = sf::function([](auto x) {
    return std::get<0>(sf::top_k(x, 5_c));  // fix: k of at most 4
  });
  xt::xtensor_fixed<float, xt::xshape<4>> x{1, 2, 3, 4};
  auto y = f(x);
  return static_cast<int>(y(0));
}
