// Gradients through a loop with a run-time trip count whose body calls an sf::custom_gradient on
// the loop variable (autodiff/loop_backprop.hpp, autodiff/backprop.hpp's replace_leaf: the reverse
// loop reads the custom gradient's inputs from its stacks). Against central differences in
// float64; run-time extents.
#include <cmath>
#include <cstdint>
#include <tuple>

#include <xtensor/xtensor.hpp>

#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("fori_loop: a body calling a function with a custom gradient on the loop variable") {
  // softplus with tf.custom_gradient's stable derivative; the loop variable is its input
  const auto softplus = sf::custom_gradient([](auto x) { return sf::log(1. + sf::exp(x)); },
                                            [](auto g, auto x) { return g * sf::sigmoid(x); });
  const auto fn = [&](auto x, auto w, auto n) {
    return sf::fori_loop(std::int32_t{0}, n, [&](auto, auto v) { return softplus(v * w) - 1.; }, x);
  };
  const std::size_t size = extent(1, 7);
  const auto x = random_tensor<1>({size}, -1, 1);
  const auto w = random_tensor<1>({size}, -1, 1);
  CHECK(check_gradients_of(std::index_sequence<0, 1>{}, fn, x, w, std::int32_t{3}) == 2 * size);
}
