// expect: static assertion failed: staticflow: unique: x must be a vector \(rank 1\), as tf.unique's; flatten it first \(sf::reshape\)
// tf.unique takes a vector; a matrix's distinct values need it flattened first.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x) {
    auto [y, idx] = sf::unique(x);  // fix: sf::unique(sf::reshape<sf::shape<6>>(x))
    return idx;
  });
  xt::xtensor_fixed<float, xt::xshape<2, 3>> x{};
  auto idx = f(x);
  return static_cast<int>(idx(0, 0));
}
