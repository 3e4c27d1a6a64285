// expect: static assertion failed: staticflow: moments / variance / norms / normalization take a float or double tensor
// The variance of integer counts (TF rejects integer input to reduce_variance too).
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto counts) {
    return sf::reduce_variance(counts);  // fix: sf::reduce_variance(sf::cast<float>(counts))
  });
  xt::xtensor<int, 1> counts{1, 2, 3};
  return static_cast<int>(f(counts));
}
