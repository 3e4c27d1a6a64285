// Tests for backend/cpu/reduce.hpp and graph/reduce.hpp: every reduction, over all axes, static
// axes (suffix, prefix, interleaved), run-time axes and keepdims, against a scalar reference;
// float sums stay accurate over millions of elements; argmax / argmin take the first best. How the
// kernel runs them (broadcast inputs, blocks of rows, small static loops): test_reduce_kernels.cpp.
#include <catch2/catch.hpp>

#include <type_traits>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

namespace {
// The reference: reduce x (extents 2x3x4 as a flat row-major array) over the axes in `mask`.
template <class T, class Combine>
std::vector<T> reference(const xt::xtensor<T, 3>& x, std::array<bool, 3> mask, T init, Combine combine) {
  const auto& e = x.shape();
  std::array<std::size_t, 3> out_dim{};
  for (std::size_t i = 0; i < 3; ++i) out_dim[i] = mask[i] ? 1 : e[i];
  std::vector<T> out(out_dim[0] * out_dim[1] * out_dim[2], init);
  for (std::size_t i = 0; i < e[0]; ++i)
    for (std::size_t j = 0; j < e[1]; ++j)
      for (std::size_t k = 0; k < e[2]; ++k) {
        const std::size_t o = ((mask[0] ? 0 : i) * out_dim[1] + (mask[1] ? 0 : j)) * out_dim[2] + (mask[2] ? 0 : k);
        out[o] = combine(out[o], x(i, j, k));
      }
  return out;
}

xt::xtensor<int, 3> small_ints() {
  auto x = xt::xtensor<int, 3>::from_shape({2, 3, 4});
  for (std::size_t i = 0; i < x.size(); ++i) x.flat(i) = static_cast<int>((i * 7) % 11) - 5;
  return x;
}

xt::xtensor<float, 1> random_like(std::size_t n) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-3, 3);
  auto x = xt::xtensor<float, 1>::from_shape({n});
  for (auto& v : x) v = dist(rng);
  return x;
}

template <class R>
std::vector<typename R::value_type> flat(const R& r) {
  return std::vector<typename R::value_type>(r.begin(), r.end());
}
}  // namespace

TEST_CASE("reduce_sum / prod / max / min over every axis set match the reference", "[reduce]") {
  const auto x = small_ints();
  auto f = sf::function([](auto t) {
    return std::tuple{sf::reduce_sum(t, sf::axes<0>{}, sf::keepdims), sf::reduce_sum(t, sf::axes<1>{}, sf::keepdims),
                      sf::reduce_sum(t, sf::axes<2>{}, sf::keepdims), sf::reduce_sum(t, sf::axes<0, 2>{}, sf::keepdims),
                      sf::reduce_sum(t, sf::axes<1, 2>{}, sf::keepdims), sf::reduce_sum(t, sf::axes<0, 1>{}, sf::keepdims),
                      sf::reduce_sum(t, sf::keepdims)};
  });
  const auto [s0, s1, s2, s02, s12, s01, s012] = f(x);
  auto plus = [](int a, int b) { return a + b; };
  CHECK(flat(s0) == reference(x, {true, false, false}, 0, plus));
  CHECK(flat(s1) == reference(x, {false, true, false}, 0, plus));
  CHECK(flat(s2) == reference(x, {false, false, true}, 0, plus));
  CHECK(flat(s02) == reference(x, {true, false, true}, 0, plus));
  CHECK(flat(s12) == reference(x, {false, true, true}, 0, plus));
  CHECK(flat(s01) == reference(x, {true, true, false}, 0, plus));
  CHECK(flat(s012) == reference(x, {true, true, true}, 0, plus));
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(s02)>, xt::xtensor<int, 3>>);

  auto g = sf::function([](auto t) {
    return std::tuple{sf::reduce_prod(t, sf::axes<2>{}), sf::reduce_max(t, sf::axes<0, 2>{}), sf::reduce_min(t, sf::axes<1>{}),
                      sf::reduce_max(t), sf::reduce_min(t)};
  });
  const auto [p2, mx02, mn1, mx, mn] = g(x);
  CHECK(flat(p2) == reference(x, {false, false, true}, 1, [](int a, int b) { return a * b; }));
  CHECK(flat(mx02) == reference(x, {true, false, true}, std::numeric_limits<int>::lowest(), [](int a, int b) { return std::max(a, b); }));
  CHECK(flat(mn1) == reference(x, {false, true, false}, std::numeric_limits<int>::max(), [](int a, int b) { return std::min(a, b); }));
  CHECK(mx == 5);
  CHECK(mn == -5);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(p2)>, xt::xtensor<int, 2>>);
}

