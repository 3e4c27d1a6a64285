// sf::unsorted_segment_sum and sf::segment_sum (graph/segment.hpp, backend/cpu/segment.hpp) as
// tf.math.unsorted_segment_sum and jax.ops.segment_sum with TF's sorted-id rules: ids of rank 1
// and 2 (int32, int64), negative ids dropped, static and run-time num_segments (and none:
// tf.math.segment_sum's ids[-1] + 1 rows), empty input, threads, eager mode, the listing, and TF's
// errors thrown before any effect.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <xtensor/xfixed.hpp>
#include <xtensor/xtensor.hpp>
#include <xtensor/xview.hpp>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

namespace {
/// The segment sum written out: data as `ids.size()` rows, each added to row ids[p] of the
/// result in position order (a negative id skipped), in T.
template <class T, class Data, class Ids>
std::vector<T> reference(const Data& data, const Ids& ids, std::size_t segments) {
  const std::size_t positions = ids.size(), inner = positions ? data.size() / positions : 0;
  std::vector<T> out(segments * inner, T(0));
  for (std::size_t p = 0; p < positions; ++p) {
    const auto id = ids.data()[p];
    if (id < 0) continue;
    for (std::size_t k = 0; k < inner; ++k) out[static_cast<std::size_t>(id) * inner + k] += data.data()[p * inner + k];
  }
  return out;
}
template <class X, class T>
bool equals(const X& x, const std::vector<T>& want) {
  return x.size() == want.size() && std::equal(want.begin(), want.end(), x.data());
}

template <class T, std::size_t R>
xt::xtensor<T, R> random_values(std::array<std::size_t, R> shape, std::mt19937& rng) {
  auto x = xt::xtensor<T, R>::from_shape(shape);
  std::uniform_real_distribution<double> u(-3, 3);
  for (auto& v : x) v = static_cast<T>(u(rng));
  return x;
}
template <class J, std::size_t R>
xt::xtensor<J, R> random_ids(std::array<std::size_t, R> shape, int lo, int hi, std::mt19937& rng) {
  auto i = xt::xtensor<J, R>::from_shape(shape);
  std::uniform_int_distribution<int> u(lo, hi);
  for (auto& v : i) v = static_cast<J>(u(rng));
  return i;
}
}  // namespace

TEST_CASE("unsorted_segment_sum: ids of rank 1 and 2, int32 and int64, negative ids dropped", "[graph][segment]") {
  std::mt19937 rng(17);
  for (int round = 0; round < 4; ++round) {
    const std::size_t a = 1 + rng() % 7, b = 1 + rng() % 5, c = 1 + rng() % 4, segments = 1 + rng() % 6;
    const auto data = random_values<float, 3>({a, b, c}, rng);
    const auto ids1 = random_ids<std::int32_t, 1>({a}, -1, static_cast<int>(segments) - 1, rng);
    const auto ids2 = random_ids<std::int64_t, 2>({a, b}, -2, static_cast<int>(segments) - 1, rng);
    auto f = sf::function([segments](auto x, auto i, auto j) {
      return std::tuple{sf::unsorted_segment_sum(x, i, segments), sf::unsorted_segment_sum(x, j, segments)};
    });
    const auto [by_rows, by_pairs] = f(data, ids1, ids2);
    REQUIRE((by_rows.shape() == std::array<std::size_t, 3>{segments, b, c}));
    REQUIRE((by_pairs.shape() == std::array<std::size_t, 2>{segments, c}));
    CHECK(equals(by_rows, reference<float>(data, ids1, segments)));
    CHECK(equals(by_pairs, reference<float>(data, ids2, segments)));
  }
  // written out: ids {1, -1, 1, 0} into 3 segments; segment 2 has no rows
  auto g = sf::function([](auto x, auto i) { return sf::unsorted_segment_sum(x, i, 3); });
  const xt::xtensor<double, 2> x{{1, 2}, {10, 20}, {100, 200}, {1000, 2000}};
  CHECK((g(x, xt::xtensor<std::int64_t, 1>{1, -1, 1, 0}) == xt::xtensor<double, 2>{{1000, 2000}, {101, 202}, {0, 0}}));
  // integer data sums in its own dtype
  const xt::xtensor<std::int32_t, 1> counts{3, 4, 5};
  CHECK((g(counts, xt::xtensor<std::int32_t, 1>{2, 2, 0}) == xt::xtensor<std::int32_t, 1>{5, 0, 7}));
}

