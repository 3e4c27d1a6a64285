// Gradients of softmax, log_softmax, reduce_logsumexp and l2_normalize against central
// differences (float64), and softmax cross-entropy against its closed form (float32).
#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("softmax, log_softmax, reduce_logsumexp, l2_normalize") {
  const std::size_t r = extent(1, 5), c = extent(1, 13);
  INFO(r << " x " << c);
  const auto x = random_tensor<2>({r, c}), w = random_tensor<2>({r, c});
  CHECK(check_gradients([](auto a, auto b) { return sf::softmax(a) * b; }, x, w) == 2 * r * c);
  CHECK(check_gradients([](auto a, auto b) { return sf::log_softmax(a, sf::axes<0>{}) * b; }, x, w) == 2 * r * c);
  CHECK(check_gradients([](auto a) { return sf::reduce_logsumexp(a * 0.5); }, x) == r * c);
  CHECK(check_gradients([](auto a, auto b) { return sf::l2_normalize(a, sf::axes<1>{}) * b; }, x, w) == 2 * r * c);
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
