// expect: static assertion failed: staticflow: layer_normalization: the normalized axes must be the last ones
// Normalizing over the batch axis with per-feature gamma and beta: they would broadcast against
// the wrong axis (Keras reshapes them; here it is an error rather than a silent misfit).
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x, auto gamma, auto beta) {
    return sf::layer_normalization(x, gamma, beta, sf::axes<0>{});  // fix: sf::axes<-1>{} (or batch_normalization)
  });
  xt::xtensor_fixed<float, xt::xshape<3, 3>> x{{1, 2, 3}, {4, 5, 6}, {7, 8, 10}};
  xt::xtensor_fixed<float, xt::xshape<3>> gamma{1, 1, 1}, beta{0, 0, 0};
  return static_cast<int>(f(x, gamma, beta)(0, 0));
}
