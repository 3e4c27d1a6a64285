// expect: static assertion failed: staticflow: strided_slice: the step must not be 0
// A static slice with a step of 0 (Python's "slice step cannot be zero").
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x) {
    return x(sf::static_span<0, 4, 0>{});  // fix: a step of 1 (or -1 to reverse)
  });
  xt::xtensor<float, 1> x{1, 2, 3, 4};
  auto y = f(x);
  return static_cast<int>(y(0));
}
