// Gradients of sf::tensordot with axis pairs (graph/einsum.hpp: an einsum, differentiated through
// einsum's rules) against central differences in float64 on random run-time extents.
#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("tensordot with axis pairs: gradients of both operands") {
  for (int round = 0; round < 3; ++round) {
    const std::size_t i = extent(1, 3), j = extent(1, 3), k = extent(1, 3);
    const auto a = random_tensor<3>({i, j, k});
    const auto b = random_tensor<3>({j, k, i});
    const auto pairs = [](auto x, auto y) { return sf::tanh(sf::tensordot(x, y, sf::axes<1, 0>{}, sf::axes<0, 2>{})); };
    CHECK(check_gradients(pairs, a, b) == a.size() + b.size());
    const auto one = [](auto x, auto y) { return sf::square(sf::tensordot(x, y, sf::axes<-1>{}, sf::axes<1>{})); };
    CHECK(check_gradients(one, a, b) == a.size() + b.size());
  }
}
