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

TEST_CASE("matmul: transpose_a and transpose_b (tf.linalg.matmul's options), batched") {
  const std::size_t m = extent(1, 5), k = extent(1, 6), n = extent(1, 5);
  INFO(m << " x " << k << " x " << n);
  const auto both = [](auto a, auto b) {
    return sf::tanh(sf::matmul(a, b, sf::transpose_a, sf::transpose_b)) + sf::matmul(sf::matrix_transpose(a), b, sf::adjoint_b);
  };
  // a: [k, m] and b: [n, k], both read transposed: [m, k] x [k, n]
  CHECK(check_gradients(both, random_tensor<2>({k, m}), random_tensor<2>({n, k})) == m * k + k * n);
  const auto batched = [](auto a, auto b) { return sf::sin(sf::matmul(a, b, sf::transpose_b)); };
  CHECK(check_gradients(batched, random_tensor<3>({2, m, k}), random_tensor<2>({n, k})) == 2 * m * k + k * n);
}
