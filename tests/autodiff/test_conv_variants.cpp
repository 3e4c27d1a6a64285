// Gradients of sf::conv1d and sf::conv2d_transpose (graph/conv.hpp: conv2d and its image gradient,
// differentiated through their rules) against central differences in float64, VALID and SAME,
// strides 1 and 2, run-time and static shapes.
#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("conv1d gradients: VALID and SAME, strides 1 and 2, random run-time extents") {
  const std::size_t k = extent(1, 3), w = k + extent(0, 4), c = extent(1, 3), o = extent(1, 3);
  const auto x = random_tensor<3>({extent(1, 2), w, c});
  const auto f = random_tensor<3>({k, c, o});
  CHECK(check_gradients([](auto a, auto b) { return sf::tanh(sf::conv1d(a, b)); }, x, f) == x.size() + f.size());
  CHECK(check_gradients([](auto a, auto b) { return sf::square(sf::conv1d(a, b, sf::padding::same, sf::strides<2>)); }, x, f) ==
        x.size() + f.size());
}

TEST_CASE("conv2d_transpose gradients: SAME stride 2 and VALID stride 1") {
  xt::xtensor_fixed<double, xt::xshape<1, 3, 2, 4>> y;
  xt::xtensor_fixed<double, xt::xshape<3, 2, 2, 4>> f;
  fill(y), fill(f);
  const auto up = [](auto a, auto b) { return sf::sin(sf::conv2d_transpose(a, b, sf::shape<1, 5, 4, 2>{}, sf::padding::same, sf::strides<2>)); };
  CHECK(check_gradients(up, y, f) == 24 + 48);
  xt::xtensor_fixed<double, xt::xshape<1, 3, 3, 4>> yv;
  fill(yv);
  const auto valid = [](auto a, auto b) { return sf::square(sf::conv2d_transpose(a, b, sf::shape<1, 5, 4, 2>{})); };
  CHECK(check_gradients(valid, yv, f) == 36 + 48);
}

TEST_CASE("conv2d_transpose to sf::shape_of(skip): gradients w.r.t. the input and the filter, none w.r.t. skip") {
  const std::size_t n = extent(1, 2), h = extent(2, 6), w = extent(2, 5), c = extent(1, 3), o = extent(1, 3);
  const auto skip = random_tensor<4>({n, h, w, c});
  const auto f = random_tensor<4>({3, 2, c, o});
  const auto y = random_tensor<4>({n, (h + 1) / 2, (w + 1) / 2, o});  // SAME, stride 2
  // a U-Net step: the transpose added to the skip connection whose shape it takes
  const auto step = [](auto a, auto b, auto s) {
    return sf::tanh(sf::conv2d_transpose(a, b, sf::shape_of(s), sf::padding::same, sf::strides<2>) + s);
  };
  CHECK(check_gradients(step, y, f, skip) == y.size() + f.size() + skip.size());
  // skip's gradient is the addition's alone (its shape gives none): d/ds sum(T + s) = 1
  auto d = sf::grad<2>([](auto a, auto b, auto s) {
    return sf::reduce_sum(sf::conv2d_transpose(a, b, sf::shape_of(s), sf::padding::same, sf::strides<2>) + s);
  });
  CHECK(xt::all(xt::equal(d(y, f, skip), 1.0)));
}