TEST_CASE("segment sums: num_segments static (in the type) or run-time; the listing", "[graph][segment]") {
  using namespace sf::literals;
  xt::xtensor_fixed<double, xt::xshape<4, 3>> data;
  for (std::size_t r = 0; r < 4; ++r)
    for (std::size_t k = 0; k < 3; ++k) data(r, k) = static_cast<double>(10 * r + k);
  const xt::xtensor_fixed<std::int32_t, xt::xshape<4>> ids{0, 0, 2, 4};
  auto f = sf::function([](auto x, auto i) {
    return std::tuple{sf::unsorted_segment_sum(x, i, 5_c), sf::segment_sum(x, i, sf::static_value<5>{}),
                      sf::unsorted_segment_sum(x, i, 5)};
  });
  const auto [u, s, r] = f(data, ids);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(u)>, xt::xtensor_fixed<double, xt::xshape<5, 3>>>);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(s)>, xt::xtensor_fixed<double, xt::xshape<5, 3>>>);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(r)>, xt::xtensor<double, 2>>);
  const xt::xtensor<double, 2> want{{10, 12, 14}, {0, 0, 0}, {20, 21, 22}, {0, 0, 0}, {30, 31, 32}};
  CHECK((u == want));
  CHECK((s == want));
  CHECK((r == want));
  using spec_x = sf::spec<double, sf::dyn, 3>;
  using spec_i = sf::spec<std::int32_t, sf::dyn>;
  const auto& cf = f.get_concrete_function(spec_x{}, spec_i{});
  using C = std::remove_cvref_t<decltype(cf)>;
  STATIC_REQUIRE(std::is_same_v<sf::spec_of_node_t<typename C::template output_node<0>>, sf::spec<double, 5, 3>>);
  STATIC_REQUIRE(std::is_same_v<sf::spec_of_node_t<typename C::template output_node<2>>, sf::spec<double, sf::dyn, 3>>);
  const std::string listing = cf.graph_string();
  CHECK(listing.find("UnsortedSegmentSum[num_segments=5]") != std::string::npos);
  CHECK(listing.find(" SegmentSum[num_segments=5]") != std::string::npos);
}

TEST_CASE("segment_sum: sorted ids as TF's, errors with its text", "[graph][segment]") {
  auto f = sf::function([](auto x, auto i) { return sf::segment_sum(x, i, 4); });
  const xt::xtensor<float, 2> x{{1, 2}, {3, 4}, {5, 6}, {7, 8}};
  CHECK((f(x, xt::xtensor<std::int32_t, 1>{0, 0, 1, 3}) == xt::xtensor<float, 2>{{4, 6}, {5, 6}, {0, 0}, {7, 8}}));
  CHECK_THROWS_WITH(f(x, xt::xtensor<std::int32_t, 1>{0, 2, 1, 3}),
                    "staticflow: segment_sum: segment ids are not increasing (segment_ids[2] = 1 after 2)");
  CHECK_THROWS_WITH(f(x, xt::xtensor<std::int64_t, 1>{-1, 0, 1, 1}),
                    "staticflow: segment_sum: segment ids must be >= 0 (segment_ids[0] = -1)");
  CHECK_THROWS_WITH(f(x, xt::xtensor<std::int32_t, 1>{0, 1, 2, 4}),
                    "staticflow: segment_sum: segment_ids[3] = 4 is out of range [0, 4)");
}

