// Transposed operands read in place (plan/transposed_operands.hpp) where gradients make them: a
// dense layer's adjoints read x and w transposed with no transpose slot, and products inside
// shared nodes (an unrolled loop's steps, a gradient's reused adjoints) are folded once; values
// bit for bit equal to the product of the transposed copy. (The plans and kernel paths:
// test_transposed_operands.cpp.)
#include <catch2/catch.hpp>

#include <cstddef>
#include <random>
#include <tuple>

#include <xtensor/xmanipulation.hpp>
#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

#include "transposed_operands_test.hpp"

namespace sf = staticflow;

using namespace transposed_operands_test;

TEST_CASE("a dense layer's gradients read x and w transposed: no transpose slot", "[plan][transposed][gradients]") {
  auto vg = sf::value_and_grad<0, 1>([](auto x, auto w) { return sf::reduce_sum(sf::square(sf::matmul(x, w))); });
  std::mt19937 rng(7);
  const auto x = random_tensor<double, 2>(rng, {6, 5}), w = random_tensor<double, 2>(rng, {5, 4});
  // the forward product (shared), the two adjoint products, the sum
  CHECK(slots_of(vg, x, w) == 4);
  const auto [value, dx, dw] = vg(x, w);
  // against the formulas: y = x w, dl/dy = 2 y, dx = 2 y wᵀ, dw = 2 xᵀ y (exact in these dyadic values)
  auto mm = sf::function([](auto a, auto b) { return sf::matmul(a, b); });
  const xt::xtensor<double, 2> y = mm(x, w);
  CHECK(value == Approx(xt::sum(y * y)()));
  CHECK((dx == mm(xt::xtensor<double, 2>(2.0 * y), xt::xtensor<double, 2>(xt::transpose(w)))));
  CHECK((dw == mm(xt::xtensor<double, 2>(xt::transpose(x)), xt::xtensor<double, 2>(2.0 * y))));
}

TEST_CASE("products inside shared nodes (an unrolled loop's steps, a gradient's reused adjoints) are folded once",
          "[plan][transposed][shared]") {
  // each step is a shared node whose product reads w transposed; the step is read twice
  auto unrolled = sf::function([](auto w, auto v) {
    return sf::fori_loop(sf::static_value<0>{}, sf::static_value<3>{}, [&](auto, auto x) {
      const auto y = sf::matmul(w, x, sf::transpose_a) * 0.25;
      return y * y + y;
    }, v);
  });
  auto pre_transposed = sf::function([](auto wt, auto v) {
    return sf::fori_loop(sf::static_value<0>{}, sf::static_value<3>{}, [&](auto, auto x) {
      const auto y = sf::matmul(wt, x) * 0.25;
      return y * y + y;
    }, v);
  });
  std::mt19937 rng(3);
  const xt::xtensor<double, 2> w = random_tensor<double, 2>(rng, {4, 4}) / 4.0;
  const xt::xtensor<double, 2> v = random_tensor<double, 2>(rng, {4, 3}) / 4.0;
  const xt::xtensor<double, 2> wt = xt::transpose(w);
  // the plan of the loop over w already transposed: no slot for a transpose of w
  CHECK(slots_of(unrolled, w, v) == slots_of(pre_transposed, wt, v));
  auto before = sf::plan::materialization_counter();
  const auto r = unrolled(w, v);
  const auto computed = sf::plan::materialization_counter() - before;
  before = sf::plan::materialization_counter();
  CHECK((r == pre_transposed(wt, v)));
  CHECK(sf::plan::materialization_counter() - before == computed);

  // a gradient whose adjoint product is read twice (by the bias's and the input's gradients)
  auto vg = sf::value_and_grad<0, 1, 2>([](auto x, auto w1, auto w2) {
    return sf::reduce_sum(sf::square(sf::matmul(sf::tanh(sf::matmul(x, w1)), w2)));
  });
  const xt::xtensor<double, 2> x = random_tensor<double, 2>(rng, {5, 4}) / 8.0;
  const xt::xtensor<double, 2> w1 = random_tensor<double, 2>(rng, {4, 3}) / 8.0, w2 = random_tensor<double, 2>(rng, {3, 2}) / 8.0;
  const auto [value, dx, dw1, dw2] = vg(x, w1, w2);
  // against central differences in float64
  auto loss = [&](const auto& a, const auto& b, const auto& c) { return std::get<0>(vg(a, b, c)); };
  const double h = 1e-6;
  for (std::size_t i = 0; i < w1.size(); ++i) {
    xt::xtensor<double, 2> p = w1, m = w1;
    p.flat(i) += h, m.flat(i) -= h;
    CHECK(dw1.flat(i) == Approx((loss(x, p, w2) - loss(x, m, w2)) / (2 * h)).margin(1e-7));
  }
  for (std::size_t i = 0; i < x.size(); ++i) {
    xt::xtensor<double, 2> p = x, m = x;
    p.flat(i) += h, m.flat(i) -= h;
    CHECK(dx.flat(i) == Approx((loss(p, w1, w2) - loss(m, w1, w2)) / (2 * h)).margin(1e-7));
  }
  CHECK(value > 0.0);
  CHECK(dw2.shape() == w2.shape());
}
