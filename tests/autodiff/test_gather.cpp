// Gradients of sf::gather (TF's: the adjoint of each gathered slice added back where it was read,
// repeated indices adding up) against central differences in float64 on random shapes, indices
// and axes, and exact values for an embedding lookup.
#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

namespace {
template <std::size_t R>
xt::xtensor<std::int32_t, R> random_indices(std::array<std::size_t, R> shape, std::size_t n) {
  xt::xtensor<std::int32_t, R> i = xt::zeros<std::int32_t>(shape);
  for (auto& v : i) v = static_cast<std::int32_t>(rng()() % n);
  return i;
}
}  // namespace

TEST_CASE("gather gradients: every axis, repeated indices, run-time shapes") {
  const std::size_t a = extent(1, 5), b = extent(1, 5), c = extent(1, 4), p = extent(1, 7);
  const auto x = random_tensor<3>({a, b, c});
  const auto i0 = random_indices<1>({p}, a), i2 = random_indices<1>({p}, c);
  const auto i1 = random_indices<2>({2, p}, b);
  const auto picks = [](auto t, auto j0, auto j1, auto j2) {
    return sf::reduce_sum(sf::square(sf::gather(t, j0))) + sf::reduce_sum(sf::sin(sf::gather(t, j1, sf::axes<1>{})) * 1.5) +
           sf::reduce_sum(sf::gather(sf::tanh(t), j2, sf::axes<-1>{}), sf::axes<0, 1>{});
  };
  CHECK(check_gradients_of(std::index_sequence<0>{}, picks, x, i0, i1, i2) == x.size());
}

TEST_CASE("gather gradients: static shapes, a scalar index, a table read twice") {
  xt::xtensor_fixed<double, xt::xshape<4, 3>> table;
  fill(table);
  const xt::xtensor_fixed<std::int64_t, xt::xshape<2, 3>> ids{{3, 1, 3}, {0, 3, 2}};
  const xt::xtensor_fixed<std::int32_t, xt::xshape<2>> columns{2, 2};
  const auto embed = [](auto t, auto i, auto j) {
    return sf::reduce_sum(sf::tanh(sf::gather(t, i)) * sf::gather(t, 1)) + sf::reduce_sum(sf::gather(t * t, j, sf::axes<1>{})[0]);
  };
  CHECK(check_gradients_of(std::index_sequence<0>{}, embed, table, ids, columns) == 12);
}

TEST_CASE("gather gradients: exact counts for an embedding lookup") {
  // d/dtable sum(gather(table, ids) * 2): each row gets 2 for every time it was looked up
  auto g = sf::grad<0>([](auto t, auto i) { return sf::reduce_sum(sf::gather(t, i) * 2.0); });
  const xt::xtensor<double, 2> table = xt::ones<double>({4, 2});
  const xt::xtensor<std::int32_t, 1> ids{3, 0, 3, 3};
  CHECK((xt::xtensor<double, 2>(g(table, ids)) == xt::xtensor<double, 2>{{2, 2}, {0, 0}, {0, 0}, {6, 6}}));
  CHECK_THROWS_WITH(g(table, xt::xtensor<std::int32_t, 1>{4}), "staticflow: gather: indices[0] = 4 is not in [0, 4)");
}

TEST_CASE("gather gradients: threads give the same bits; empty indices give zeros") {
  // large enough for the threaded path: repeated ids added in index order whatever the split
  const std::size_t rows = 300, width = 256, lookups = 2000;
  auto g = sf::grad<0>([](auto t, auto i, auto w) { return sf::reduce_sum(sf::gather(t, i) * w); });
  const auto table = random_tensor<2>({rows, width});
  const auto w = random_tensor<2>({lookups, width});
  const auto ids = random_indices<1>({lookups}, 40);  // many repeats
  const xt::xtensor<double, 2> one = g(table, ids, w);
  const std::size_t saved = sf::num_threads();
  sf::set_num_threads(2);
  const xt::xtensor<double, 2> two = g(table, ids, w);
  sf::set_num_threads(saved);
  CHECK((one == two));
  double want = 0;  // row ids(0), column 5: the sum of w over the positions with that id
  for (std::size_t p = 0; p < lookups; ++p)
    if (ids(p) == ids(0)) want += w(p, 5);
  CHECK(one(static_cast<std::size_t>(ids(0)), 5) == Approx(want).epsilon(1e-12));
  const auto none = xt::xtensor<std::int32_t, 1>::from_shape({0});
  const xt::xtensor<double, 2> zero = g(table, none, xt::xtensor<double, 2>::from_shape({0, width}));
  CHECK(zero.shape()[0] == rows);
  CHECK(xt::all(xt::equal(zero, 0.0)));
}
