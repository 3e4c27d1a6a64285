// Gradients of reduce_sum / reduce_mean against central differences (float64, random inputs and
// extents). Extrema, materialize, stop_gradient: test_reduce_extrema.cpp; softmax: test_softmax.cpp.
#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("reduce_sum / reduce_mean over every axis, some axes, keepdims") {
  // three small functions rather than one sum of them: the compiler's cost of a gradient grows
  // faster than the graph (docs/architecture.md, "Gradients")
  const auto whole = [](auto x) { return sf::reduce_sum(sf::square(x)) * 0.5 + sf::reduce_mean(sf::tanh(x)); };
  const auto rows = [](auto x) { return sf::reduce_sum(sf::reduce_mean(x * x, sf::axes<1>{}) * sf::reduce_sum(x, sf::axes<1>{})); };
  const auto columns = [](auto x) { return sf::reduce_sum(sf::exp(x * 0.1) * sf::reduce_mean(x, sf::axes<0>{}, sf::keepdims)); };
  for (auto [r, c] : {std::pair<std::size_t, std::size_t>{1, 1}, {1, 5}, {4, 1}, {extent(2, 9), extent(2, 21)}}) {
    INFO(r << " x " << c);
    const auto x = random_tensor<2>({r, c});
    CHECK(check_gradients(whole, x) == r * c);
    CHECK(check_gradients(rows, x) == r * c);
    CHECK(check_gradients(columns, x) == r * c);
  }
  // a reduction over an inner axis of a rank-3 tensor, without keepdims: the adjoint gets its axis back
  const auto g = [](auto x) { return sf::sigmoid(sf::reduce_sum(x, sf::axes<1>{})) * sf::reduce_mean(x, sf::axes<0, 1>{}); };
  xt::xtensor_fixed<double, xt::xshape<2, 3, 4>> x3;
  fill(x3);
  check_gradients(g, x3);
}
