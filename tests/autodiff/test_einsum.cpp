// Gradients of sf::einsum and sf::tensordot (graph/einsum.hpp: composites of transpose,
// expand_dims, squeeze, matmul, multiply and reduce_sum, differentiated through their rules)
// against central differences in float64, on random extents: the matmul path (plain, swapped,
// batched, matrix-vector) and the fused path (two contracted labels, one operand, broadcasting).
// Diagonals, '...' and three operands: test_einsum_forms.cpp.
#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("einsum gradients: the matmul path") {
  const std::size_t i = extent(1, 4), j = extent(1, 5), k = extent(1, 4), b = extent(1, 3);
  const auto x = random_tensor<2>({i, j});
  const auto y = random_tensor<2>({j, k});
  const auto products = [](auto p, auto q) {
    return sf::tanh(sf::einsum<"ij,jk->ik">(p, q)) + sf::transpose(sf::einsum<"ij,jk->ki">(p, q)) * 0.5;
  };
  CHECK(check_gradients(products, x, y) == x.size() + y.size());
  const auto u = random_tensor<3>({b, i, j});
  const auto v = random_tensor<3>({b, k, j});
  CHECK(check_gradients([](auto p, auto q) { return sf::sin(sf::einsum<"bij,bkj->bki">(p, q)); }, u, v) == u.size() + v.size());
  const auto w = random_tensor<1>({j});
  CHECK(check_gradients([](auto p, auto q) { return sf::square(sf::einsum<"ij,j->i">(p, q)); }, x, w) == x.size() + w.size());
}

TEST_CASE("einsum gradients: the fused path, one operand, tensordot") {
  const std::size_t i = extent(1, 4), j = extent(1, 4), k = extent(1, 4);
  const auto x = random_tensor<3>({i, j, k});
  const auto y = random_tensor<2>({j, k});
  CHECK(check_gradients([](auto p, auto q) { return sf::exp(sf::einsum<"ijk,jk->i">(p, q) * 0.1); }, x, y) ==
        x.size() + y.size());
  CHECK(check_gradients([](auto p) { return sf::cos(sf::einsum<"ijk->kj">(p)); }, x) == x.size());
  CHECK(check_gradients([](auto p, auto q) { return sf::einsum<"ij,ij->i">(p, q) * sf::einsum<"ij,ij">(q, q); },
                        random_tensor<2>({i, j}), random_tensor<2>({i, j})) == 2 * i * j);
  // a label of extent 1 broadcast against 3: its gradient sums over the 3 (static, so allowed)
  xt::xtensor_fixed<double, xt::xshape<1, 3>> row;
  xt::xtensor_fixed<double, xt::xshape<4, 3>> m;
  fill(row);
  fill(m);
  CHECK(check_gradients([](auto r, auto q) { return sf::einsum<"ij,ij->ij">(r, q); }, row, m) == 15);
  const auto a = random_tensor<3>({i, j, k});
  const auto c = random_tensor<3>({j, k, extent(1, 3)});
  CHECK(check_gradients([](auto p, auto q) { return sf::tanh(sf::tensordot<2>(p, q)); }, a, c) == a.size() + c.size());
}