TEST_CASE("segment sums: TF's errors before any effect, call_into's buffer untouched", "[graph][segment]") {
  sf::variable<float> counter(0.f);
  auto f = sf::function([&](auto x, auto i) {
    counter.assign_add(1.f);
    return sf::unsorted_segment_sum(x, i, 4);
  });
  const xt::xtensor<float, 2> x{{1, 2}, {3, 4}, {5, 6}, {7, 8}};
  CHECK((f(x, xt::xtensor<std::int32_t, 1>{3, 3, -1, 0}) == xt::xtensor<float, 2>{{7, 8}, {0, 0}, {0, 0}, {4, 6}}));
  CHECK(counter.value() == 1.f);
  CHECK_THROWS_WITH(f(x, xt::xtensor<std::int32_t, 1>{0, 1, 2, 5}),
                    "staticflow: unsorted_segment_sum: segment_ids[3] = 5 is out of range [0, 4)");
  CHECK_THROWS_WITH(f(x, xt::xtensor<std::int32_t, 2>{{0, 1}, {2, 3}, {9, 0}, {1, 1}}),
                    "staticflow: unsorted_segment_sum: segment_ids[2,0] = 9 is out of range [0, 4)");
  CHECK_THROWS_WITH(f(x, xt::xtensor<std::int32_t, 1>{0, 1, 2}),
                    "staticflow: unsorted_segment_sum: data.shape = [4,2] does not start with segment_ids.shape = [3]");
  CHECK(counter.value() == 1.f);
  auto negative = sf::function([](auto t, auto i) { return sf::unsorted_segment_sum(t, i, -1); });
  CHECK_THROWS_WITH(negative(x, xt::xtensor<std::int32_t, 1>{0, 0, 0, 0}),
                    "staticflow: unsorted_segment_sum: num_segments must be non-negative (got -1)");
  auto sum = sf::function([](auto t, auto i) { return sf::unsorted_segment_sum(t, i, 2); });
  xt::xtensor<float, 2> out = xt::zeros<float>({std::size_t{2}, std::size_t{2}}) + 7.f;
  CHECK_THROWS_WITH(sum.call_into(out, x, xt::xtensor<std::int32_t, 1>{0, 1, 0, 2}),
                    "staticflow: unsorted_segment_sum: segment_ids[3] = 2 is out of range [0, 2)");
  CHECK((out == xt::xtensor<float, 2>{{7, 7}, {7, 7}}));
  sum.call_into(out, x, xt::xtensor<std::int32_t, 1>{0, 1, 0, -5});
  CHECK((out == xt::xtensor<float, 2>{{6, 8}, {3, 4}}));
}

TEST_CASE("segment sums: empty data, zero segments and empty rows are ordinary input", "[graph][segment]") {
  auto three = sf::function([](auto x, auto i) { return sf::unsorted_segment_sum(x, i, 3); });
  auto none = sf::function([](auto x, auto i) { return sf::unsorted_segment_sum(x, i, 0); });
  auto sorted_none = sf::function([](auto x, auto i) { return sf::segment_sum(x, i, 0); });
  // no rows: zeros of [3, 2]
  const auto zeros = three(xt::xtensor<float, 2>::from_shape({0, 2}), xt::xtensor<std::int32_t, 1>::from_shape({0}));
  CHECK((zeros == xt::xtensor<float, 2>{{0, 0}, {0, 0}, {0, 0}}));
  // rows without elements: [3, 0]
  const auto thin = three(xt::xtensor<float, 2>::from_shape({4, 0}), xt::xtensor<std::int32_t, 1>{0, 2, 2, -1});
  CHECK((thin.shape() == std::array<std::size_t, 2>{3, 0}));
  // zero segments: every id must be negative (dropped), as in TF
  const xt::xtensor<float, 2> x{{1, 2}, {3, 4}};
  const auto empty = none(x, xt::xtensor<std::int32_t, 1>{-1, -3});
  CHECK((empty.shape() == std::array<std::size_t, 2>{0, 2}));
  CHECK_THROWS_WITH(none(x, xt::xtensor<std::int32_t, 1>{-1, 0}),
                    "staticflow: unsorted_segment_sum: segment_ids[1] = 0 is out of range [0, 0)");
  CHECK(sorted_none(xt::xtensor<float, 2>::from_shape({0, 2}), xt::xtensor<std::int32_t, 1>::from_shape({0})).size() == 0);
  // size-1 everything
  CHECK((three(xt::xtensor<float, 1>{5}, xt::xtensor<std::int32_t, 1>{1}) == xt::xtensor<float, 1>{0, 5, 0}));
}

