// Gradients of reductions, softmax / log_softmax / logsumexp / l2_normalize and materialize,
// against central differences (float64, random inputs and extents).
#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("reduce_sum / reduce_mean over every axis, some axes, keepdims") {
  const auto f = [](auto x) {
    return sf::reduce_sum(sf::square(x)) * 0.5 + sf::reduce_mean(sf::tanh(x)) +
           sf::reduce_sum(sf::reduce_mean(x * x, sf::axes<1>{}) * sf::reduce_sum(x, sf::axes<1>{})) +
           sf::reduce_sum(sf::exp(x * 0.1) * sf::reduce_mean(x, sf::axes<0>{}, sf::keepdims));
  };
  for (auto [r, c] : {std::pair<std::size_t, std::size_t>{1, 1}, {1, 5}, {4, 1}, {extent(2, 9), extent(2, 21)}}) {
    INFO(r << " x " << c);
    CHECK(check_gradients(f, random_tensor<2>({r, c})) == r * c);
  }
  // a reduction over an inner axis of a rank-3 tensor, without keepdims: the adjoint gets its axis back
  const auto g = [](auto x) { return sf::sigmoid(sf::reduce_sum(x, sf::axes<1>{})) * sf::reduce_mean(x, sf::axes<0, 1>{}); };
  xt::xtensor_fixed<double, xt::xshape<2, 3, 4>> x3;
  fill(x3);
  check_gradients(g, x3);
}

TEST_CASE("reduce_max / reduce_min: the adjoint goes to the extremum, split equally among ties") {
  const auto f = [](auto x) {
    return sf::reduce_max(x) * 2.0 +
           sf::reduce_sum(sf::reduce_min(x, sf::axes<1>{}, sf::keepdims) * sf::reduce_max(x, sf::axes<0>{}, sf::keepdims)) +
           sf::reduce_sum(sf::square(sf::reduce_min(x, sf::axes<1>{})));
  };
  check_gradients(f, random_tensor<2>({extent(1, 6), extent(1, 11)}));
  auto ties = sf::grad([](auto x) { return sf::reduce_max(x); });
  xt::xtensor_fixed<double, xt::xshape<4>> x = {3.0, 1.0, 3.0, 3.0};
  const auto dx = ties(x);
  CHECK(dx(0) == Approx(1.0 / 3));
  CHECK(dx(1) == 0.0);
  CHECK(dx(3) == Approx(1.0 / 3));
}

TEST_CASE("softmax, log_softmax, reduce_logsumexp, l2_normalize") {
  const auto f = [](auto x, auto w) {
    return sf::softmax(x) * w + sf::log_softmax(x, sf::axes<0>{}) * w * w + sf::reduce_logsumexp(x * 0.5) +
           sf::l2_normalize(x, sf::axes<1>{}) * 0.3;
  };
  const std::size_t r = extent(1, 5), c = extent(1, 13);
  CHECK(check_gradients(f, random_tensor<2>({r, c}), random_tensor<2>({r, c})) == 2 * r * c);
  // float32 softmax cross-entropy against its closed form: softmax(x) - onehot
  auto ce = sf::grad([](auto logits, auto labels) { return -sf::reduce_sum(labels * sf::log_softmax(logits)); });
  xt::xtensor_fixed<float, xt::xshape<2, 3>> logits = {{1.f, 2.f, 3.f}, {0.5f, -1.f, 0.f}};
  xt::xtensor_fixed<float, xt::xshape<2, 3>> labels = {{0.f, 0.f, 1.f}, {1.f, 0.f, 0.f}};
  const auto d = ce(logits, labels);
  for (std::size_t i = 0; i < 2; ++i) {
    float m = -1e30f, s = 0;
    for (std::size_t j = 0; j < 3; ++j) m = std::max(m, logits(i, j));
    for (std::size_t j = 0; j < 3; ++j) s += std::exp(logits(i, j) - m);
    for (std::size_t j = 0; j < 3; ++j) CHECK(d(i, j) == Approx(std::exp(logits(i, j) - m) / s - labels(i, j)).epsilon(1e-5));
  }
}

TEST_CASE("materialize and stop_gradient") {
  const auto f = [](auto x, auto y) {
    const auto shared = sf::materialize(sf::tanh(x * y));
    return shared * shared + sf::stop_gradient(x * 100.0) * 0.0 + x;
  };
  const std::size_t n = extent(1, 30);
  check_gradients(f, random_tensor<1>({n}), random_tensor<1>({n}));
  auto g = sf::grad<0>([](auto x) { return x * sf::stop_gradient(x); });
  xt::xtensor_fixed<double, xt::xshape<2>> x = {3.0, -2.0};
  const auto dx = g(x);
  CHECK(dx(0) == 3.0);  // d/dx (x * c) with c = x held constant
  CHECK(dx(1) == -2.0);
}
