// Forward mode (sf::jvp) through plain int axes (run-time values, as a TensorFlow user writes
// them): against central differences in float64. (First derivatives: test_runtime_axis.cpp;
// expand_dims / squeeze and second derivatives: test_runtime_axis_products.cpp.)
#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;


TEST_CASE("forward mode (sf::jvp) through plain int axes") {
  const auto v = random_tensor<2>({3, 4});
  const auto dir = random_tensor<2>({3, 4});
  for (int a : {0, 1, -1}) {
    INFO("axis " << a);
    CHECK(jvp_error([a](auto x) { return sf::reduce_sum(x * x, a) + sf::reduce_max(x, a) * sf::reduce_mean(x, a); }, v, dir) < 1e-6);
    CHECK(jvp_error([a](auto x) { return sf::squeeze(sf::expand_dims(sf::tanh(x), a), a) * x; }, v, dir) < 1e-6);
    CHECK(jvp_error([a](auto x) { return x - sf::reduce_min(x, a, sf::keepdims); }, v, dir) < 1e-6);
  }
}