TEST_CASE("segment sums: 2 threads give the 1-thread bits; eager mode", "[graph][segment]") {
  std::mt19937 rng(23);
  const std::size_t rows = 6000, width = 40, segments = 50;
  const auto data = random_values<float, 2>({rows, width}, rng);
  const auto ids = random_ids<std::int32_t, 1>({rows}, -1, static_cast<int>(segments) - 1, rng);
  auto f = sf::function([](auto x, auto i) { return sf::unsorted_segment_sum(x * 2.f, i, 50); });
  const xt::xtensor<float, 2> one = f(data, ids);
  const std::size_t saved = sf::num_threads();
  sf::set_num_threads(2);
  const xt::xtensor<float, 2> two = f(data, ids);
  sf::set_num_threads(saved);
  CHECK((one == two));
  const xt::xtensor<float, 2> doubled = data * 2.f;
  CHECK(equals(one, reference<float>(doubled, ids, segments)));

  sf::run_functions_eagerly(true);
  auto g = sf::function([](auto x, auto i) { return sf::segment_sum(x, i, 3) + sf::unsorted_segment_sum(x, i, 3); });
  const xt::xtensor<float, 2> x{{1, 2}, {3, 4}, {5, 6}};
  CHECK((g(x, xt::xtensor<std::int32_t, 1>{0, 0, 2}) == xt::xtensor<float, 2>{{8, 12}, {0, 0}, {10, 12}}));
  CHECK_THROWS_WITH(g(x, xt::xtensor<std::int32_t, 1>{1, 0, 2}),
                    "staticflow: segment_sum: segment ids are not increasing (segment_ids[1] = 0 after 1)");
  CHECK_THROWS_WITH(f(data, xt::xtensor<std::int32_t, 1>{50}),
                    "staticflow: unsorted_segment_sum: data.shape = [6000,40] does not start with segment_ids.shape = [1]");
  sf::run_functions_eagerly(false);
}

