// sf::where(condition) with one argument (graph/masking.hpp): the coordinates of the true (non-zero)
// elements, as tf.where: TF's examples, numeric conditions, rank 3, a scalar, and the coordinates
// feeding gather_nd. (Split from test_masking.cpp to keep each translation unit under 2 GB.)
#include <catch2/catch.hpp>

#include <array>
#include <cstdint>

#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

TEST_CASE("where(condition): coordinates of the trues, as tf.where", "[graph][masking]") {
  auto w = sf::function([](auto c) { return sf::where(c); });
  CHECK((w(xt::xtensor<bool, 1>{true, false, false, true}) == xt::xtensor<std::int64_t, 2>{{0}, {3}}));
  CHECK((w(xt::xtensor<bool, 2>{{false, true, true}, {true, false, false}}) ==
         xt::xtensor<std::int64_t, 2>{{0, 1}, {0, 2}, {1, 0}}));
  // a numeric condition: its non-zero elements (TF's rule)
  CHECK((w(xt::xtensor<float, 1>{0.f, -2.5f, 0.f, 1.f}) == xt::xtensor<std::int64_t, 2>{{1}, {3}}));
  // an expression, rank 3
  auto odd = sf::function([](auto x) { return sf::where(x % 2 == 1); });
  const xt::xtensor<int, 3> x{{{1, 2}, {4, 5}}, {{6, 7}, {8, 8}}};
  CHECK((odd(x) == xt::xtensor<std::int64_t, 2>{{0, 0, 0}, {0, 1, 1}, {1, 0, 1}}));
  // a scalar: one row of no coordinates, or none
  CHECK((w(xt::xtensor<bool, 0>(true)).shape() == std::array<std::size_t, 2>{1, 0}));
  CHECK((w(xt::xtensor<bool, 0>(false)).shape() == std::array<std::size_t, 2>{0, 0}));
  // the coordinates feed a gather_nd: the kept values again
  auto again = sf::function([](auto t) { return sf::gather_nd(t, sf::where(t > 2)); });
  CHECK((again(xt::xtensor<int, 2>{{1, 3}, {4, 2}}) == xt::xtensor<int, 1>{3, 4}));
}
