// expect: static assertion failed: staticflow: random: the seed must be an int32 or int64 tensor of shape \[2\]
// A seed passed as a float tensor (TF rejects it too: seeds are integers).
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x, auto seed) {
    return x + sf::random::stateless_normal(sf::shape_of(x), seed);  // fix: an int32 or int64 seed
  });
  xt::xtensor<float, 1> x{1, 2};
  xt::xtensor_fixed<float, xt::xshape<2>> seed{1, 2};
  auto y = f(x, seed);
  return static_cast<int>(y(0));
}
