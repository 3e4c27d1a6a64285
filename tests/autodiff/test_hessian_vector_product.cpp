// sf::hessian_vector_product: reverse over reverse, against closed forms, several argnums,
// float32 with one and two threads (test_hessian_vector_product_random.cpp: central differences).
#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("hessian_vector_product: closed forms, every size") {
  auto cubes = sf::hessian_vector_product<0>([](auto x) { return sf::reduce_sum(x * x * x); });
  for (std::size_t n : {0u, 1u, 5u, 19u}) {
    const auto x = random_tensor<1>({n}), v = random_tensor<1>({n});
    const auto hv = cubes(x, v);
    REQUIRE(hv.size() == n);
    for (std::size_t i = 0; i < n; ++i) CHECK(hv(i) == Approx(6 * x(i) * v(i)).epsilon(1e-12));
  }
  // 0.5 x^T A x has the Hessian (A + A^T) / 2
  const auto a = random_tensor<2>({4, 4});
  const auto x = random_tensor<1>({4}), v = random_tensor<1>({4});
  const auto hv = sf::hessian_vector_product<0>([](auto x, auto a) {
    return 0.5 * sf::reduce_sum(x * sf::matmul(a, x));
  })(x, a, v);
  for (std::size_t i = 0; i < 4; ++i) {
    double expected = 0;
    for (std::size_t j = 0; j < 4; ++j) expected += 0.5 * (a(i, j) + a(j, i)) * v(j);
    CHECK(hv(i) == Approx(expected).epsilon(1e-12));
  }
}

TEST_CASE("hessian_vector_product with several argnums: one block row of H . v per argnum") {
  auto loss = [](auto w, auto b, auto x) { return sf::reduce_sum(sf::tanh(sf::matmul(x, w) + b)); };
  const auto w = random_tensor<2>({3, 2}), vw = random_tensor<2>({3, 2});
  const auto b = random_tensor<1>({2}), vb = random_tensor<1>({2});
  const auto x = random_tensor<2>({4, 3});
  const auto [hw, hb] = sf::hessian_vector_product<0, 1>(loss)(w, b, x, vw, vb);
  // central differences of both gradients along (vw, vb) together
  auto grads = sf::grad<0, 1>(loss);
  const double h = 1e-6;
  const xt::xtensor<double, 2> w_up = w + h * vw, w_down = w - h * vw;
  const xt::xtensor<double, 1> b_up = b + h * vb, b_down = b - h * vb;
  const auto [gw_up, gb_up] = grads(w_up, b_up, x);
  const auto [gw_down, gb_down] = grads(w_down, b_down, x);
  for (std::size_t i = 0; i < w.size(); ++i)
    CHECK(hw.data()[i] == Approx((gw_up.data()[i] - gw_down.data()[i]) / (2 * h)).epsilon(1e-6).margin(1e-7));
  for (std::size_t i = 0; i < b.size(); ++i)
    CHECK(hb(i) == Approx((gb_up(i) - gb_down(i)) / (2 * h)).epsilon(1e-6).margin(1e-7));
}

TEST_CASE("hessian_vector_product: float32, threads, an argument the value does not depend on") {
  auto hvp = sf::hessian_vector_product<0, 1>([](auto x, auto /*unused*/) { return sf::reduce_sum(sf::exp(x) * 0.5f); });
  const std::size_t n = 64 * 4099;  // large enough to split, with a tail
  xt::xtensor<float, 1> x = xt::xtensor<float, 1>::from_shape({n}), vx = x;
  for (std::size_t i = 0; i < n; ++i) {
    x.data()[i] = static_cast<float>(uniform());
    vx.data()[i] = static_cast<float>(uniform());
  }
  const xt::xtensor<float, 1> unused = {7.f, 8.f}, vu = {1.f, 1.f};
  sf::set_num_threads(1);
  const auto [hx, hu] = hvp(x, unused, vx, vu);
  sf::set_num_threads(2);
  const auto [hx2, hu2] = hvp(x, unused, vx, vu);
  sf::set_num_threads(1);
  for (std::size_t i = 0; i < n; i += 101) CHECK(hx(i) == Approx(0.5 * std::exp(x(i)) * vx(i)).epsilon(1e-5));
  CHECK((hu == xt::xtensor<float, 1>{0.f, 0.f}));
  CHECK((hx2 == hx));
}
