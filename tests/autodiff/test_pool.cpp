// Gradients of sf::max_pool / sf::avg_pool (TF's MaxPoolGrad / AvgPoolGrad nodes) against central
// differences in float64, 1-D and 2-D, VALID and SAME, overlapping and strided windows, static
// and run-time shapes of random extents; and the exact routing of ties and of SAME's padding.
#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("pooling gradients: 2-D, VALID and SAME, static shapes, in a small network") {
  xt::xtensor_fixed<double, xt::xshape<2, 6, 5, 3>> x;
  xt::xtensor_fixed<double, xt::xshape<3>> bias;
  fill(x), fill(bias);
  const auto net = [](auto image, auto b) {
    return sf::reduce_sum(sf::tanh(sf::max_pool2d(image, sf::ksize<3>, sf::strides<2>, sf::padding::same) + b)) +
           sf::reduce_sum(sf::square(sf::avg_pool2d(image * b, sf::ksize<2, 3>, sf::strides<1, 2>)));
  };
  CHECK(check_gradients(net, x, bias) == 180 + 3);
}

TEST_CASE("pooling gradients: run-time shapes of random extents, 1-D and 2-D, overlapping windows") {
  std::mt19937 rng(17);
  std::uniform_int_distribution<std::size_t> d(1, 4);
  for (int round = 0; round < 3; ++round) {
    const std::size_t n = d(rng), c = d(rng), h = 2 + d(rng), w = 2 + d(rng);
    INFO("x " << n << "x" << h << "x" << w << "x" << c);
    const auto x = random_tensor<4>({n, h, w, c});
    const auto overlapping = [](auto image) {
      return sf::sin(sf::max_pool2d(image, sf::ksize<2>, sf::strides<1>)) * sf::avg_pool2d(image, sf::ksize<2>, sf::strides<1>);
    };
    CHECK(check_gradients(overlapping, x) == x.size());
    const auto same = [](auto image) { return sf::exp(sf::avg_pool2d(image, sf::ksize<3>, sf::strides<2>, sf::padding::same)); };
    CHECK(check_gradients(same, x) == x.size());
    const auto x1 = random_tensor<3>({n, w + 2, c});
    const auto one_d = [](auto signal) {
      return sf::square(sf::max_pool1d(signal, sf::ksize<3>, sf::strides<2>, sf::padding::same)) +
             sf::reduce_sum(sf::avg_pool1d(signal, sf::ksize<2>, sf::strides<1>));
    };
    CHECK(check_gradients(one_d, x1) == x1.size());
  }
}

TEST_CASE("pooling gradients: a tie goes to the window's first maximum; SAME's padding takes no share") {
  auto max_grad = sf::grad<0>([](auto x) { return sf::reduce_sum(sf::max_pool2d(x, sf::ksize<2>, sf::strides<1>)); });
  // windows (2x2, stride 1) of [[1, 3, 3], [3, 0, 2]]: maxima at (0,1) [tie with (1,0)] and (0,1) [tie with (0,2)]
  const xt::xtensor<double, 4> x = xt::xtensor<double, 4>({{{{1}, {3}, {3}}, {{3}, {0}, {2}}}});
  CHECK((xt::xtensor<double, 4>(max_grad(x)) == xt::xtensor<double, 4>({{{{0}, {2}, {0}}, {{0}, {0}, {0}}}})));
  auto avg_grad = sf::grad<0>([](auto x) { return sf::reduce_sum(sf::avg_pool2d(x, sf::ksize<2>, sf::padding::same)); });
  // a 3x3 input, 2x2 windows at stride 2 with SAME: windows of 4, 2, 2 and 1 elements
  const xt::xtensor<double, 4> ones = xt::ones<double>({1, 3, 3, 1});
  const xt::xtensor<double, 4> expected = xt::xtensor<double, 4>({{{{0.25}, {0.25}, {0.5}}, {{0.25}, {0.25}, {0.5}}, {{0.5}, {0.5}, {1}}}});
  CHECK((xt::xtensor<double, 4>(avg_grad(ones)) == expected));
}