TEST_CASE("segment_sum without num_segments: ids[-1] + 1 rows, counted when it runs, as tf.math.segment_sum",
          "[graph][segment]") {
  std::mt19937 rng(31);
  sf::variable<float> counter(0.f);
  auto f = sf::function([&](auto x, auto i) {
    counter.assign_add(1.f);
    const auto s = sf::segment_sum(x, i);
    return std::tuple{s, sf::reduce_sum(s, sf::axes<1>{}) * 2.f};  // a later slot reads the counted extent
  });
  for (int round = 0; round < 6; ++round) {
    const std::size_t rows = 1 + rng() % 9, width = 1 + rng() % 4;
    const auto data = random_values<double, 2>({rows, width}, rng);
    auto ids = random_ids<std::int64_t, 1>({rows}, 0, 6, rng);
    std::sort(ids.begin(), ids.end());  // sorted, with gaps and repeats; the first id may be above 0
    const std::size_t segments = static_cast<std::size_t>(ids(rows - 1)) + 1;
    INFO("rows " << rows << ", width " << width << ", segments " << segments);
    const auto [s, row_sums] = f(data, ids);
    REQUIRE((s.shape() == std::array<std::size_t, 2>{segments, width}));
    CHECK(equals(s, reference<double>(data, ids, segments)));
    REQUIRE(row_sums.size() == segments);
    for (std::size_t r = 0; r < segments; ++r) CHECK(row_sums(r) == Approx(2 * xt::sum(xt::view(s, r))()).margin(1e-12));
  }
  // one signature for every count: the extent is sf::dyn even for static shapes
  const xt::xtensor_fixed<float, xt::xshape<3, 2>> x{{1, 2}, {3, 4}, {5, 6}};
  auto g = sf::function([](auto t, auto i) { return sf::segment_sum(t, i); });
  const auto r = g(x, xt::xtensor_fixed<std::int32_t, xt::xshape<3>>{1, 1, 3});
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(r)>, xt::xtensor<float, 2>>);
  CHECK((r == xt::xtensor<float, 2>{{0, 0}, {4, 6}, {0, 0}, {5, 6}}));
  CHECK((g(x, xt::xtensor_fixed<std::int32_t, xt::xshape<3>>{0, 0, 0}) == xt::xtensor<float, 2>{{9, 12}}));
  CHECK(g.tracing_count() == 1);
  using C = std::remove_cvref_t<decltype(g.get_concrete_function(sf::spec<float, 3, 2>{}, sf::spec<std::int32_t, 3>{}))>;
  STATIC_REQUIRE(std::is_same_v<sf::spec_of_node_t<typename C::template output_node<0>>, sf::spec<float, sf::dyn, 2>>);
  const std::string listing = g.get_concrete_function(sf::spec<float, 3, 2>{}, sf::spec<std::int32_t, 3>{}).graph_string();
  CHECK(listing.find("SegmentSum") != std::string::npos);
  CHECK(listing.find("SegmentSum[") == std::string::npos);  // no num_segments attribute: TF's op
  // TF's errors, thrown before any effect of the call
  const float before = counter.value();
  const xt::xtensor<float, 2> y{{1, 2}, {3, 4}, {5, 6}, {7, 8}};
  CHECK_THROWS_WITH(f(y, xt::xtensor<std::int32_t, 1>{0, 2, 1, 3}),
                    "staticflow: segment_sum: segment ids are not increasing (segment_ids[2] = 1 after 2)");
  CHECK_THROWS_WITH(f(y, xt::xtensor<std::int32_t, 1>{-1, 0, 1, 1}),
                    "staticflow: segment_sum: segment ids must be >= 0 (segment_ids[0] = -1)");
  CHECK_THROWS_WITH(f(y, xt::xtensor<std::int32_t, 1>{-3, -2, -2, -1}),
                    "staticflow: segment_sum: segment ids must be >= 0 (segment_ids[0] = -3)");
  CHECK_THROWS_WITH(f(y, xt::xtensor<std::int32_t, 1>{0, 1, 2}),
                    "staticflow: segment_sum: data.shape = [4,2] does not start with segment_ids.shape = [3]");
  CHECK(counter.value() == before);
  // no ids: no rows; rows without elements; size 1
  const auto none = g(xt::xtensor<float, 2>::from_shape({0, 3}), xt::xtensor<std::int32_t, 1>::from_shape({0}));
  CHECK((none.shape() == std::array<std::size_t, 2>{0, 3}));
  const auto thin = g(xt::xtensor<float, 2>::from_shape({2, 0}), xt::xtensor<std::int32_t, 1>{0, 4});
  CHECK((thin.shape() == std::array<std::size_t, 2>{5, 0}));
  CHECK((g(xt::xtensor<float, 1>{5}, xt::xtensor<std::int32_t, 1>{2}) == xt::xtensor<float, 1>{0, 0, 5}));
  // eager mode gives the same
  sf::run_functions_eagerly(true);
  CHECK((g(x, xt::xtensor_fixed<std::int32_t, xt::xshape<3>>{1, 1, 3}) == r));
  CHECK_THROWS_WITH(g(y, xt::xtensor<std::int32_t, 1>{1, 0, 2, 2}),
                    "staticflow: segment_sum: segment ids are not increasing (segment_ids[1] = 0 after 1)");
  sf::run_functions_eagerly(false);
}
