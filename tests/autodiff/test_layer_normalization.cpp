// Gradients of layer_normalization (graph/statistics.hpp) with respect to x, gamma and beta
// against central differences in float64 on random shapes (a translation unit of its own: about
// 50 s of the compiler; see test_statistics.cpp).
#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("gradients of layer_normalization with respect to x, gamma and beta", "[autodiff][statistics]") {
  const std::size_t m = extent(2, 5);
  const auto a = random_tensor<2>({extent(2, 6), m});
  const auto gamma = random_tensor<1>({m}), beta = random_tensor<1>({m});
  const auto layer = [](auto t, auto g, auto b) { return sf::reduce_sum(sf::square(sf::layer_normalization(t, g, b))); };
  CHECK(check_gradients(layer, a, gamma, beta) == a.size() + gamma.size() + beta.size());
}
