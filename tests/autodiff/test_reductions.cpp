// Gradients of reduce_sum / reduce_mean against central differences (float64, random inputs and
// extents). Extrema, materialize, stop_gradient: test_reduce_extrema.cpp; softmax: test_softmax.cpp.
#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("reduce_sum / reduce_mean over every axis, some axes, keepdims") {
  // three small functions rather than one sum of them: the compiler's cost of a gradient grows
  // faster than the graph (docs/architecture.md, "Gradients")
  const auto whole = [](auto x) { return sf::reduce_sum(sf::square(x)) * 0.5 + sf::reduce_mean(sf::tanh(x)); };
  const auto rows = [](auto x) { return sf::reduce_sum(sf::reduce_mean(x * x, sf::axes<1>{}) * sf::reduce_sum(x, sf::axes<1>{})); };
  const auto columns = [](auto x) { return sf::reduce_sum(sf::exp(x * 0.1) * sf::reduce_mean(x, sf::axes<0>{}, sf::keepdims)); };
  for (auto [r, c] : {std::pair<std::size_t, std::size_t>{1, 1}, {1, 5}, {4, 1}, {extent(2, 9), extent(2, 21)}}) {
    INFO(r << " x " << c);
    const auto x = random_tensor<2>({r, c});
    CHECK(check_gradients(whole, x) == r * c);
    CHECK(check_gradients(rows, x) == r * c);
    CHECK(check_gradients(columns, x) == r * c);
  }
  // a reduction over an inner axis of a rank-3 tensor, without keepdims: the adjoint gets its axis back
  const auto g = [](auto x) { return sf::sigmoid(sf::reduce_sum(x, sf::axes<1>{})) * sf::reduce_mean(x, sf::axes<0, 1>{}); };
  xt::xtensor_fixed<double, xt::xshape<2, 3, 4>> x3;
  fill(x3);
  check_gradients(g, x3);
}

TEST_CASE("reduce_prod: the product of the other elements (no division: zeros are fine), every axis form") {
  const auto whole = [](auto x) { return sf::reduce_prod(x * 0.9); };
  const auto rows = [](auto x) { return sf::reduce_sum(sf::tanh(sf::reduce_prod(x, sf::axes<1>{}))); };
  const auto kept = [](auto x) { return sf::reduce_sum(x * sf::reduce_prod(x, sf::axes<0>{}, sf::keepdims)); };
  const auto int_axis = [](auto x) { return sf::reduce_sum(sf::square(sf::reduce_prod(x, -1))); };
  for (auto [r, c] : {std::pair<std::size_t, std::size_t>{1, 1}, {1, 4}, {3, 1}, {extent(2, 4), extent(2, 5)}}) {
    INFO(r << " x " << c);
    const auto x = random_tensor<2>({r, c}, 0.5, 1.5);
    CHECK(check_gradients(whole, x) == r * c);
    CHECK(check_gradients(rows, x) == r * c);
    CHECK(check_gradients(kept, x) == r * c);
    CHECK(check_gradients(int_axis, x) == r * c);
  }
  // two axes of three, and the other two
  const auto inner = [](auto x) { return sf::reduce_sum(sf::reduce_prod(x, sf::axes<0, 2>{}) * 0.5); };
  const auto outer = [](auto x) { return sf::reduce_sum(sf::reduce_prod(x, sf::axes<1, 2>{}, sf::keepdims) * x); };
  xt::xtensor_fixed<double, xt::xshape<2, 3, 2>> x3;
  fill(x3, 0.5, 1.5);
  CHECK(check_gradients(inner, x3) == 12);
  CHECK(check_gradients(outer, x3) == 12);
  // zeros: TensorFlow's values (the other elements' product; 0 wherever two zeros share a line)
  const xt::xtensor<double, 2> z = {{2., 0., 3.}, {0., 4., 0.}, {1., 2., 5.}};
  const auto g = sf::grad([](auto x) { return sf::reduce_sum(sf::reduce_prod(x, sf::axes<1>{})); })(z);
  const xt::xtensor<double, 2> expected = {{0., 6., 0.}, {0., 0., 0.}, {10., 5., 2.}};
  CHECK((g == expected));
  const auto gi = sf::grad([](auto x) { return sf::reduce_sum(sf::reduce_prod(x, 1)); })(z);
  CHECK((gi == expected));
  const xt::xtensor<double, 1> one_zero = {3., 0., 2., 5.};
  const auto gw = sf::grad([](auto x) { return sf::reduce_prod(x); })(one_zero);
  CHECK((gw == xt::xtensor<double, 1>{0., 30., 0., 0.}));
  // size 0: the product of nothing is 1, and the gradient is empty
  const auto empty = xt::xtensor<double, 2>::from_shape({2, 0});
  CHECK(sf::grad([](auto x) { return sf::reduce_sum(sf::reduce_prod(x, sf::axes<1>{})); })(empty).size() == 0);
}
