// sf::jvp and sf::hessian_vector_product through conv2d: the second-derivative rules of its
// gradient nodes (Conv2DBackpropInput / Conv2DBackpropFilter, bilinear in the other operand and
// the output's gradient; autodiff/rules.hpp). Against central differences in float64 on random
// run-time shapes, and exactly for a bilinear loss's cross terms.
#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("second derivatives through conv2d: both operands, SAME with stride 2 and VALID") {
  std::mt19937 shapes(21);
  std::uniform_int_distribution<std::size_t> d(1, 3);
  for (int round = 0; round < 2; ++round) {
    const std::size_t n = d(shapes), c = d(shapes), o = d(shapes), h = 3 + d(shapes), w = 3 + d(shapes);
    INFO("x " << n << "x" << h << "x" << w << "x" << c << ", " << o << " filters");
    const auto x = random_tensor<4>({n, h, w, c}, -1, 1), dx = random_tensor<4>({n, h, w, c});
    const auto f = random_tensor<4>({2, 3, c, o}, -1, 1), df = random_tensor<4>({2, 3, c, o});
    // the loss is not quadratic in either operand, so H has both the operand's own block (through
    // the activation) and, in the jvp, the other operand's
    const auto by_image = [](auto image, auto kernel) {
      return sf::reduce_sum(sf::tanh(sf::conv2d(image, kernel, sf::padding::same, sf::strides<2>)));
    };
    const auto by_kernel = [](auto kernel, auto image) { return sf::reduce_sum(sf::sin(sf::conv2d(image, kernel))); };
    CHECK(hvp_error(by_image, x, dx, f) < 1e-6);
    CHECK(hvp_error(by_kernel, f, df, x) < 1e-6);
    CHECK(jvp_error([](auto image, auto kernel) { return sf::tanh(sf::conv2d(image, kernel)); }, x, dx, f) < 1e-7);
    CHECK(jvp_error([](auto kernel, auto image) { return sf::tanh(sf::conv2d(image, kernel, sf::padding::same)); }, f, df, x) <
          1e-7);
  }
}

TEST_CASE("second derivatives through conv2d: the cross term of a bilinear loss is exact") {
  // loss = sum(conv2d(x, f) * y): d/dx = Bi(f, y), d/df = Bf(x, y); so H_xf . v_f = Bi(v_f, y)
  // and H_fx . v_x = Bf(v_x, y), the first-order gradients taken at the tangents
  const auto x = random_tensor<4>({1, 4, 4, 2}), f = random_tensor<4>({2, 2, 2, 3}), y = random_tensor<4>({1, 3, 3, 3});
  const auto vx = random_tensor<4>({1, 4, 4, 2}), vf = random_tensor<4>({2, 2, 2, 3});
  const auto loss = [](auto image, auto kernel, auto target) { return sf::reduce_sum(sf::conv2d(image, kernel) * target); };
  const auto [hx, hf] = sf::hessian_vector_product<0, 1>(loss)(x, f, y, vx, vf);
  const auto [gx, gf] = sf::grad<0, 1>(loss)(vx, vf, y);  // the gradients at (vx, vf): Bi(vf, y), Bf(vx, y)
  REQUIRE(hx.shape() == gx.shape());
  REQUIRE(hf.shape() == gf.shape());
  for (std::size_t i = 0; i < hx.size(); ++i) CHECK(hx.data()[i] == Approx(gx.data()[i]).epsilon(1e-12));
  for (std::size_t i = 0; i < hf.size(); ++i) CHECK(hf.data()[i] == Approx(gf.data()[i]).epsilon(1e-12));
}
