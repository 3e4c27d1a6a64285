// The backend-parameterized suite's ops that read or write at indices, or size their results from
// the data (one of its translation units, each kept under the 2 GB compile budget): gather and its
// out-of-range error, segment sums (negative ids, ids checked first, counted segments), boolean_mask,
// repeat by a tensor and where(condition), unique (hash table or sort), gather_nd and the scatters.
// Same rules as backend_suite.cpp: every case computes on `suite::backend` and checks values that
// do not depend on the backend.
#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "suite_backend.hpp"

TEST_CASE("suite: gather along each axis, and its out-of-range error", "[suite][gather]") {
  auto f = sf::function([](auto x, auto ids) { return std::tuple{sf::gather(x, ids), sf::gather(x, ids, sf::axes<1>{})}; },
                        suite::backend);
  const xt::xtensor<float, 2> x = {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}};
  const xt::xtensor<std::int32_t, 1> ids = {2, 0, 2};
  const auto [rows, cols] = suite::host(f(suite::in(x), suite::in(ids)));
  CHECK(suite::flat(rows) == std::vector<float>{7, 8, 9, 1, 2, 3, 7, 8, 9});
  CHECK(suite::flat(cols) == std::vector<float>{3, 1, 3, 6, 4, 6, 9, 7, 9});
  const xt::xtensor<std::int32_t, 1> bad = {1, 3};
  CHECK_THROWS_WITH(f(suite::in(x), suite::in(bad)), "staticflow: gather: indices[1] = 3 is not in [0, 3)");
  const auto none = xt::xtensor<std::int32_t, 1>::from_shape({0});
  const auto [no_rows, no_cols] = suite::host(f(suite::in(x), suite::in(none)));
  CHECK(suite::shape(no_rows) == std::vector<std::size_t>{0, 3});
  CHECK(suite::shape(no_cols) == std::vector<std::size_t>{3, 0});
}

TEST_CASE("suite: segment sums drop negative ids, add in order, and check ids first on every backend", "[suite][segment]") {
  auto f = sf::function(
      [](auto x, auto ids, auto sorted) { return std::tuple{sf::unsorted_segment_sum(x, ids, 3), sf::segment_sum(x, sorted, 3)}; },
      suite::backend);
  auto g = sf::grad<0>([](auto x, auto ids, auto w) { return sf::reduce_sum(sf::unsorted_segment_sum(x, ids, 3) * w); },
                       suite::backend);
  const xt::xtensor<float, 2> x = {{1, 2}, {3, 4}, {5, 6}, {7, 8}}, w = {{1, 2}, {3, 4}, {5, 6}};
  const xt::xtensor<std::int32_t, 1> ids = {2, -1, 0, 2}, sorted = {0, 0, 1, 2};
  const auto [unsorted, by_sorted] = suite::host(f(suite::in(x), suite::in(ids), suite::in(sorted)));
  CHECK(suite::flat(unsorted) == std::vector<float>{5, 6, 0, 0, 8, 10});
  CHECK(suite::flat(by_sorted) == std::vector<float>{4, 6, 5, 6, 7, 8});
  // the gradient: w's row at each id, zeros where the id is negative
  const auto dx = suite::host(g(suite::in(x), suite::in(ids), suite::in(w)));
  CHECK(suite::flat(dx) == std::vector<float>{5, 6, 0, 0, 1, 2, 5, 6});
  // bad ids: TF's errors, checked before any kernel writes (on the host for Thrust)
  const xt::xtensor<std::int32_t, 1> far = {0, 3, 0, 0}, unordered = {0, 1, 0, 2};
  CHECK_THROWS_WITH(f(suite::in(x), suite::in(far), suite::in(sorted)),
                    "staticflow: unsorted_segment_sum: segment_ids[1] = 3 is out of range [0, 3)");
  CHECK_THROWS_WITH(f(suite::in(x), suite::in(ids), suite::in(unordered)),
                    "staticflow: segment_sum: segment ids are not increasing (segment_ids[2] = 0 after 1)");
  CHECK_THROWS_WITH(g(suite::in(x), suite::in(far), suite::in(w)),
                    "staticflow: unsorted_segment_sum: segment_ids[1] = 3 is out of range [0, 3)");
  // without num_segments (tf.math.segment_sum): ids[-1] + 1 rows, counted on the host, and the
  // gradient through the counted rows
  auto counted = sf::function([](auto t, auto k) {
    const auto s = sf::segment_sum(t, k);
    return std::tuple{s, sf::reduce_sum(s * s)};
  }, suite::backend);
  auto dcounted = sf::grad<0>([](auto t, auto k) { return sf::reduce_sum(sf::square(sf::segment_sum(t, k))); }, suite::backend);
  const xt::xtensor<std::int32_t, 1> gaps = {1, 1, 3, 3};
  const auto [rows, squares] = suite::host(counted(suite::in(x), suite::in(gaps)));
  CHECK((rows.shape() == std::array<std::size_t, 2>{4, 2}));
  CHECK(suite::flat(rows) == std::vector<float>{0, 0, 4, 6, 0, 0, 12, 14});
  CHECK(suite::flat(squares) == std::vector<float>{16 + 36 + 144 + 196});
  CHECK(suite::flat(suite::host(dcounted(suite::in(x), suite::in(gaps)))) == std::vector<float>{8, 12, 8, 12, 24, 28, 24, 28});
  CHECK_THROWS_WITH(counted(suite::in(x), suite::in(unordered)),
                    "staticflow: segment_sum: segment ids are not increasing (segment_ids[2] = 0 after 1)");
}