TEST_CASE("keepdims, static shapes and negative axes give the expected result types", "[reduce]") {
  auto f = sf::function([](auto m) {
    return std::tuple{sf::reduce_sum(m, sf::axes<-1>{}), sf::reduce_sum(m, sf::axes<-1>{}, sf::keepdims), sf::reduce_mean(m),
                      sf::reduce_sum(m, sf::axes<0>{})};
  });
  xt::xtensor_fixed<double, xt::xshape<2, 3>> m = {{1, 2, 3}, {4, 5, 6}};
  auto [rows, rows_kept, mean, cols] = f(m);
  static_assert(std::is_same_v<decltype(rows), xt::xtensor_fixed<double, xt::xshape<2>>>);
  static_assert(std::is_same_v<decltype(rows_kept), xt::xtensor_fixed<double, xt::xshape<2, 1>>>);
  static_assert(std::is_same_v<decltype(mean), double>);
  CHECK((rows == xt::xtensor_fixed<double, xt::xshape<2>>{6, 15}));
  CHECK((rows_kept == xt::xtensor_fixed<double, xt::xshape<2, 1>>{{6}, {15}}));
  CHECK(mean == 3.5);
  CHECK((cols == xt::xtensor_fixed<double, xt::xshape<3>>{5, 7, 9}));
}

TEST_CASE("a static value as the axis (1_c, -1_c) is sf::axes: static result shapes", "[reduce]") {
  using namespace sf::literals;
  STATIC_REQUIRE(std::is_same_v<decltype(-1_c), std::integral_constant<int, -1>>);  // negation keeps it static
  STATIC_REQUIRE(std::is_same_v<decltype(-(-3_c)), std::integral_constant<int, 3>>);
  auto f = sf::function([](auto m) {
    return std::tuple{sf::reduce_mean(m, -1_c), sf::reduce_sum(m, 0_c, sf::keepdims), sf::reduce_max(m, 1_c), sf::argmax(m, -1_c),
                      sf::argmin(m, 0_c)};
  });
  const xt::xtensor_fixed<double, xt::xshape<2, 3>> m = {{1, 2, 3}, {6, 5, 4}};
  const auto [mean, cols, mx, am, an] = f(m);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(mean)>, xt::xtensor_fixed<double, xt::xshape<2>>>);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(cols)>, xt::xtensor_fixed<double, xt::xshape<1, 3>>>);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(am)>, xt::xtensor_fixed<std::int64_t, xt::xshape<2>>>);
  CHECK((mean == xt::xtensor_fixed<double, xt::xshape<2>>{2, 5}));
  CHECK((cols == xt::xtensor_fixed<double, xt::xshape<1, 3>>{{7, 7, 7}}));
  CHECK((mx == xt::xtensor_fixed<double, xt::xshape<2>>{3, 6}));
  CHECK((am == xt::xtensor_fixed<std::int64_t, xt::xshape<2>>{2, 0}));
  CHECK((an == xt::xtensor_fixed<std::int64_t, xt::xshape<3>>{0, 0, 0}));
}

TEST_CASE("a plain int axis is a run-time value; out of range throws", "[reduce]") {
  auto f = sf::function([](auto m, auto axis) { return sf::reduce_sum(m, 1) + sf::cast<float>(axis) * 0.f; });
  xt::xtensor<float, 2> m = {{1, 2, 3}, {4, 5, 6}};
  CHECK((f(m, 0) == xt::xtensor<float, 1>{6, 15}));
  auto g = sf::function([](auto m) { return std::tuple{sf::reduce_sum(m, 0), sf::reduce_max(m, -1, sf::keepdims)}; });
  auto [s, mx] = g(m);
  CHECK((s == xt::xtensor<float, 1>{5, 7, 9}));
  CHECK((mx == xt::xtensor<float, 2>{{3}, {6}}));
  auto bad = sf::function([](auto t) { return sf::reduce_sum(t, 2); });
  CHECK_THROWS_MATCHES(bad(m), sf::shape_error, Catch::Message("staticflow: axis 2 is out of range for rank 2"));
}

