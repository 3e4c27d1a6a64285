// Gradients of matmul (matrix-matrix, matrix-vector, vector-matrix, dot, batched with broadcast
// batch dims) and of the shape ops, against central differences (float64, random extents).
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

TEST_CASE("matmul: batched, with a broadcast batch dimension and a bias") {
  xt::xtensor_fixed<double, xt::xshape<3, 2, 4>> a;
  xt::xtensor_fixed<double, xt::xshape<1, 4, 5>> b;  // broadcast over a's batch of 3
  xt::xtensor_fixed<double, xt::xshape<5>> bias;
  fill(a), fill(b), fill(bias);
  const auto f = [](auto x, auto w, auto c) { return sf::sigmoid(sf::matmul(x, w) + c); };
  CHECK(check_gradients(f, a, b, bias) == 24 + 20 + 5);
}

TEST_CASE("a two-layer network's loss, every parameter") {
  const std::size_t batch = extent(1, 5), in = extent(1, 6), hidden = extent(1, 7);
  const auto loss = [](auto w1, auto b1, auto w2, auto x, auto y) {
    const auto h = sf::relu(sf::matmul(x, w1) + b1);
    return sf::reduce_mean(sf::square(sf::matmul(h, w2) - y));
  };
  CHECK(check_gradients(loss, random_tensor<2>({in, hidden}), random_tensor<1>({hidden}), random_tensor<1>({hidden}),
                        random_tensor<2>({batch, in}), random_tensor<1>({batch})) ==
        in * hidden + 2 * hidden + batch * in + batch);
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
