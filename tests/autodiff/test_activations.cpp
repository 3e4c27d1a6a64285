// Gradients of the activations (graph/activations.hpp), clip_by_value and squared_difference
// against central differences in float64, on random inputs and extents away from the kinks.
#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("activations, clip_by_value, squared_difference: gradients match central differences",
          "[autodiff][activations]") {
  const auto smooth = [](auto x) {
    return sf::softsign(x) + sf::elu(x) + sf::selu(x * 0.5) + sf::gelu(x) + sf::gelu(x, sf::tanh_approximation) +
           sf::silu(x) + sf::leaky_relu(x, 0.1) * 2.0;
  };
  const auto clipped = [](auto x, auto lo) { return sf::clip_by_value(x, lo, 1.5) + sf::relu6(x * 4.0) + sf::hard_sigmoid(x * 3.0); };
  const auto distance = [](auto x, auto y) { return sf::squared_difference(x, y); };
  for (std::size_t n : {std::size_t{1}, extent(9, 31)}) {
    INFO("extent " << n);
    CHECK(check_gradients(smooth, random_tensor<1>({n})) == n);
    CHECK(check_gradients(clipped, random_tensor<1>({n}), random_tensor<1>({n}, -1.0, -0.2)) == 2 * n);
    CHECK(check_gradients(distance, random_tensor<2>({n, 2}), random_tensor<1>({2})) == 2 * n + 2);
  }
}
