// expect: static assertion failed: staticflow: boolean_mask: the mask must be a bool tensor; compare it first, as in x > 0
// A 0/1 float tensor as the mask: TF requires a bool mask, and so does staticflow.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x, auto weights) {
    return sf::boolean_mask(x, weights);  // fix: sf::boolean_mask(x, weights > 0.f)
  });
  xt::xtensor_fixed<float, xt::xshape<4>> x{}, weights{1, 0, 1, 1};
  auto y = f(x, weights);
  return static_cast<int>(y.size());
}
