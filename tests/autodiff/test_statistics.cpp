// Gradients of graph/statistics.hpp's composites (variance, norms, moments and
// batch_normalization) against central differences in float64 on random shapes. Few checks per
// translation unit: each differentiated composite costs the compiler 30-50 s (a normalization
// reads x in several places, and each read carries its own copy of the adjoint: issue 25);
// layer_normalization's are in test_layer_normalization.cpp.
#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("gradients of variance and norms", "[autodiff][statistics]") {
  const auto a = random_tensor<2>({extent(2, 6), extent(2, 5)});
  const auto stats = [](auto t) {
    return sf::reduce_sum(sf::reduce_variance(t, sf::axes<0>{})) + sf::norm<sf::norm_order::one>(t, sf::axes<0, 1>{}) +
           sf::reduce_euclidean_norm(t);
  };
  CHECK(check_gradients_of(std::index_sequence<0>{}, stats, a) == a.size());
}

TEST_CASE("gradients of batch_normalization over moments with respect to x", "[autodiff][statistics]") {
  const std::size_t m = extent(2, 5);
  const auto a = random_tensor<2>({extent(2, 6), m});
  const auto batch = [](auto t) {
    const auto [mean, variance] = sf::moments(t, sf::axes<0>{});
    return sf::reduce_sum(sf::cos(sf::batch_normalization(t, mean, variance, 1e-3)));
  };
  CHECK(check_gradients_of(std::index_sequence<0>{}, batch, a) == a.size());
}
