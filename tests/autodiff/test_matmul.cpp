// Gradients of matmul (matrix-matrix, matrix-vector, vector-matrix, dot), against central
// differences (float64, random extents). Batched products: test_matmul_batched.cpp; a network's
// loss: test_mlp.cpp. (Split so that no translation unit needs more than 2 GB of compiler.)
#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("matmul: every operand rank combination") {
  const std::size_t m = extent(1, 6), k = extent(1, 9), n = extent(1, 7);
  INFO(m << " x " << k << " x " << n);
  const auto mm = [](auto a, auto b) { return sf::tanh(sf::matmul(a, b)); };
  CHECK(check_gradients(mm, random_tensor<2>({m, k}), random_tensor<2>({k, n})) == m * k + k * n);
  CHECK(check_gradients(mm, random_tensor<2>({m, k}), random_tensor<1>({k})) == m * k + k);
  CHECK(check_gradients(mm, random_tensor<1>({k}), random_tensor<2>({k, n})) == k + k * n);
  CHECK(check_gradients(mm, random_tensor<1>({k}), random_tensor<1>({k})) == 2 * k);
}
