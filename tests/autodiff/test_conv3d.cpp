// Gradients of sf::conv3d (graph/conv3d.hpp: TF's Conv3DBackpropInputV2 / Conv3DBackpropFilterV2)
// against central differences in float64: every option on random run-time shapes, static shapes,
// NCDHW, and second derivatives (the gradient nodes' own adjoints); and conv2d over extra batch
// axes.
#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("conv3d gradients with strides, dilations, padding and groups, random run-time shapes", "[autodiff][conv3d]") {
  for (int round = 0; round < 2; ++round) {
    const std::size_t groups = round + 1, cg = extent(1, 2), og = extent(1, 2);
    const auto x = random_tensor<5>({extent(1, 2), extent(4, 5), extent(4, 5), extent(3, 5), groups * cg});
    const auto f = random_tensor<5>({extent(1, 2), 2, extent(1, 2), cg, groups * og});
    INFO("x " << x.shape(0) << "x" << x.shape(1) << "x" << x.shape(2) << "x" << x.shape(3) << "x" << x.shape(4) << ", f "
              << f.shape(0) << "x2x" << f.shape(2) << "x" << cg << "x" << groups * og);
    const auto same = [](auto a, auto b) { return sf::tanh(sf::conv3d(a, b, sf::padding::same, sf::strides<2, 1, 2>)); };
    CHECK(check_gradients(same, x, f) == x.size() + f.size());
    const auto padded = [](auto a, auto b) {
      return sf::square(sf::conv3d(a, b, sf::padding::explicit_<1, 0, 0, 1, 1, 1>, sf::dilations<2, 1, 1>));
    };
    CHECK(check_gradients(padded, x, f) == x.size() + f.size());
  }
}

TEST_CASE("conv3d gradients: static shapes and NCDHW", "[autodiff][conv3d]") {
  const auto x = random_tensor<5>({1, 2, 4, 3, 3});  // NCDHW: 2 channels, a 4x3x3 volume
  const auto f = random_tensor<5>({2, 2, 2, 2, 3});
  const auto ncdhw = [](auto a, auto b) { return sf::tanh(sf::conv3d(a, b, sf::data_format::ncdhw, sf::padding::same)); };
  CHECK(check_gradients(ncdhw, x, f) == x.size() + f.size());
  xt::xtensor_fixed<double, xt::xshape<1, 3, 4, 4, 2>> xs = random_tensor<5>({1, 3, 4, 4, 2});
  xt::xtensor_fixed<double, xt::xshape<2, 3, 2, 2, 2>> fs = random_tensor<5>({2, 3, 2, 2, 2});
  const auto strided = [](auto a, auto b) { return sf::square(sf::conv3d(a, b, sf::strides<1, 2, 2>)); };
  CHECK(check_gradients(strided, xs, fs) == xs.size() + fs.size());
}

TEST_CASE("second derivatives through conv3d", "[autodiff][conv3d]") {
  const auto x = random_tensor<5>({1, 3, 4, 4, 2});
  const auto v = random_tensor<5>({1, 3, 4, 4, 2});
  const auto f = random_tensor<5>({2, 2, 2, 2, 2});
  CHECK(hvp_error([](auto a, auto b) { return sf::reduce_sum(sf::square(sf::conv3d(a * a, b, sf::padding::same))); }, x, v, f) <
        1e-6);
  CHECK(hvp_error([](auto b, auto a) { return sf::reduce_sum(sf::tanh(sf::conv3d(a, b * b, sf::dilations<1, 2, 1>))); }, f,
                  random_tensor<5>({2, 2, 2, 2, 2}), x) < 1e-6);
}

TEST_CASE("conv2d gradients over extra batch axes", "[autodiff][conv]") {
  const auto x = random_tensor<5>({2, 2, 4, 3, 2});
  const auto f = random_tensor<4>({2, 2, 2, 3});
  const auto conv = [](auto a, auto b) { return sf::tanh(sf::conv2d(a, b, sf::padding::same)); };
  CHECK(check_gradients(conv, x, f) == x.size() + f.size());
}