TEST_CASE("reduce_mean truncates integers; any / all reduce bools", "[reduce]") {
  auto f = sf::function([](auto i, auto b) {
    return std::tuple{sf::reduce_mean(i), sf::reduce_mean(sf::cast<float>(i)), sf::reduce_any(b, sf::axes<1>{}),
                      sf::reduce_all(b, sf::axes<1>{}), sf::reduce_any(i > 100)};
  });
  xt::xtensor<int, 1> i = {1, 2, 4};
  xt::xtensor<bool, 2> b = {{true, false}, {true, true}, {false, false}};
  auto [mi, mf, any, all, none] = f(i, b);
  CHECK(mi == 2);  // 7 / 3 truncates
  CHECK(mf == Approx(7.f / 3.f));
  CHECK((any == xt::xtensor<bool, 1>{true, true, false}));
  CHECK((all == xt::xtensor<bool, 1>{false, true, false}));
  CHECK_FALSE(none);
}

TEST_CASE("reduce_max propagates NaN; empty reductions give the identity", "[reduce]") {
  auto f = sf::function([](auto x) { return std::tuple{sf::reduce_max(x), sf::reduce_sum(x), sf::reduce_min(x)}; });
  xt::xtensor<float, 1> x = random_like(40);
  x(17) = std::numeric_limits<float>::quiet_NaN();
  auto [mx, s, mn] = f(x);
  CHECK(std::isnan(mx));
  CHECK(std::isnan(s));
  CHECK(std::isnan(mn));
  auto empty = xt::xtensor<float, 1>::from_shape({0});
  auto [emx, es, emn] = f(empty);
  CHECK(emx == -std::numeric_limits<float>::infinity());
  CHECK(es == 0.f);
  CHECK(emn == std::numeric_limits<float>::infinity());
}

TEST_CASE("float sums are accurate over millions of elements", "[reduce][accuracy]") {
  // 2^24 values of 0.1f: a single running float sum stalls at 2^21 (about 2e6); the blocked,
  // pairwise order stays within a few ulps of the exact sum.
  const std::size_t n = std::size_t{1} << 24;
  auto x = xt::xtensor<float, 1>::from_shape({n});
  x.fill(0.1f);
  auto f = sf::function([](auto t) { return sf::reduce_sum(t); });
  const double exact = static_cast<double>(0.1f) * static_cast<double>(n);
  const float s = f(x);
  CHECK(std::abs(s - exact) / exact < 1e-6);
  float naive = 0.f;
  for (std::size_t i = 0; i < n; ++i) naive += 0.1f;
  CHECK(std::abs(naive - exact) / exact > 0.1);  // what the order above avoids

  // fused input: sum(a * b) equals the double-precision dot product closely
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-1, 1);
  auto a = xt::xtensor<float, 1>::from_shape({100003});
  auto b = xt::xtensor<float, 1>::from_shape({100003});
  double dot = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    a(i) = dist(rng);
    b(i) = dist(rng);
    dot += double(a(i)) * double(b(i));
  }
  auto g = sf::function([](auto p, auto q) { return sf::reduce_sum(p * q); });
  CHECK(g(a, b) == Approx(dot).epsilon(1e-5));
}

TEST_CASE("argmax / argmin give the first best index as int64", "[reduce]") {
  auto f = sf::function([](auto m) {
    return std::tuple{sf::argmax(m, sf::axes<1>{}), sf::argmin(m, 0), sf::argmax(m, -1)};
  });
  xt::xtensor<float, 2> m = {{1, 5, 5, 2}, {7, 0, 7, -1}, {3, 3, 3, 3}};
  auto [amax, amin, last] = f(m);
  static_assert(std::is_same_v<decltype(amax), xt::xtensor<std::int64_t, 1>>);
  CHECK((amax == xt::xtensor<std::int64_t, 1>{1, 0, 0}));
  CHECK((amin == xt::xtensor<std::int64_t, 1>{0, 1, 2, 1}));
  CHECK((last == amax));
}