TEST_CASE("suite: boolean_mask, repeat by a tensor and where(condition) size their results from the data on every backend", "[suite][masking]") {
  auto f = sf::function(
      [](auto x, auto m) {
        auto kept = sf::boolean_mask(x * 2.f, m);
        return std::tuple{kept, sf::reduce_sum(kept), sf::boolean_mask(x, x > 4.f, sf::axes<0>{}), sf::where(x > 4.f),
                          sf::boolean_mask(x, m(sf::span(0, 2)), sf::axes<1>{})};
      },
      suite::backend);
  auto g = sf::grad<0>([](auto x, auto m, auto w) { return sf::reduce_sum(sf::boolean_mask(x, m) * w); }, suite::backend);
  const xt::xtensor<float, 2> x = {{1, 2}, {3, 4}, {5, 6}, {7, 8}}, w = {{1, 2}, {3, 4}};
  const xt::xtensor<bool, 1> m = {false, true, false, true};
  const auto [kept, sum, large, where, columns] = suite::host(f(suite::in(x), suite::in(m)));
  CHECK(suite::flat(kept) == std::vector<float>{6, 8, 14, 16});
  CHECK(suite::flat(sum) == std::vector<float>{44});
  CHECK(suite::flat(large) == std::vector<float>{5, 6, 7, 8});
  CHECK(suite::flat(where) == std::vector<std::int64_t>{2, 0, 2, 1, 3, 0, 3, 1});
  CHECK(suite::flat(columns) == std::vector<float>{2, 4, 6, 8});
  // the gradient: w's rows at the kept positions, zeros elsewhere
  const auto dx = suite::host(g(suite::in(x), suite::in(m), suite::in(w)));
  CHECK(suite::flat(dx) == std::vector<float>{0, 0, 1, 2, 0, 0, 3, 4});
  // nothing kept: an empty result
  const xt::xtensor<bool, 1> none = {false, false, false, false};
  CHECK(suite::flat(std::get<0>(suite::host(f(suite::in(x), suite::in(none))))).empty());
  const xt::xtensor<bool, 1> short_mask = {true, false};
  CHECK_THROWS_WITH(f(suite::in(x), suite::in(short_mask)),
                    "staticflow: boolean_mask: mask.shape = [2] does not match tensor.shape[0:1] of tensor.shape = [4,2]");
  // repeat by a tensor of counts: the counts read on the host, the rows gathered on the device
  auto r = sf::function([](auto t, auto c) { return std::tuple{sf::repeat(t, c, sf::axes<0>{}), sf::repeat(t, c(sf::span(0, 2)), sf::axes<1>{})}; },
                        suite::backend);
  auto dr = sf::grad<0>([](auto t, auto c, auto u) { return sf::reduce_sum(sf::repeat(t, c, sf::axes<0>{}) * u); }, suite::backend);
  const xt::xtensor<std::int32_t, 1> counts = {2, 0, 1, 0};
  const auto [by_rows, by_columns] = suite::host(r(suite::in(x), suite::in(counts)));
  CHECK(suite::flat(by_rows) == std::vector<float>{1, 2, 1, 2, 5, 6});
  CHECK(suite::flat(by_columns) == std::vector<float>{1, 1, 3, 3, 5, 5, 7, 7});
  const xt::xtensor<float, 2> u = {{1, 2}, {3, 4}, {5, 6}};
  CHECK(suite::flat(suite::host(dr(suite::in(x), suite::in(counts), suite::in(u)))) == std::vector<float>{4, 6, 0, 0, 5, 6, 0, 0});
  const xt::xtensor<std::int32_t, 1> negative = {1, -2, 0, 0};
  CHECK_THROWS_WITH(r(suite::in(x), suite::in(negative)), "staticflow: repeat: repeats[1] = -2 is negative");
}

