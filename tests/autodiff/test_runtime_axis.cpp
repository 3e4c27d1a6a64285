// Gradients of reductions along a plain int axis (a run-time value: `sf::reduce_sum(x, 1)`, as a
// TensorFlow user writes it) and of expand_dims / squeeze at a plain int axis, against central
// differences (float64, random inputs and extents) and against the same function written with
// sf::axes<k>{}. expand_dims / squeeze, second derivatives and forward mode:
// test_runtime_axis_products.cpp.
#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("reduce_sum / reduce_mean along a plain int axis: finite differences and the static axis's gradient") {
  // the lambdas read `axis` when a function traces them (check_gradients makes new functions, so
  // each value of it is traced anew); the traced node keeps the number, the graph's type does not
  int axis = 0;
  const auto summed = [&](auto x) { return sf::reduce_sum(sf::tanh(sf::reduce_sum(x * x, axis)) * 0.5); };
  const auto averaged = [&](auto x) { return sf::reduce_sum(sf::exp(sf::reduce_mean(x, axis, sf::keepdims)) * x); };
  // the kept axis broadcast back (a layer norm's centring)
  const auto centred = [&](auto x) {
    const auto m = sf::reduce_mean(x, axis, sf::keepdims);
    return sf::reduce_sum(sf::square(x - m) * sf::reduce_max(x, axis, sf::keepdims));
  };
  const auto summed_0 = [](auto x) { return sf::reduce_sum(sf::tanh(sf::reduce_sum(x * x, sf::axes<0>{})) * 0.5); };
  const auto summed_1 = [](auto x) { return sf::reduce_sum(sf::tanh(sf::reduce_sum(x * x, sf::axes<1>{})) * 0.5); };
  const auto averaged_1 = [](auto x) { return sf::reduce_sum(sf::exp(sf::reduce_mean(x, sf::axes<1>{}, sf::keepdims)) * x); };
  for (auto [r, c] : {std::pair<std::size_t, std::size_t>{1, 1}, {1, 6}, {5, 1}, {extent(2, 9), extent(2, 21)}}) {
    INFO(r << " x " << c);
    const auto x = random_tensor<2>({r, c});
    for (int a : {0, 1, -1, -2}) {
      INFO("axis " << a);
      axis = a;
      CHECK(check_gradients(summed, x) == r * c);
      CHECK(check_gradients(averaged, x) == r * c);
      CHECK(check_gradients(centred, x) == r * c);
    }
    axis = 0;
    check_same(sf::grad(summed)(x), sf::grad(summed_0)(x));
    axis = -1;
    check_same(sf::grad(summed)(x), sf::grad(summed_1)(x));
    check_same(sf::grad(averaged)(x), sf::grad(averaged_1)(x));
  }
}

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
