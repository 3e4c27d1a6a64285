// Gradients of sf::sort, sf::top_k and sf::take_along_axis (the adjoint of each value added back
// where it was read: TF's TopKV2 gradient, a scatter-add along the axis) against central
// differences in float64 on random inputs (distinct values: no ties to break), and exact sums for
// positions read several times.
#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;
using namespace sf::literals;

TEST_CASE("sorting gradients: sort both ways along two axes, top_k") {
  const std::size_t a = extent(1, 5), b = extent(2, 6);
  const auto x = random_tensor<2>({a, b});
  const auto sorted = [](auto t) {
    const auto w = sf::sin(t);
    const auto [values, indices] = sf::top_k(t, 2_c);
    return sf::reduce_sum(sf::square(sf::sort(w, sf::descending)) * sf::cos(sf::sort(t))) +
           sf::reduce_sum(sf::exp(sf::sort(t, sf::axes<0>{}) * 0.3)) + sf::reduce_sum(values * values) * 0.5 +
           sf::reduce_sum(sf::cast<double>(indices)) * 0.0;
  };
  CHECK(check_gradients_of(std::index_sequence<0>{}, sorted, x) == x.size());
}

TEST_CASE("sorting gradients: take_along_axis adds repeated positions up") {
  auto g = sf::grad<0>([](auto t, auto p, auto w) { return sf::reduce_sum(sf::take_along_axis(t, p, sf::axes<1>{}) * w); });
  const xt::xtensor<double, 2> t = xt::zeros<double>({2, 3});
  const xt::xtensor<std::int64_t, 2> p = {{2, 2, 0, 2}, {1, 1, 1, 1}};
  const xt::xtensor<double, 2> w = {{1, 2, 3, 4}, {0.5, 0.25, 0.125, 1}};
  CHECK((xt::xtensor<double, 2>(g(t, p, w)) == xt::xtensor<double, 2>{{3, 0, 7}, {0, 1.875, 0}}));
  const auto x = random_tensor<2>({3, 4});
  const auto pick = [](auto u, auto q) { return sf::reduce_sum(sf::tanh(sf::take_along_axis(u * u, q, sf::axes<0>{}))); };
  const xt::xtensor<std::int32_t, 2> q = {{2, 0, 1, 1}, {2, 2, 0, 1}};
  CHECK(check_gradients_of(std::index_sequence<0>{}, pick, x, q) == x.size());
}
