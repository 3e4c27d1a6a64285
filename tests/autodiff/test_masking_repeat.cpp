// Gradients through sf::repeat with a tensor of repeats (TF's: the adjoint's rows summed back onto
// the row they repeat, zeros for a count of 0) against central differences in float64 on random
// shapes and counts at every axis; exact values; second derivatives.
#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

namespace {
xt::xtensor<std::int32_t, 1> random_counts(std::size_t n) {
  auto r = xt::xtensor<std::int32_t, 1>::from_shape({n});
  for (auto& v : r) v = std::uniform_int_distribution<std::int32_t>(0, 3)(rng());
  return r;
}
}  // namespace

TEST_CASE("repeat-by-tensor gradients: random shapes and counts at every axis") {
  for (int round = 0; round < 3; ++round) {
    const std::size_t a = extent(1, 5), b = extent(1, 4), c = extent(1, 3);
    const auto x = random_tensor<3>({a, b, c});
    const auto ra = random_counts(a), rb = random_counts(b), rc = random_counts(c);
    const auto repeated = [](auto t, auto p, auto q, auto s) {
      return sf::reduce_sum(sf::square(sf::repeat(t, p, sf::axes<0>{}))) +
             sf::reduce_sum(sf::sin(sf::repeat(sf::tanh(t), q, sf::axes<1>{})) * 1.5) +
             sf::reduce_sum(sf::repeat(t * t, s, sf::axes<2>{}) * sf::repeat(t, s, sf::axes<-1>{}));
    };
    CHECK(check_gradients_of(std::index_sequence<0>{}, repeated, x, ra, rb, rc) == x.size());
  }
}

TEST_CASE("repeat-by-tensor gradients: exact values, a scalar count, a count of 0") {
  // d/dx sum(repeat(x, r) * w) = the sum of w's rows each x row was copied to
  auto g = sf::grad<0>([](auto x, auto r, auto w) { return sf::reduce_sum(sf::repeat(x, r, sf::axes<0>{}) * w); });
  const xt::xtensor<double, 2> x = xt::ones<double>({3, 2});
  const xt::xtensor<double, 2> w{{1, 2}, {3, 4}, {5, 6}};
  CHECK((xt::xtensor<double, 2>(g(x, xt::xtensor<std::int32_t, 1>{2, 0, 1}, w)) == xt::xtensor<double, 2>{{4, 6}, {0, 0}, {5, 6}}));
  // a scalar count: every row twice; flattened
  auto flat = sf::grad([](auto t, auto r) { return sf::reduce_sum(sf::square(sf::repeat(t, r))); });
  const xt::xtensor<double, 1> t{1, -2, 3};
  CHECK((xt::xtensor<double, 1>(flat(t, xt::xtensor<std::int64_t, 0>(2))) == xt::xtensor<double, 1>{4, -8, 12}));
  CHECK_THROWS_WITH(flat(t, xt::xtensor<std::int64_t, 0>(-1)), "staticflow: repeat: repeats[0] = -1 is negative");
}

TEST_CASE("repeat-by-tensor second derivatives: hessian-vector products and jvp") {
  const std::size_t a = extent(2, 6), c = extent(1, 4);
  const auto x = random_tensor<2>({a, c}), v = random_tensor<2>({a, c});
  const auto r = random_counts(a);
  const auto cubed = [](auto t, auto k) { return sf::reduce_sum(sf::pow(sf::repeat(t, k, sf::axes<0>{}), 3.0)); };
  CHECK(hvp_error(cubed, x, v, r) < 1e-6);
  // exact: H . v = 6 r x v (each row counted r times)
  const xt::xtensor<double, 2> hv = sf::hessian_vector_product<0>(cubed)(x, r, v);
  for (std::size_t p = 0; p < a; ++p)
    for (std::size_t k = 0; k < c; ++k) CHECK(hv(p, k) == Approx(6.0 * r(p) * x(p, k) * v(p, k)).epsilon(1e-12).margin(1e-12));
  CHECK(jvp_error([](auto t, auto k) { return sf::sin(sf::repeat(t, k, sf::axes<0>{})); }, x, v, r) < 1e-6);
}
