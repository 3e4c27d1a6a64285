// sf::jvp against central differences in float64 on random shapes: matmul, softmax, reduce_max,
// an elementwise chain, static broadcasting (tests/autodiff/test_jvp.cpp has the rest).
#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("jvp against central differences: matmul, softmax, reductions, broadcasting") {
  for (int round = 0; round < 3; ++round) {
    const std::size_t batch = extent(), in = extent(), out = extent();
    const auto w = random_tensor<2>({in, out}), dw = random_tensor<2>({in, out});
    const auto x = random_tensor<2>({batch, in});
    const auto b = random_tensor<1>({out});
    CHECK(jvp_error([](auto w, auto x, auto b) { return sf::tanh(sf::matmul(x, w) + b); }, w, dw, x, b) < 1e-7);
    const auto z = random_tensor<2>({batch, out}), dz = random_tensor<2>({batch, out});
    CHECK(jvp_error([](auto z) { return sf::softmax(z); }, z, dz) < 1e-7);
    CHECK(jvp_error([](auto z) { return sf::reduce_max(z, sf::axes<0>{}); }, z, dz) < 1e-7);
    CHECK(jvp_error([](auto z) { return sf::sqrt(sf::exp(z) + 1.0) / (sf::square(z) + 2.0); }, z, dz) < 1e-7);
  }
  // static shapes, broadcasting [3, 1] * [1, 4]
  xt::xtensor_fixed<double, xt::xshape<3, 1>> a, da;
  xt::xtensor_fixed<double, xt::xshape<1, 4>> c;
  fill(a), fill(da), fill(c);
  CHECK(jvp_error([](auto a, auto c) { return sf::exp(a * c); }, a, da, c) < 1e-7);
}
