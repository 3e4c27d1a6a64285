// Reverse accumulation (autodiff/backprop.hpp) at values a program reads several times by hand:
// a matmul (its type determines its values, so the gradient builder keys its copies by type and
// they are one accumulation point) and a reduction reaching the target at two shapes (contributions
// of shapes [r, n] and [n] summed into one adjoint); against central differences in float64.
#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("backprop: a matmul read three times by hand, and a reduction read at two shapes") {
  // m is materialized, its type determines its values, and it is read along three paths: one
  // accumulation point
  const auto product = [](auto a, auto b) {
    const auto m = sf::matmul(a, b);
    return m * m + sf::sin(m) * 0.5;
  };
  const std::size_t rows = extent(1, 4), inner = extent(1, 4), cols = extent(1, 4);
  CHECK(check_gradients(product, random_tensor<2>({rows, inner}, -1, 1), random_tensor<2>({inner, cols}, -1, 1)) ==
        rows * inner + inner * cols);

  // s (shape [n]) reaches the target broadcast against x [r, n] and elementwise: contributions of
  // shapes [r, n] and [n] summed into one adjoint
  const auto mixed = [](auto x) {
    const auto s = sf::reduce_sum(x * x, sf::axes<0>{});
    return sf::reduce_sum(x * s) + sf::reduce_sum(s * s) + sf::reduce_max(s);
  };
  const auto x = random_tensor<2>({extent(1, 4), extent(1, 5)}, -1, 1);
  CHECK(check_gradients(mixed, x) == x.size());
}
