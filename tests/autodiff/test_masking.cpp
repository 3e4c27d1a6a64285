// Gradients through sf::boolean_mask (TF's: the adjoint's rows back at the kept positions, zeros
// elsewhere) against central differences in float64 on random shapes and masks, at axis 0 and
// inner axes; exact values; second derivatives (the gradient's own adjoint is the mask again);
// and the mask computed from the differentiated value itself.
#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

namespace {
template <std::size_t R>
xt::xtensor<bool, R> random_mask(std::array<std::size_t, R> shape) {
  auto m = xt::xtensor<bool, R>::from_shape(shape);
  for (auto& v : m) v = std::uniform_int_distribution<int>(0, 2)(rng()) != 0;
  return m;
}
}  // namespace

TEST_CASE("boolean_mask gradients: random shapes, masks of rank 1 and 2, inner axes") {
  for (int round = 0; round < 3; ++round) {
    const std::size_t a = extent(1, 6), b = extent(1, 4), c = extent(1, 3);
    const auto x = random_tensor<3>({a, b, c});
    const auto rows = random_mask<1>({a});
    const auto pairs = random_mask<2>({a, b});
    const auto columns = random_mask<1>({b});
    const auto masked = [](auto t, auto r, auto p, auto k) {
      return sf::reduce_sum(sf::square(sf::boolean_mask(t, r))) +
             sf::reduce_sum(sf::sin(sf::boolean_mask(sf::tanh(t), p)) * 1.5) +
             sf::reduce_sum(sf::boolean_mask(t * t, k, sf::axes<1>{}) * sf::boolean_mask(t, k, sf::axes<-2>{}));
    };
    CHECK(check_gradients_of(std::index_sequence<0>{}, masked, x, rows, pairs, columns) == x.size());
  }
}

TEST_CASE("boolean_mask gradients: exact values, a mask from the value, TF's error in the gradient") {
  // d/dx sum(boolean_mask(x, m) * w) = w's rows at the kept positions, zeros elsewhere
  auto g = sf::grad<0>([](auto x, auto m, auto w) { return sf::reduce_sum(sf::boolean_mask(x, m) * w); });
  const xt::xtensor_fixed<double, xt::xshape<4, 2>> x = xt::ones<double>({4, 2});
  const xt::xtensor<bool, 1> m{true, false, false, true};
  const xt::xtensor<double, 2> w{{1, 2}, {3, 4}};
  const auto d = g(x, m, w);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(d)>, xt::xtensor_fixed<double, xt::xshape<4, 2>>>);
  CHECK((d == xt::xtensor<double, 2>{{1, 2}, {0, 0}, {0, 0}, {3, 4}}));
  // w's rows must match the count: the product's broadcasting error names both shapes
  CHECK_THROWS_AS(g(x, xt::xtensor<bool, 1>{true, true, true, false}, w), sf::shape_error);
  CHECK_THROWS_WITH(g(x, xt::xtensor<bool, 1>{true, false}, w),
                    "staticflow: boolean_mask: mask.shape = [2] does not match tensor.shape[0:1] of tensor.shape = [4,2]");
  // the mask from the value itself: relu written as a mask, d/dx sum(x[x > 0]^2) = 2x where x > 0
  auto relu_sq = sf::grad([](auto t) { return sf::reduce_sum(sf::square(sf::boolean_mask(t, t > 0.0))); });
  CHECK((xt::xtensor<double, 1>(relu_sq(xt::xtensor<double, 1>{-1, 2, 0, 3})) == xt::xtensor<double, 1>{0, 4, 0, 6}));
  // nothing kept: zeros
  CHECK((xt::xtensor<double, 2>(g(x, xt::xtensor<bool, 1>{false, false, false, false}, xt::xtensor<double, 2>::from_shape({0, 2}))) ==
         xt::zeros<double>({4, 2})));
}

TEST_CASE("boolean_mask second derivatives: hessian-vector products and jvp") {
  const std::size_t a = extent(2, 7), c = extent(1, 4);
  const auto x = random_tensor<2>({a, c}), v = random_tensor<2>({a, c});
  const auto m = random_mask<1>({a});
  const auto cubed = [](auto t, auto k) { return sf::reduce_sum(sf::pow(sf::boolean_mask(t, k), 3.0)); };
  CHECK(hvp_error(cubed, x, v, m) < 1e-6);
  // exact: H . v = 6 x v where kept, 0 elsewhere
  const xt::xtensor<double, 2> hv = sf::hessian_vector_product<0>(cubed)(x, m, v);
  for (std::size_t p = 0; p < a; ++p)
    for (std::size_t k = 0; k < c; ++k) CHECK(hv(p, k) == Approx(m(p) ? 6 * x(p, k) * v(p, k) : 0.0).epsilon(1e-12).margin(1e-12));
  CHECK(jvp_error([](auto t, auto k) { return sf::sin(sf::boolean_mask(t, k)); }, x, v, m) < 1e-6);
}
