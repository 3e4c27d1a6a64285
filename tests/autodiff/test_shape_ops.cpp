// Gradients of the shape ops that move windows: slice (TF's SliceGrad: the adjoint put back in a
// zero tensor), concat and stack (each part's window of the adjoint) and x[i] (the adjoint at row
// i, a negative i from the end), against central differences in float64 on static and run-time
// shapes, and exact values.
#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("slice gradients: every axis, static and run-time shapes") {
  xt::xtensor_fixed<double, xt::xshape<4, 5, 3>> x;
  fill(x);
  const auto slices = [](auto a) {
    return sf::square(sf::slice(a, sf::axes<0>{}, 1, 2)) * 2.0 + sf::sin(sf::slice(a, sf::axes<0>{}, 2, 2)) +
           sf::reduce_sum(sf::exp(sf::slice(a, sf::axes<-1>{}, 1, 2) * 0.5));
  };
  CHECK(check_gradients(slices, x) == 60);
  const std::size_t n = extent(3, 9), m = extent(1, 5);
  const auto y = random_tensor<2>({n, m});
  const auto stencil = [](auto a) {  // a heat-equation step on the interior rows: the slices overlap
    return sf::slice(a, sf::axes<0>{}, 0, 3) - sf::slice(a, sf::axes<0>{}, 1, 3) * 2.0 + sf::slice(a, sf::axes<0>{}, 2, 3);
  };
  CHECK(check_gradients(stencil, y) == n * m);
}

TEST_CASE("concat and stack gradients: parts of different lengths, run-time shapes") {
  const std::size_t r = extent(1, 5), c1 = extent(1, 6), c2 = extent(1, 6);
  const auto a = random_tensor<2>({r, c1}), b = random_tensor<2>({r, c2}), d = random_tensor<2>({r, c1});
  const auto joined = [](auto p, auto q, auto s) {
    return sf::tanh(sf::concat<1>(p * q[0][0], sf::square(q), s)) * 1.5 + sf::reduce_sum(sf::stack<0>(p, s * s));
  };
  CHECK(check_gradients(joined, a, b, d) == a.size() + b.size() + d.size());
  xt::xtensor_fixed<double, xt::xshape<2, 3>> p;
  xt::xtensor_fixed<double, xt::xshape<1, 3>> q;
  fill(p), fill(q);
  const auto rows = [](auto u, auto v) { return sf::log(sf::concat<0>(u, v, u) * sf::concat<0>(v, u, u) + 10.0); };
  CHECK(check_gradients(rows, p, q) == 9);
}

TEST_CASE("x[i] gradients: a row, a negative index, a run-time index, rows of rows") {
  xt::xtensor_fixed<double, xt::xshape<4, 3>> x;
  fill(x);
  const auto rows = [](auto a) { return a[1] * a[-1] + sf::square(a[0][2]); };
  CHECK(check_gradients(rows, x) == 12);
  auto exact = sf::grad<0>([](auto a, auto i) { return sf::reduce_sum(a[i] * 3.0); });
  const xt::xtensor<double, 2> ones = xt::ones<double>({3, 2});
  CHECK((xt::xtensor<double, 2>(exact(ones, 2)) == xt::xtensor<double, 2>({{0, 0}, {0, 0}, {3, 3}})));
  CHECK((xt::xtensor<double, 2>(exact(ones, -3)) == xt::xtensor<double, 2>({{3, 3}, {0, 0}, {0, 0}})));
  CHECK_THROWS_WITH(exact(ones, 3), "staticflow: x[i]: index 3 is out of range for an axis of size 3");
}
