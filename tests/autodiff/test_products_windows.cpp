// sf::jvp and sf::hessian_vector_product through the ops whose gradients are window nodes of
// their own: avg_pool (AvgPoolGrad), slice (SliceGrad) and concat (ConcatGrad); their
// second-derivative rules in autodiff/rules.hpp (conv2d's: test_products_conv.cpp). Against
// central differences in float64 on random run-time shapes.
#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("second derivatives through avg_pool, slice and concat on random run-time shapes") {
  std::mt19937 shapes(5);
  std::uniform_int_distribution<std::size_t> d(1, 4);
  for (int round = 0; round < 3; ++round) {
    const std::size_t n = d(shapes), h = 1 + d(shapes), w = 1 + d(shapes), c = d(shapes);
    INFO("x " << n << "x" << h << "x" << w << "x" << c);
    const auto x = random_tensor<4>({n, h, w, c}, -1, 1), v = random_tensor<4>({n, h, w, c});
    const auto pooled = [](auto image) {
      return sf::reduce_sum(sf::square(sf::tanh(sf::avg_pool2d(image, sf::ksize<2>, sf::strides<1>, sf::padding::same))));
    };
    CHECK(hvp_error(pooled, x, v) < 1e-6);
    CHECK(jvp_error([](auto image) { return sf::exp(sf::avg_pool2d(image, sf::ksize<2, 1>, sf::padding::same)); }, x, v) < 1e-7);
    // a window of rows along axis 1 (h >= 2 here); a concatenation with a function of itself
    const auto sliced = [](auto image) {
      const auto rows = sf::slice(image, sf::axes<1>{}, 1, 1);
      return sf::reduce_sum(sf::square(rows) * rows);
    };
    CHECK(hvp_error(sliced, x, v) < 1e-6);
    const auto joined = [](auto image) { return sf::reduce_sum(sf::sin(sf::concat<2>(image, sf::exp(image) * 0.5))); };
    CHECK(hvp_error(joined, x, v) < 1e-6);
    CHECK(jvp_error([](auto image) { return sf::tanh(sf::concat<1>(sf::slice(image, sf::axes<1>{}, 0, 1), image)); }, x, v) <
          1e-7);
  }
}
