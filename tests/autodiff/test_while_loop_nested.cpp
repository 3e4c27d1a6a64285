// Gradients through a loop with a run-time trip count whose body holds another such loop that
// reads the outer loop's variables and a captured weight (autodiff/loop_backprop.hpp: the reverse
// loop reads them from its stacks inside the inner loop's stacked and reverse loops). Against
// central differences in float64; run-time extents. A custom gradient in the body:
// test_while_loop_custom_gradient.cpp.
#include <cmath>
#include <cstdint>
#include <tuple>

#include <xtensor/xtensor.hpp>

#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("fori_loop: a body whose inner loop reads the outer variable and a captured weight") {
  // v <- the inner loop's u after n steps of u <- tanh(u * w + v), from u = v / 2
  const auto fn = [](auto x, auto w, auto n) {
    return sf::fori_loop(std::int32_t{0}, n, [&](auto, auto v) {
      return sf::fori_loop(std::int32_t{0}, n, [&](auto, auto u) { return sf::tanh(u * w + v); }, v * 0.5);
    }, x);
  };
  for (std::int32_t n : {0, 1, 3}) {
    INFO("trip counts " << n);
    const std::size_t size = extent(1, 7);
    const auto x = random_tensor<1>({size}, -1, 1);
    const auto w = random_tensor<1>({size}, -1, 1);
    CHECK(check_gradients_of(std::index_sequence<0, 1>{}, fn, x, w, n) == 2 * size);
  }
}
