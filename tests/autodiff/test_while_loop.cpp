// Gradients through sf::while_loop with run-time trip counts (autodiff/loop_backprop.hpp): against
// central differences in float64 and closed forms, for trip counts 0, 1 and more, weights captured
// by the body, sf::maximum_iterations, value_and_grad in one call. Loop variables of run-time
// shape: test_while_loop_shapes.cpp; sf::fori_loop with run-time bounds: test_fori_loop.cpp; a
// recurrent layer and a training step: test_while_loop_layers.cpp; two coupled variables:
// test_while_loop_coupled.cpp.
#include <cmath>
#include <cstdint>
#include <tuple>

#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("while_loop: a recurrence with a run-time trip count matches central differences") {
  // h <- tanh(h * w + b) n times; w and b are captured by the body, h0 starts the loop
  const auto fn = [](auto h0, auto w, auto b, auto n) {
    const auto [i, h] = sf::while_loop([&](auto i, auto) { return i < n; },
                                       [&](auto i, auto h) { return std::tuple{i + 1, sf::tanh(h * w + b)}; },
                                       std::int64_t{0}, h0);
    return h * 2.;
  };
  for (std::int64_t n : {0, 1, 2, 5}) {
    INFO("trip count " << n);
    const xt::xtensor_fixed<double, xt::xshape<4>> h0 = {uniform(), uniform(), uniform(), uniform()};
    const xt::xtensor_fixed<double, xt::xshape<4>> w = {uniform(-1, 1), uniform(-1, 1), uniform(-1, 1), uniform(-1, 1)};
    const xt::xtensor_fixed<double, xt::xshape<>> b = {uniform(-1, 1)};
    CHECK(check_gradients_of(std::index_sequence<0, 1, 2>{}, fn, h0, w, b, n) == 9);
  }
}

TEST_CASE("while_loop: zero trips pass the seed through; a captured weight then gets zeros") {
  auto g = sf::grad<0, 1>([](auto x, auto w, auto n) {
    return sf::reduce_sum(sf::fori_loop(std::int64_t{0}, n, [&](auto, auto v) { return v * w; }, x));
  });
  const xt::xtensor_fixed<double, xt::xshape<3>> x = {1., 2., 3.};
  const xt::xtensor_fixed<double, xt::xshape<3>> w = {0.5, -2., 4.};
  const auto [dx0, dw0] = g(x, w, std::int64_t{0});
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(dx0(i) == 1.);
    CHECK(dw0(i) == 0.);
  }
  // n trips: d/dx = w^n, d/dw = n w^(n-1) x
  const auto [dx3, dw3] = g(x, w, std::int64_t{3});
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(dx3(i) == Approx(std::pow(w(i), 3)).epsilon(1e-14));
    CHECK(dw3(i) == Approx(3 * w(i) * w(i) * x(i)).epsilon(1e-14));
  }
}

TEST_CASE("while_loop: sf::maximum_iterations stops the forward loop and bounds the reverse one") {
  auto g = sf::grad([](auto x) {
    // the condition always holds: maximum_iterations(4) ends the loop after 4 doublings
    return sf::reduce_sum(sf::while_loop([](auto v) { return sf::reduce_sum(v * 0.) == 0.; }, [](auto v) { return v * 2.; }, x,
                                         sf::maximum_iterations(4)));
  });
  const xt::xtensor_fixed<double, xt::xshape<2>> x = {1., -3.};
  const auto d = g(x);
  CHECK(d(0) == 16.);
  CHECK(d(1) == 16.);
}

TEST_CASE("while_loop: value_and_grad computes the value and the gradient in one call") {
  auto vg = sf::value_and_grad<1>([](auto x, auto w, auto n) {
    return sf::reduce_sum(sf::fori_loop(0, n, [&](auto, auto v) { return sf::sin(v) * w; }, x));
  });
  const xt::xtensor_fixed<double, xt::xshape<2>> x = {0.3, -0.7};
  const xt::xtensor_fixed<double, xt::xshape<2>> w = {1.5, 0.5};
  const auto [value, dw] = vg(x, w, 2);
  for (std::size_t i = 0; i < 2; ++i) {
    const double v1 = std::sin(x(i)) * w(i);
    const double v2 = std::sin(v1) * w(i);
    CHECK(value == Approx(std::sin(std::sin(x(0)) * w(0)) * w(0) + std::sin(std::sin(x(1)) * w(1)) * w(1)).epsilon(1e-14));
    // d v2 / d w = cos(v1) * (d v1 / d w) * w + sin(v1), d v1 / d w = sin(x)
    CHECK(dw(i) == Approx(std::cos(v1) * std::sin(x(i)) * w(i) + std::sin(v1)).epsilon(1e-14));
    (void)v2;
  }
}
