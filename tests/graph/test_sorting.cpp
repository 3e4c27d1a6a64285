// sf::argsort, sort, top_k and take_along_axis (graph/sorting.hpp, backend/cpu/sorting.hpp):
// TensorFlow's / NumPy's values (stable order, NaN the largest), every axis against std::stable_sort
// on random shapes (extents 0 and 1 included), static and run-time k, threads, eager mode, the
// listing, and the run-time errors thrown before any effect.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include <xtensor/xfixed.hpp>
#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

#include "tf_reference.hpp"

namespace sf = staticflow;
using namespace sf::literals;
using tf_reference::as;
using tf_reference::flat;

TEST_CASE("sorting: TF's values, ties in order, both directions, every axis", "[graph][sorting]") {
  const xt::xtensor<float, 2> x = {{3, 1, 2, 1}, {0, -1, 5, 5}};
  auto f = sf::function([](auto a) {
    return std::tuple{sf::argsort(a), sf::sort(a, sf::descending), sf::argsort(a, sf::axes<0>{}),
                      sf::argsort(a, sf::axes<1>{}, sf::descending), sf::sort(a, sf::axes<0>{})};
  });
  const auto [order, descending, columns, order_down, sorted_columns] = f(x);
  // tf.argsort(x, stable=True), tf.sort(x, direction='DESCENDING'), axis 0, ...
  CHECK(flat(order) == std::vector<std::int32_t>{1, 3, 2, 0, 1, 0, 2, 3});
  CHECK(flat(descending) == as<float>({3, 2, 1, 1, 5, 5, 0, -1}));
  CHECK(flat(columns) == std::vector<std::int32_t>{1, 1, 0, 0, 0, 0, 1, 1});
  CHECK(flat(order_down) == std::vector<std::int32_t>{0, 2, 1, 3, 2, 3, 0, 1});
  CHECK(flat(sorted_columns) == as<float>({0, -1, 2, 1, 3, 1, 5, 5}));
  const std::string listing = f.get_concrete_function(sf::spec<float, sf::dyn, sf::dyn>{}).graph_string();
  CHECK(listing.find("ArgSort[axis=1 direction=DESCENDING stable=True]") != std::string::npos);
  CHECK(listing.find("TakeAlongAxis[axis=0]") != std::string::npos);

  // NaN is the largest value (NumPy's order): last ascending, first descending
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const xt::xtensor<float, 1> with_nan = {2, nan, -1, nan, 7};
  auto g = sf::function([](auto a) { return std::tuple{sf::argsort(a), sf::argsort(a, sf::descending)}; });
  const auto [up, down] = g(with_nan);
  CHECK(flat(up) == std::vector<std::int32_t>{2, 0, 4, 1, 3});
  CHECK(flat(down) == std::vector<std::int32_t>{1, 3, 4, 0, 2});
}

TEST_CASE("sorting: top_k as tf.math.top_k, static and run-time k, integers", "[graph][sorting]") {
  xt::xtensor_fixed<std::int64_t, xt::xshape<2, 5>> x{{4, 9, 4, 1, 9}, {-3, -3, 8, 0, 2}};
  auto f = sf::function([](auto a) { return sf::top_k(a, 3_c); });
  const auto [values, indices] = f(x);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(values)>, xt::xtensor_fixed<std::int64_t, xt::xshape<2, 3>>>);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(indices)>, xt::xtensor_fixed<std::int32_t, xt::xshape<2, 3>>>);
  CHECK(flat(values) == std::vector<std::int64_t>{9, 9, 4, 8, 2, 0});
  CHECK(flat(indices) == std::vector<std::int32_t>{1, 4, 0, 2, 4, 3});  // equal values: the lower index first
  CHECK(f.get_concrete_function(sf::spec<std::int64_t, 2, 5>{}).graph_string().find("TopKV2[k=3 sorted=True]") != std::string::npos);

  int k = 0;
  auto g = sf::function([&](auto a) { return sf::top_k(a, k); });
  const auto [none, no_indices] = g(xt::xtensor<float, 1>{1, 2});
  CHECK(none.size() == 0);
  CHECK(no_indices.size() == 0);
  sf::variable<float> counter(0.f);
  k = 3;
  auto h = sf::function([&](auto a) {
    counter.assign_add(1.f);
    return std::get<0>(sf::top_k(a, k));
  });
  CHECK_THROWS_WITH(h(xt::xtensor<float, 1>{1, 2}), "staticflow: top_k: k = 3 is more than the last axis's 2 elements (shape (2,))");
  CHECK(counter.value() == 0.f);
  CHECK((h(xt::xtensor<float, 1>{1, 5, 3}) == xt::xtensor<float, 1>{5, 3, 1}));
  CHECK(counter.value() == 1.f);
}

