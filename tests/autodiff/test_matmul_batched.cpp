// Gradients of batched matmul (with a broadcast batch dimension and a bias, and with a vector
// operand) and of the shape ops,
// against central differences (float64).
#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("matmul: batched, with a broadcast batch dimension and a bias") {
  xt::xtensor_fixed<double, xt::xshape<3, 2, 4>> a;
  xt::xtensor_fixed<double, xt::xshape<1, 4, 5>> b;  // broadcast over a's batch of 3
  xt::xtensor_fixed<double, xt::xshape<5>> bias;
  fill(a), fill(b), fill(bias);
  const auto f = [](auto x, auto w, auto c) { return sf::sigmoid(sf::matmul(x, w) + c); };
  CHECK(check_gradients(f, a, b, bias) == 24 + 20 + 5);
}

TEST_CASE("matmul: batched matrices with a vector on either side (the vector's adjoint summed over the batch)") {
  xt::xtensor_fixed<double, xt::xshape<2, 3, 4>> m;
  xt::xtensor_fixed<double, xt::xshape<4>> v;
  xt::xtensor_fixed<double, xt::xshape<3>> u;
  fill(m), fill(v), fill(u);
  CHECK(check_gradients([](auto a, auto b) { return sf::tanh(sf::matmul(a, b)); }, m, v) == 28);  // [2,3,4] x [4]
  CHECK(check_gradients([](auto a, auto b) { return sf::tanh(sf::matmul(a, b)); }, u, m) == 27);  // [3] x [2,3,4]
  // rank 4 with a batch axis of 1, run-time extents
  const auto r = random_tensor<4>({2, 1, 3, 4});
  CHECK(check_gradients([](auto a, auto b) { return sf::square(sf::matmul(a, b)) * 0.5; }, r, random_tensor<1>({4})) == 28);
  CHECK(check_gradients([](auto a, auto b) { return sf::square(sf::matmul(a, b)) * 0.5; }, random_tensor<1>({3}), r) == 27);
}

TEST_CASE("shape ops: transpose, reshape, expand_dims, squeeze, broadcast_to") {
  xt::xtensor_fixed<double, xt::xshape<2, 3, 4>> x;
  xt::xtensor_fixed<double, xt::xshape<3, 1>> c;
  fill(x), fill(c);
  const auto g = [](auto t, auto col) {
    const auto moved = sf::transpose(t, sf::axes<2, 0, 1>{});
    const auto flat = sf::reshape<sf::shape<8, 3>>(moved);
    const auto row = sf::broadcast_to<sf::shape<8, 3>>(sf::squeeze(col, sf::axes<1>{}));
    return sf::expand_dims(sf::tanh(flat) * row, sf::axes<0>{}) * sf::reduce_sum(sf::transpose(flat));
  };
  CHECK(check_gradients(g, x, c) == 24 + 3);
}
