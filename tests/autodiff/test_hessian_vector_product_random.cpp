// sf::hessian_vector_product against central differences of the gradient in float64 on random
// shapes: an MLP loss, cross-entropy, an elementwise chain, static broadcasting
// (tests/autodiff/test_hessian_vector_product.cpp has the rest).
#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("hessian_vector_product against central differences of the gradient") {
  for (int round = 0; round < 3; ++round) {
    const std::size_t batch = extent(), in = extent(), out = extent();
    const auto w = random_tensor<2>({in, out}), v = random_tensor<2>({in, out});
    const auto x = random_tensor<2>({batch, in});
    const auto b = random_tensor<1>({out});
    CHECK(hvp_error([](auto w, auto b, auto x) { return sf::reduce_mean(sf::square(sf::tanh(sf::matmul(x, w) + b))); },
                    w, v, b, x) < 1e-6);
    const auto z = random_tensor<2>({batch, out}), dz = random_tensor<2>({batch, out});
    const auto labels = random_tensor<2>({batch, out}, 0, 1);
    CHECK(hvp_error([](auto z, auto y) { return -sf::reduce_sum(y * sf::log_softmax(z)); }, z, dz, labels) < 1e-6);
    // a non-scalar value is summed (TensorFlow's rule)
    auto chain = [](auto z) { return sf::sqrt(sf::exp(z) + 1.0) / (sf::square(z) + 2.0) + sf::log(sf::sigmoid(z)) * z; };
    CHECK(hvp_error(chain, z, dz) < 1e-6);
  }
  xt::xtensor_fixed<double, xt::xshape<3, 1>> a, da;
  xt::xtensor_fixed<double, xt::xshape<1, 4>> c;
  fill(a), fill(da), fill(c);
  CHECK(hvp_error([](auto a, auto c) { return sf::reduce_sum(sf::square(a * c) * a); }, a, da, c) < 1e-6);
}