TEST_CASE("sorting: top_k by selection (k up to 32) and by partial sort, against std::stable_sort", "[graph][sorting]") {
  // lines with many ties (the lower position first), NaNs (the largest), ascending lines (the
  // selection's worst case); k = 1, 5, 32 select per line, 33 and the whole line sort
  std::mt19937 rng(29);
  // (k a C++ value the trace reads: a function per k)
  const auto top_k_positions = [](const xt::xtensor<double, 2>& x, std::size_t k) {
    return sf::function([k](auto a) { return std::get<1>(sf::top_k(a, static_cast<int>(k))); })(x);
  };
  for (const std::size_t width : {std::size_t{1}, std::size_t{33}, std::size_t{70}}) {
    xt::xtensor<double, 2> x = xt::xtensor<double, 2>::from_shape({5, width});
    for (auto& v : x) v = double(rng() % 7);
    for (std::size_t j = 0; j < width; ++j) x(3, j) = double(j);
    x(1, width / 2) = std::numeric_limits<double>::quiet_NaN();
    for (const std::size_t k : {std::size_t{1}, std::size_t{5}, std::size_t{32}, std::size_t{33}, width}) {
      if (k > width) continue;
      INFO("width " << width << ", k " << k);
      const xt::xtensor<std::int32_t, 2> got = top_k_positions(x, k);
      for (std::size_t ln = 0; ln < 5; ++ln) {
        std::vector<std::int32_t> want(width);
        std::iota(want.begin(), want.end(), 0);
        std::stable_sort(want.begin(), want.end(), [&](std::int32_t p, std::int32_t q) {
          const double a = x(ln, std::size_t(p)), b = x(ln, std::size_t(q));
          return (a != a && b == b) || a > b;  // NaN first, then descending
        });
        want.resize(k);
        CHECK(std::vector<std::int32_t>(got.data() + ln * k, got.data() + (ln + 1) * k) == want);
      }
    }
  }
}

TEST_CASE("sorting: random shapes and axes against std::stable_sort; threads", "[graph][sorting]") {
  std::mt19937 rng(17);
  auto f = sf::function([](auto a) {
    return std::tuple{sf::argsort(a, sf::axes<0>{}), sf::argsort(a, sf::axes<1>{}, sf::descending), sf::sort(a, sf::axes<2>{})};
  });
  const auto check_axis = [](const xt::xtensor<float, 3>& x, const xt::xtensor<std::int32_t, 3>& got, std::size_t axis, bool down) {
    std::array<std::size_t, 3> e{x.shape(0), x.shape(1), x.shape(2)};
    bool ok = true;
    for (std::size_t a = 0; a < (axis == 0 ? 1 : e[0]); ++a)
      for (std::size_t b = 0; b < (axis == 1 ? 1 : e[1]); ++b)
        for (std::size_t c = 0; c < (axis == 2 ? 1 : e[2]); ++c) {
          std::vector<std::int32_t> want(e[axis]);
          std::iota(want.begin(), want.end(), 0);
          const auto at = [&](std::int32_t k) {
            std::array<std::size_t, 3> i{a, b, c};
            i[axis] = static_cast<std::size_t>(k);
            return i;
          };
          std::stable_sort(want.begin(), want.end(), [&](std::int32_t p, std::int32_t q) {
            const auto i = at(p), j = at(q);
            return down ? x(i[0], i[1], i[2]) > x(j[0], j[1], j[2]) : x(i[0], i[1], i[2]) < x(j[0], j[1], j[2]);
          });
          for (std::size_t k = 0; k < want.size(); ++k) {
            const auto i = at(static_cast<std::int32_t>(k));
            ok = ok && got(i[0], i[1], i[2]) == want[k];
          }
        }
    return ok;
  };
  for (int trial = 0; trial < 10; ++trial) {
    const std::size_t a = rng() % 5, b = rng() % 6, c = rng() % 4;
    xt::xtensor<float, 3> x = xt::zeros<float>({a, b, c});
    for (auto& v : x) v = static_cast<float>(rng() % 7);  // many ties
    CAPTURE(a, b, c);
    const auto [along0, along1, sorted2] = f(x);
    CHECK(check_axis(x, along0, 0, false));
    CHECK(check_axis(x, along1, 1, true));
    for (std::size_t i = 0; i < a; ++i)
      for (std::size_t j = 0; j < b; ++j)
        for (std::size_t k = 1; k < c; ++k) CHECK(sorted2(i, j, k - 1) <= sorted2(i, j, k));
  }

  xt::xtensor<float, 3> big = xt::zeros<float>({64, 300, 9});
  for (auto& v : big) v = static_cast<float>(rng() % 50);
  const auto one = f(big);
  const std::size_t saved = sf::num_threads();
  sf::set_num_threads(2);
  const auto two = f(big);
  sf::set_num_threads(saved);
  CHECK((std::get<0>(one) == std::get<0>(two)));
  CHECK((std::get<1>(one) == std::get<1>(two)));
  CHECK(check_axis(big, std::get<1>(two), 1, true));
}

TEST_CASE("sorting: take_along_axis, its errors before any effect, eager mode", "[graph][sorting]") {
  const xt::xtensor<double, 2> x = {{10, 20, 30}, {40, 50, 60}};
  sf::variable<float> counter(0.f);
  auto f = sf::function([&](auto a, auto p) {
    counter.assign_add(1.f);
    return sf::take_along_axis(a, p, sf::axes<1>{});
  });
  CHECK((f(x, xt::xtensor<std::int32_t, 2>{{2, 2, 0, 1}, {1, 0, 0, 0}}) == xt::xtensor<double, 2>{{30, 30, 10, 20}, {50, 40, 40, 40}}));
  CHECK(counter.value() == 1.f);
  CHECK_THROWS_WITH(f(x, xt::xtensor<std::int32_t, 2>{{0}, {3}}), "staticflow: take_along_axis: indices[1] = 3 is not in [0, 3)");
  CHECK_THROWS_WITH(f(x, xt::xtensor<std::int32_t, 2>{{0, 1}}),
                    "staticflow: take_along_axis: positions of shape (1, 2) for a tensor of shape (2, 3) (they must agree off axis 1)");
  CHECK(counter.value() == 1.f);
  sf::run_functions_eagerly(true);
  auto sorted = sf::function([](auto a) { return sf::sort(a, sf::descending); });
  const auto eager = sorted(x);
  sf::run_functions_eagerly(false);
  CHECK((eager == xt::xtensor<double, 2>{{30, 20, 10}, {60, 50, 40}}));
}
