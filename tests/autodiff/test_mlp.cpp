// The gradient of a two-layer network's loss with respect to every parameter, against
// central differences (float64, random extents).
#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("a two-layer network's loss, every parameter") {
  const std::size_t batch = extent(1, 5), in = extent(1, 6), hidden = extent(1, 7);
  const auto loss = [](auto w1, auto b1, auto w2, auto x, auto y) {
    const auto h = sf::relu(sf::matmul(x, w1) + b1);
    return sf::reduce_mean(sf::square(sf::matmul(h, w2) - y));
  };
  // the parameters' gradients (w.r.t. the data too, the function took 3.5 GB of compiler)
  CHECK(check_gradients_of(std::index_sequence<0, 1, 2>{}, loss, random_tensor<2>({in, hidden}), random_tensor<1>({hidden}),
                           random_tensor<1>({hidden}), random_tensor<2>({batch, in}), random_tensor<1>({batch})) ==
        in * hidden + 2 * hidden);
}
