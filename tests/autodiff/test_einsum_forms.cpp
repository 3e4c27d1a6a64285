// Gradients of sf::einsum's other forms (graph/einsum.hpp): a label twice in one operand (through
// graph::diag_part, whose adjoint is set_diag of zeros), '...' and a chain of three operands,
// against central differences in float64 on random extents.
#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("einsum gradients: diagonals, '...' and three operands") {
  const std::size_t i = extent(1, 4), j = extent(1, 4), k = extent(1, 3), b = extent(1, 3);
  const auto sq = random_tensor<3>({b, i, i});
  CHECK(check_gradients([](auto p) { return sf::sin(sf::einsum<"bii->ib">(p)) + sf::einsum<"bjj->b">(p); }, sq) == sq.size());
  const auto a = random_tensor<3>({b, i, j});
  const auto c = random_tensor<2>({j, k});
  CHECK(check_gradients([](auto p, auto q) { return sf::tanh(sf::einsum<"...ij,jk->...ik">(p, q)); }, a, c) == a.size() + c.size());
  const auto m = random_tensor<2>({i, j});
  const auto w = random_tensor<2>({k, i});
  CHECK(check_gradients([](auto p, auto q, auto r) { return sf::cos(sf::einsum<"ij,jk,ki->i">(p, q, r)); }, m, c, w) ==
        m.size() + c.size() + w.size());
}
