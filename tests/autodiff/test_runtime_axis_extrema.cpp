// Gradients of reductions along a plain int axis (a run-time value, as a TensorFlow user writes
// it): reduce_max / reduce_min, whose ties share the adjoint as along a static axis, and plain int
// axes on rank 1 and 3, static shapes, size 0 and float32; against central differences (float64)
// and the same function written with sf::axes<k>{}. (reduce_sum / reduce_mean: test_runtime_axis.cpp.)
#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("reduce_max / reduce_min along a plain int axis: ties share the adjoint as along a static axis") {
  int axis = 1;
  const auto extrema = [&](auto x) {
    return sf::reduce_sum(sf::reduce_max(x, axis) * sf::reduce_min(x, axis)) + sf::reduce_sum(sf::reduce_max(x * x, axis, sf::keepdims));
  };
  for (std::size_t r : {std::size_t{1}, extent(2, 7)}) {
    const auto x = random_tensor<2>({r, extent(1, 11)});
    for (int a : {1, 0, -2}) {
      axis = a;
      INFO("axis " << a << ", " << x.shape()[0] << " x " << x.shape()[1]);
      CHECK(check_gradients(extrema, x) == x.size());
    }
  }
  // a tie: both maxima of row 0 get half of its adjoint, as sf::axes<1>{} gives
  const xt::xtensor<double, 2> tied = {{3., 1., 3.}, {0., 2., -1.}};
  axis = 1;
  const auto g = sf::grad([&](auto x) { return sf::reduce_sum(sf::reduce_max(x, axis)); })(tied);
  const xt::xtensor<double, 2> expected = {{0.5, 0., 0.5}, {0., 1., 0.}};
  check_same(g, expected);
  check_same(g, sf::grad([](auto x) { return sf::reduce_sum(sf::reduce_max(x, sf::axes<1>{})); })(tied));
}

TEST_CASE("plain int axes on rank 1 and 3, static shapes, size 0, float32") {
  int axis = 1;
  const auto inner = [&](auto x) { return sf::reduce_sum(sf::sigmoid(sf::reduce_mean(x, axis)) * sf::reduce_max(x * x, axis)); };
  xt::xtensor_fixed<double, xt::xshape<2, 3, 4>> x3;
  fill(x3);
  for (int a : {0, 1, 2, -1}) {
    axis = a;
    INFO("axis " << a);
    CHECK(check_gradients(inner, x3) == 24);
  }
  const auto whole = [](auto v) { return sf::reduce_sum(sf::reduce_sum(v * v, 0) + sf::reduce_max(v, -1)); };
  const auto v = random_tensor<1>({7});
  CHECK(check_gradients(whole, v) == 7);
  // a static extent 1 stays static in the result's type, so an adjoint broadcast along it is summed
  xt::xtensor_fixed<double, xt::xshape<1, 6>> row;
  fill(row);
  const xt::xtensor_fixed<double, xt::xshape<3, 1>> spread = {{1.}, {-2.}, {0.5}};
  for (int a : {0, 1}) {
    axis = a;
    const auto widened = [&](auto x, auto s) { return sf::reduce_sum(sf::exp(sf::reduce_mean(x, axis, sf::keepdims) * s) * x); };
    CHECK(check_gradients(widened, row, spread) == 9);
  }
  // size 0: the gradient has the operand's (empty) extents
  for (auto [r, c] : {std::pair<std::size_t, std::size_t>{0, 3}, {3, 0}}) {
    const auto empty = xt::xtensor<double, 2>::from_shape({r, c});
    for (int a : {0, 1}) {
      axis = a;
      const auto g = sf::grad([&](auto x) { return sf::reduce_sum(sf::reduce_sum(x, axis) * 2.0); })(empty);
      CHECK(g.shape()[0] == r);
      CHECK(g.shape()[1] == c);
    }
  }
  // float32: the same values as the static axis's gradient
  xt::xtensor<float, 2> f = {{0.5f, -1.f, 2.f}, {1.5f, 0.25f, -0.75f}};
  axis = -1;
  const auto gf = sf::grad([&](auto x) { return sf::reduce_sum(sf::square(sf::reduce_mean(x, axis))); })(f);
  check_same(gf, sf::grad([](auto x) { return sf::reduce_sum(sf::square(sf::reduce_mean(x, sf::axes<-1>{}))); })(f));
  CHECK(gf(0, 0) == Approx(2.0 * (1.5 / 3.0) / 3.0));
}
