// Gradient functions on every backend of the suite (suite_backend.hpp), checked against closed
// forms evaluated here in double (float32 on the backends, relative tolerance 1e-4); this TU:
// through control flow, a fused chain and a cond (only the taken branch), and a loop with a
// run-time trip count (the reverse loop of autodiff/loop_backprop.hpp on the backend's while loops
// and tensor arrays), its body a cond too. The others: gradient_layers_suite.cpp and
// gradient_data_suite.cpp (each TU kept under the 2 GB compile budget).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "suite_backend.hpp"

using suite::close;

TEST_CASE("suite: grad of a fused chain and of a cond (only the taken branch)", "[suite][gradients][control]") {
  INFO("backend " << suite::name());
  // d/dx sum(tanh(x * w + 0.5)) = w (1 - tanh^2) over a long vector (SIMD tails, device chunks)
  auto chain = sf::grad([](auto x, auto w) { return sf::reduce_sum(sf::tanh(x * w + 0.5f)); }, suite::backend);
  const std::size_t n = 10007;
  auto x = xt::xtensor<float, 1>::from_shape({n}), w = xt::xtensor<float, 1>::from_shape({n});
  for (std::size_t i = 0; i < n; ++i) {
    x(i) = std::sin(0.01f * float(i));
    w(i) = std::cos(0.003f * float(i));
  }
  const auto dx = suite::host(chain(suite::in(x), suite::in(w)));
  REQUIRE(dx.size() == n);
  bool all = true;
  for (std::size_t i = 0; i < n; ++i) {
    const double t = std::tanh(double(x(i)) * w(i) + 0.5);
    all = all && close(dx(i), w(i) * (1 - t * t));
  }
  CHECK(all);
  // through a cond: 2x where the sum is positive, -1 elsewhere
  auto branchy = sf::grad([](auto v) {
    return sf::reduce_sum(sf::cond(sf::reduce_sum(v) > 0.f, [&] { return v * v; }, [&] { return -v; }));
  }, suite::backend);
  const xt::xtensor<float, 1> up = {1.f, 2.f, -0.5f}, down = {-1.f, -2.f, 0.5f};
  const auto gu = suite::host(branchy(suite::in(up)));
  CHECK(suite::flat(gu) == std::vector<float>{2.f, 4.f, -1.f});
  const auto gd = suite::host(branchy(suite::in(down)));
  CHECK(suite::flat(gd) == std::vector<float>{-1.f, -1.f, -1.f});
}

TEST_CASE("suite: gradients through a loop with a run-time trip count", "[suite][gradients][control]") {
  INFO("backend " << suite::name());
  // v <- v * w three times from x: d/dx sum = w^3, d/dw sum = 3 w^2 x (the stacks and the reverse
  // loop of autodiff/loop_backprop.hpp run on the backend's while loops and tensor arrays)
  auto g = sf::grad<0, 1>([](auto x, auto w, auto n) {
    return sf::reduce_sum(sf::fori_loop(0, n, [&](auto, auto v) { return v * w; }, x));
  }, suite::backend);
  const xt::xtensor<float, 1> x = {1.f, 2.f, -1.f}, w = {0.5f, -2.f, 1.5f};
  const auto [dx, dw] = suite::host(g(suite::in(x), suite::in(w), 3));
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(close(dx(i), std::pow(double(w(i)), 3)));
    CHECK(close(dw(i), 3 * double(w(i)) * w(i) * x(i)));
  }
  // a body that is a cond on the loop variable: sum(v) is 2, -5, -5 at the three iterations, so
  // v = x * w - 2 w, d/dx sum = w, d/dw sum = x - 2 (the cond's adjoint inside the reverse loop)
  auto gc = sf::grad<0, 1>([](auto x, auto w, auto n) {
    return sf::reduce_sum(sf::fori_loop(0, n, [&](auto, auto v) {
      return sf::cond(sf::reduce_sum(v) > 0.f, [&] { return v * w; }, [&] { return v - w; });
    }, x));
  }, suite::backend);
  const auto [cx, cw] = suite::host(gc(suite::in(x), suite::in(w), 3));
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(close(cx(i), w(i)));
    CHECK(close(cw(i), x(i) - 2.0));
  }
}
