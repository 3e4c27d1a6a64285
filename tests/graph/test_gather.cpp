// sf::gather (graph/gather.hpp, backend/cpu/gather.hpp) as tf.gather: every axis, indices of rank
// 0-2 (int32 and int64, repeated, empty), static and run-time shapes, integer tensors, threads,
// eager mode, the listing, and TF's out-of-range error thrown before any effect.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <vector>

#include <xtensor/xfixed.hpp>
#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

namespace {
/// tf.gather(x, indices, axis) for a rank-3 x and a flat list of indices, written out.
template <class T, class J>
xt::xtensor<T, 3> reference(const xt::xtensor<T, 3>& x, const std::vector<J>& indices, std::size_t axis) {
  std::array<std::size_t, 3> shape{x.shape(0), x.shape(1), x.shape(2)};
  shape[axis] = indices.size();
  xt::xtensor<T, 3> y = xt::zeros<T>(shape);
  for (std::size_t i = 0; i < shape[0]; ++i)
    for (std::size_t j = 0; j < shape[1]; ++j)
      for (std::size_t k = 0; k < shape[2]; ++k) {
        std::array<std::size_t, 3> at{i, j, k};
        at[axis] = static_cast<std::size_t>(indices[at[axis]]);
        y(i, j, k) = x(at[0], at[1], at[2]);
      }
  return y;
}

template <class T>
xt::xtensor<T, 3> random_x(std::size_t a, std::size_t b, std::size_t c, std::mt19937& rng) {
  xt::xtensor<T, 3> x = xt::zeros<T>({a, b, c});
  std::uniform_int_distribution<int> u(-50, 50);
  for (auto& v : x) v = static_cast<T>(u(rng));
  return x;
}
}  // namespace

TEST_CASE("gather: every axis of a rank-3 tensor, repeated indices, against the definition", "[graph][gather]") {
  std::mt19937 rng(11);
  const auto x = random_x<float>(4, 5, 6, rng);
  const xt::xtensor<std::int32_t, 1> ids{3, 0, 3, 1};
  auto all = sf::function([](auto a, auto i) {
    return std::tuple{sf::gather(a, i), sf::gather(a, i, sf::axes<1>{}), sf::gather(a, i, sf::axes<-1>{})};
  });
  const auto [g0, g1, g2] = all(x, ids);
  const std::vector<std::int32_t> flat(ids.begin(), ids.end());
  CHECK((g0 == reference(x, flat, 0)));
  CHECK((g1 == reference(x, flat, 1)));
  CHECK((g2 == reference(x, flat, 2)));
  CHECK(all.get_concrete_function(sf::spec<float, sf::dyn, sf::dyn, sf::dyn>{}, sf::spec<std::int32_t, sf::dyn>{})
            .graph_string()
            .find("GatherV2[axis=1]") != std::string::npos);
}

TEST_CASE("gather: the result's shape is x's around the indices' shape, static where both are", "[graph][gather]") {
  xt::xtensor_fixed<double, xt::xshape<5, 3>> table;
  for (std::size_t r = 0; r < 5; ++r)
    for (std::size_t c = 0; c < 3; ++c) table(r, c) = static_cast<double>(10 * r + c);
  auto lookup = sf::function([](auto t, auto i, auto j) {
    return std::tuple{sf::gather(t, i), sf::gather(t, 2), sf::gather(t, j, sf::axes<1>{})};
  });
  const xt::xtensor_fixed<std::int64_t, xt::xshape<2, 2>> ids{{4, 0}, {1, 4}};
  const xt::xtensor<std::int32_t, 1> columns{2, 2, 0};
  const auto [rows, row, cols] = lookup(table, ids, columns);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(rows)>, xt::xtensor_fixed<double, xt::xshape<2, 2, 3>>>);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(row)>, xt::xtensor_fixed<double, xt::xshape<3>>>);
  CHECK((rows == xt::xtensor<double, 3>{{{40, 41, 42}, {0, 1, 2}}, {{10, 11, 12}, {40, 41, 42}}}));
  CHECK((row == xt::xtensor<double, 1>{20, 21, 22}));
  REQUIRE(cols.shape()[0] == 5);
  REQUIRE(cols.shape()[1] == 3);
  for (std::size_t r = 0; r < 5; ++r) {
    CHECK(cols(r, 0) == table(r, 2));
    CHECK(cols(r, 1) == table(r, 2));
    CHECK(cols(r, 2) == table(r, 0));
  }
}

TEST_CASE("gather: empty indices and empty tables are ordinary input; integer tables; threads", "[graph][gather]") {
  auto f = sf::function([](auto t, auto i) { return sf::gather(t, i); });
  const xt::xtensor<std::int32_t, 2> table{{1, 2}, {3, 4}, {5, 6}};
  const auto none = f(table, xt::xtensor<std::int32_t, 1>::from_shape({0}));
  CHECK(none.shape()[0] == 0);
  CHECK(none.shape()[1] == 2);
  const auto empty_rows = f(xt::xtensor<std::int32_t, 2>::from_shape({3, 0}), xt::xtensor<std::int32_t, 1>{2, 0});
  CHECK(empty_rows.size() == 0);
  CHECK((f(table, xt::xtensor<std::int32_t, 1>{2, 2, 0}) == xt::xtensor<std::int32_t, 2>{{5, 6}, {5, 6}, {1, 2}}));
  // a large gather split across 2 threads gives the 1-thread result
  std::mt19937 rng(5);
  const auto big = random_x<float>(300, 40, 30, rng);
  xt::xtensor<std::int32_t, 1> many = xt::zeros<std::int32_t>({std::size_t{2000}});
  for (auto& v : many) v = static_cast<std::int32_t>(rng() % 300);
  const auto one = f(big, many);
  const std::size_t saved = sf::num_threads();
  sf::set_num_threads(2);
  const auto two = f(big, many);
  sf::set_num_threads(saved);
  CHECK((one == two));
  CHECK((one == reference(big, std::vector<std::int32_t>(many.begin(), many.end()), 0)));
}

TEST_CASE("gather: an index out of range throws TF's message before any effect; eager mode", "[graph][gather]") {
  sf::variable<float> counter(0.f);
  auto f = sf::function([&](auto t, auto i) {
    counter.assign_add(1.f);
    return sf::gather(t, i, sf::axes<1>{});
  });
  const xt::xtensor<float, 2> t{{1, 2, 3}};
  CHECK((f(t, xt::xtensor<std::int32_t, 1>{2, 0}) == xt::xtensor<float, 2>{{3, 1}}));
  CHECK(counter.value() == 1.f);
  CHECK_THROWS_WITH(f(t, xt::xtensor<std::int32_t, 1>{0, 3}), "staticflow: gather: indices[1] = 3 is not in [0, 3)");
  CHECK_THROWS_AS(f(t, xt::xtensor<std::int32_t, 1>{-1}), sf::shape_error);
  CHECK(counter.value() == 1.f);
  sf::run_functions_eagerly(true);
  CHECK((f(t, xt::xtensor<std::int32_t, 1>{1, 1}) == xt::xtensor<float, 2>{{2, 2}}));
  CHECK_THROWS_WITH(f(t, xt::xtensor<std::int32_t, 1>{-1}), "staticflow: gather: indices[0] = -1 is not in [0, 3)");
  sf::run_functions_eagerly(false);
}
