// Gradients of sf::linalg::diag_part / set_diag / diag / trace (graph/linalg.hpp: each other's
// transposes, TF's rules) against central differences in float64 on random extents; second
// derivatives through sf::hessian_vector_product. (einsum's diagonals: tests/autodiff/test_einsum.cpp.)
#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("linalg gradients: diag_part, set_diag, diag and trace on random batches") {
  for (int round = 0; round < 3; ++round) {
    const std::size_t b = extent(1, 3), m = extent(1, 4), n = extent(1, 4);
    const auto x = random_tensor<3>({b, m, n});
    const auto d = random_tensor<2>({b, std::min(m, n)});
    INFO("[" << b << ", " << m << ", " << n << "]");
    CHECK(check_gradients([](auto p) { return sf::sin(sf::linalg::diag_part(p * p)); }, x) == x.size());
    CHECK(check_gradients([](auto p, auto q) { return sf::tanh(sf::linalg::set_diag(p, q * q) * p); }, x, d) == x.size() + d.size());
    CHECK(check_gradients([](auto p) { return sf::exp(sf::linalg::trace(p) * 0.3); }, x) == x.size());
    CHECK(check_gradients([](auto q) { return sf::cos(sf::linalg::diag(q) * 2.0 + 1.0); }, d) == d.size());
  }
}

TEST_CASE("linalg second derivatives: the Hessian of trace(X X) and of diag_part through set_diag") {
  const std::size_t n = extent(2, 4);
  const auto x = random_tensor<2>({n, n});
  const auto v = random_tensor<2>({n, n});
  CHECK(hvp_error([](auto p) { return sf::linalg::trace(sf::matmul(p, p)); }, x, v) < 1e-6);
  CHECK(hvp_error([](auto p) { return sf::linalg::trace(sf::linalg::set_diag(p * p, sf::square(sf::linalg::diag_part(p)))); }, x, v) <
        1e-6);
}
