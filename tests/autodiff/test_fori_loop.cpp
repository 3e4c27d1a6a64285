// Gradients through sf::fori_loop with run-time bounds (autodiff/loop_backprop.hpp; the loop is a
// while_loop over its counter, test_while_loop.cpp): against central differences in float64, the
// loop counter entering the body, and a captured argument that also starts the loop.
#include <cmath>
#include <cstdint>
#include <tuple>

#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("fori_loop with run-time bounds: the loop counter enters the body") {
  // v <- v * w + sin(i * v): the counter is an int loop variable the reverse loop reads back too
  const auto fn = [](auto x, auto w, auto lo, auto hi) {
    return sf::fori_loop(lo, hi, [&](auto i, auto v) { return v * w + sf::sin(sf::cast<double>(i) * v); }, x);
  };
  for (auto [lo, hi] : {std::pair<std::int32_t, std::int32_t>{0, 1}, {2, 6}, {3, 3}}) {
    INFO("bounds " << lo << ", " << hi);
    const auto x = random_tensor<1>({5}, -1, 1);
    xt::xtensor_fixed<double, xt::xshape<5>> xf = x;
    const xt::xtensor_fixed<double, xt::xshape<5>> w = {uniform(-1, 1), uniform(-1, 1), uniform(-1, 1), uniform(-1, 1), uniform(-1, 1)};
    CHECK(check_gradients_of(std::index_sequence<0, 1>{}, fn, xf, w, lo, hi) == 10);
  }
}

TEST_CASE("fori_loop with run-time bounds: a captured argument that also starts the loop") {
  // v <- v * x three times from ones: v = x^3, d/dx = 3 x^2 (once a compile error: loops had no gradient)
  auto g = sf::grad([](auto x) {
    return sf::reduce_sum(sf::fori_loop(0, 3, [&](auto, auto v) { return v * x; }, x * 0.f + 1.f));
  });
  const xt::xtensor_fixed<float, xt::xshape<3>> x = {1.f, 2.f, -3.f};
  const auto d = g(x);
  CHECK(d(0) == 3.f);
  CHECK(d(1) == 12.f);
  CHECK(d(2) == 27.f);
}