TEST_CASE("suite: unique gives tf.unique's values and indices on every backend (hash table or sort)", "[suite][unique]") {
  auto f = sf::function([](auto x, auto k) { return std::tuple_cat(sf::unique(x), sf::unique(k)); }, suite::backend);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const xt::xtensor<float, 1> x = {3, -0.f, nan, 1, 3, 0, nan, 1, 7};
  const xt::xtensor<std::int32_t, 1> k = {5, 5, 5, -2, 5, -2};
  const auto [y, idx, yk, ik] = suite::host(f(suite::in(x), suite::in(k)));
  const auto yv = suite::flat(y);
  REQUIRE(yv.size() == 6);  // 3, -0, nan, 1, nan, 7: -0.0 == 0.0, every NaN distinct
  CHECK((yv[0] == 3 && yv[1] == 0 && std::signbit(yv[1]) && std::isnan(yv[2]) && yv[3] == 1 && std::isnan(yv[4]) && yv[5] == 7));
  CHECK(suite::flat(idx) == std::vector<std::int32_t>{0, 1, 2, 3, 0, 1, 4, 3, 5});
  CHECK(suite::flat(yk) == std::vector<std::int32_t>{5, -2});
  CHECK(suite::flat(ik) == std::vector<std::int32_t>{0, 0, 0, 1, 0, 1});
  const xt::xtensor<float, 1> empty = xt::xtensor<float, 1>::from_shape({0});
  CHECK(suite::flat(std::get<0>(suite::host(f(suite::in(empty), suite::in(k))))).empty());
}

TEST_CASE("suite: gather_nd and the scatters apply index tuples in order on every backend", "[suite][scatter]") {
  auto f = sf::function(
      [](auto x, auto row_ids, auto u, auto cell_ids) {
        // device tensors have run-time extents: the tuples' depth made static as tf.reshape(i, [-1, K])
        const auto rows = sf::reshape<sf::shape<sf::dyn, 1>>(row_ids);
        const auto cells = sf::reshape<sf::shape<sf::dyn, 2>>(cell_ids);
        return std::tuple{sf::gather_nd(x, cells), sf::tensor_scatter_nd_update(x, rows, u), sf::tensor_scatter_nd_add(x, rows, u),
                          sf::tensor_scatter_nd_sub(x, cells, sf::gather_nd(x, cells)),
                          sf::scatter_nd(cells, sf::gather_nd(x, cells), sf::shape<2, 3>{})};
      },
      suite::backend);
  const xt::xtensor<float, 2> x = {{1, 2, 3}, {4, 5, 6}}, u = {{10, 20, 30}, {-1, -2, -3}, {7, 8, 9}};
  const xt::xtensor<std::int32_t, 1> rows = {1, 0, 1}, cells = {1, 2, 0, 0, 1, 2};
  const auto [picked, updated, added, emptied, scattered] = suite::host(f(suite::in(x), suite::in(rows), suite::in(u), suite::in(cells)));
  CHECK(suite::flat(picked) == std::vector<float>{6, 1, 6});
  CHECK(suite::flat(updated) == std::vector<float>{-1, -2, -3, 7, 8, 9});  // the last update of row 1 wins
  CHECK(suite::flat(added) == std::vector<float>{0, 0, 0, 21, 33, 45});
  CHECK(suite::flat(emptied) == std::vector<float>{0, 2, 3, 4, 5, -6});
  CHECK(suite::flat(scattered) == std::vector<float>{1, 0, 0, 0, 0, 12});
  // a tuple outside the tensor: TF's error, checked before any kernel writes (on the host for Thrust)
  const xt::xtensor<std::int32_t, 1> bad = {1, 2, 0, 7, 1, 2};
  CHECK_THROWS_WITH(f(suite::in(x), suite::in(rows), suite::in(u), suite::in(bad)),
                    Catch::Contains("indices[1] = [0, 7] is not in [0, 2) x [0, 3)"));
}