TEST_CASE("max_pool's second derivative (MaxPoolGradGrad): jvp, Hessian-vector products and a third derivative") {
  std::mt19937 rng(29);
  std::uniform_int_distribution<std::size_t> d(1, 4);
  for (int round = 0; round < 3; ++round) {
    const std::size_t n = d(rng), c = d(rng), h = 2 + d(rng), w = 2 + d(rng);
    INFO("x " << n << "x" << h << "x" << w << "x" << c);
    const auto x = random_tensor<4>({n, h, w, c}), v = random_tensor<4>({n, h, w, c});
    const auto overlapping = [](auto image) { return sf::tanh(sf::max_pool2d(image, sf::ksize<2>, sf::strides<1>)); };
    CHECK(jvp_error(overlapping, x, v) < 1e-6);
    const auto loss = [](auto image) {
      return sf::reduce_sum(sf::square(sf::max_pool2d(image, sf::ksize<3>, sf::strides<2>, sf::padding::same))) +
             sf::reduce_sum(sf::sin(sf::max_pool2d(image * image, sf::ksize<2>, sf::strides<1>)));
    };
    CHECK(hvp_error(loss, x, v) < 1e-6);
    const auto x1 = random_tensor<3>({n, w + 2, c}), v1 = random_tensor<3>({n, w + 2, c});
    const auto one_d = [](auto signal) {
      return sf::reduce_sum(sf::exp(sf::max_pool1d(signal, sf::ksize<3>, sf::strides<2>, sf::padding::same)));
    };
    CHECK(hvp_error(one_d, x1, v1) < 1e-6);
    // the derivative of J . t with respect to the tangent t: MaxPoolGradGrad's own adjoint (MaxPoolGrad)
    const auto directional = [](auto image, auto t) {
      const auto [value, product] = sf::jvp<0>([](auto i) { return sf::max_pool2d(i, sf::ksize<2>, sf::strides<1>); })(image, t);
      return sf::square(product) + value;
    };
    CHECK(check_gradients(directional, x, v) == 2 * x.size());
  }
}

TEST_CASE("max_pool's jvp reads the tangent at each window's first maximum (ties as MaxPoolGrad)") {
  // windows (2x2, stride 1) of [[1, 3, 3], [3, 0, 2]]: both maxima at (0,1), tied with (1,0) and (0,2)
  const xt::xtensor<double, 4> x = xt::xtensor<double, 4>({{{{1}, {3}, {3}}, {{3}, {0}, {2}}}});
  const xt::xtensor<double, 4> t = xt::xtensor<double, 4>({{{{10}, {20}, {30}}, {{40}, {50}, {60}}}});
  const auto [y, dy] = sf::jvp<0>([](auto a) { return sf::max_pool2d(a, sf::ksize<2>, sf::strides<1>); })(x, t);
  CHECK((xt::xtensor<double, 4>(y) == xt::xtensor<double, 4>({{{{3}, {3}}}})));
  CHECK((xt::xtensor<double, 4>(dy) == xt::xtensor<double, 4>({{{{20}, {20}}}})));
  // float32 with channels on the SIMD path (19 channels: a batch pass and a scalar rest)
  xt::xtensor<float, 4> xf = xt::zeros<float>({1, 2, 2, 19}), tf = xt::zeros<float>({1, 2, 2, 19});
  for (std::size_t k = 0; k < 19; ++k)
    for (std::size_t p = 0; p < 4; ++p) {
      xf(0, p / 2, p % 2, k) = float((p + k) % 4);  // the maximum (3) at tap (3 - k % 4) % 4
      tf(0, p / 2, p % 2, k) = float(100 * p + k);
    }
  const auto [yf, dyf] = sf::jvp<0>([](auto a) { return sf::max_pool2d(a, sf::ksize<2>); })(xf, tf);
  for (std::size_t k = 0; k < 19; ++k) {
    const std::size_t p = (3 - k % 4) % 4;
    CHECK(dyf(0, 0, 0, k) == float(100 * p + k));
    CHECK(yf(0, 0, 0, k) == 3.f);
  }
}
