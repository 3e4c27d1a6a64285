// Tests for graph/creation.hpp: zeros / ones / fill of static shapes, zeros_like / ones_like /
// full_like of static and run-time shapes, dtypes, fusion (no buffer), gradients through them;
// range / linspace / eye with static and run-time bounds, TF's values and errors (eager mode:
// test_eager_parity.cpp).
#include <catch2/catch.hpp>

#include <cstdint>
#include <tuple>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

namespace {
/// The "Output Type" line of a concrete function's signature (TensorSpecs, as TF prints them).
template <class C>
std::string output_type(const C& c) {
  const std::string s = c.pretty_printed_signature();
  const auto begin = s.find("Output Type:\n  ") + 15, end = s.find("\nCaptures");
  return s.substr(begin, end - begin);
}
}  // namespace

TEST_CASE("zeros, ones and fill make static-shape constants of the dtype asked", "[graph][creation]") {
  auto f = sf::function([](auto x) {
    return std::tuple{x + sf::zeros(sf::shape<2, 3>{}), sf::ones<std::int32_t>(sf::shape<3>{}),
                      sf::fill(sf::shape<2, 1>{}, 2.5), sf::fill<float>(sf::shape<4>{}, 7)};
  });
  const xt::xtensor_fixed<float, xt::xshape<3>> x{1, 2, 3};
  const auto [sum, ones, filled, sevens] = f(x);
  CHECK((sum == xt::xtensor<float, 2>{{1, 2, 3}, {1, 2, 3}}));
  CHECK((ones == xt::xtensor<std::int32_t, 1>{1, 1, 1}));
  STATIC_REQUIRE(std::is_same_v<typename std::remove_cvref_t<decltype(filled)>::value_type, double>);
  CHECK((filled == xt::xtensor<double, 2>{{2.5}, {2.5}}));
  CHECK((sevens == xt::xtensor<float, 1>{7, 7, 7, 7}));
}

TEST_CASE("zeros_like, ones_like and full_like take the shape of their argument, run-time extents too",
          "[graph][creation]") {
  auto f = sf::function([](auto x) {
    return std::tuple{sf::zeros_like(x), sf::ones_like(x) * 2.f, sf::full_like(x, 3), sf::ones_like<bool>(x),
                      sf::zeros_like<double>(x) + 0.5};
  });
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{9}}) {
    const xt::xtensor<float, 2> x = xt::ones<float>({n, std::size_t{3}}) * 4.f;
    const auto [z, o, t, b, d] = f(x);
    CHECK((z == xt::zeros<float>({n, std::size_t{3}})));
    CHECK((o == xt::ones<float>({n, std::size_t{3}}) * 2.f));
    CHECK((t == xt::ones<float>({n, std::size_t{3}}) * 3.f));  // float: x's dtype, the 3 converted
    CHECK(b.shape()[0] == n);
    CHECK(xt::all(xt::equal(b, true)));
    CHECK((d == xt::ones<double>({n, std::size_t{3}}) * 0.5));
  }
  CHECK(f.tracing_count() == 1);
}

TEST_CASE("zeros, ones and fill of sf::shape_of(x): tf.zeros(tf.shape(x)), run-time extents, fused",
          "[graph][creation]") {
  auto f = sf::function([](auto x) {
    return std::tuple{sf::zeros(sf::shape_of(x)), sf::ones<std::int64_t>(sf::shape_of(x)), sf::fill(sf::shape_of(x), 2.5),
                      sf::fill<float>(sf::shape_of(x), 7) + x};
  });
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{5}}) {
    const xt::xtensor<std::int32_t, 2> x = xt::ones<std::int32_t>({std::size_t{2}, n});
    const auto [z, o, h, s] = f(x);
    STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(z)>, xt::xtensor<float, 2>>);  // float32, as tf.zeros
    STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(o)>, xt::xtensor<std::int64_t, 2>>);
    STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(h)>, xt::xtensor<double, 2>>);  // the value's dtype
    CHECK((z == xt::zeros<float>({std::size_t{2}, n})));
    CHECK((o == xt::ones<std::int64_t>({std::size_t{2}, n})));
    CHECK((h == xt::ones<double>({std::size_t{2}, n}) * 2.5));
    CHECK((s == xt::ones<float>({std::size_t{2}, n}) * 8.f));
  }
  CHECK(f.tracing_count() == 1);
  // a static shape stays static; the constant is fused (no buffer)
  auto g = sf::function([](auto x, auto y) { return sf::ones(sf::shape_of(x)) * y; });
  const xt::xtensor_fixed<float, xt::xshape<3>> a{1, 2, 3};
  const auto r = g(a, a);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(r)>, xt::xtensor_fixed<float, xt::xshape<3>>>);
  CHECK((r == a));
  using C = std::remove_cvref_t<decltype(g.get_concrete_function(sf::spec<float, sf::dyn>{}, sf::spec<float, sf::dyn>{}))>;
  CHECK(C::materialized_count == 0);
  // (eager mode: graph/test_eager_parity.cpp)
}

TEST_CASE("a created constant is fused into the loop that reads it", "[graph][creation]") {
  auto f = sf::function([](auto x, auto y) { return sf::zeros_like(x) + y * sf::ones_like(y); });
  auto& c = f.get_concrete_function(sf::spec<float, sf::dyn>{}, sf::spec<float, sf::dyn>{});
  using C = std::remove_cvref_t<decltype(c)>;
  CHECK(C::materialized_count == 0);  // no buffer: one loop over y
  const xt::xtensor<float, 1> x{1, 2, 3}, y{4, 5, 6};
  CHECK((f(x, y) == y));
  CHECK_THROWS_AS(f(x, xt::xtensor<float, 1>{1, 2}), sf::shape_error);
}

TEST_CASE("gradients through created constants: zeros_like gives none, full_like a constant",
          "[graph][creation]") {
  auto g = sf::grad<0>([](auto x) { return sf::reduce_sum(x * sf::full_like(x, 3.0) + sf::zeros_like(x * x)); });
  const xt::xtensor<double, 1> x{1, -2, 0.5};
  CHECK((g(x) == xt::xtensor<double, 1>{3, 3, 3}));
}

TEST_CASE("range: tf.range's values, dtypes and sizes, static and run-time bounds", "[graph][creation]") {
  using namespace sf::literals;
  auto f = sf::function([](auto x) {
    return std::tuple{sf::range(5_c), sf::range(2_c, 9_c, 3_c), sf::range(5_c, 1_c, sf::static_value<-2>{}), sf::range<float>(4_c) * x,
                      sf::range(3_c, 3_c), sf::range(3, 9), sf::range(0.0, 1.0, 0.25), sf::range<std::int64_t>(1, 3.5)};
  });
  const xt::xtensor_fixed<float, xt::xshape<4>> x{1, 2, 3, 4};
  const auto [r5, r2, down, scaled, empty, r39, quarters, wide] = f(x);
  auto& c = f.get_concrete_function(sf::spec<float, 4>{});
  CHECK(output_type(c) ==
        "Tuple[TensorSpec(shape=(5,), dtype=tf.int32, name=None), TensorSpec(shape=(3,), dtype=tf.int32, name=None), "
        "TensorSpec(shape=(2,), dtype=tf.int32, name=None), TensorSpec(shape=(4,), dtype=tf.float32, name=None), "
        "TensorSpec(shape=(0,), dtype=tf.int32, name=None), TensorSpec(shape=(None,), dtype=tf.int32, name=None), "
        "TensorSpec(shape=(None,), dtype=tf.float64, name=None), TensorSpec(shape=(None,), dtype=tf.int64, name=None)]");
  CHECK((r5 == xt::xtensor<std::int32_t, 1>{0, 1, 2, 3, 4}));
  CHECK((r2 == xt::xtensor<std::int32_t, 1>{2, 5, 8}));
  CHECK((down == xt::xtensor<std::int32_t, 1>{5, 3}));
  CHECK((scaled == xt::xtensor<float, 1>{0, 2, 6, 12}));
  CHECK(empty.size() == 0);
  CHECK((r39 == xt::xtensor<std::int32_t, 1>{3, 4, 5, 6, 7, 8}));
  CHECK((quarters == xt::xtensor<double, 1>{0, 0.25, 0.5, 0.75}));
  CHECK((wide == xt::xtensor<std::int64_t, 1>{1, 2, 3}));
  // values that fit although start + i * delta passes outside int32 on the way (TF's values)
  const int lo = -2'000'000'000, hi = 2'000'000'000, step = 1'000'000'000;
  auto big_steps = sf::function([&](auto y) { return y + sf::range(lo, hi, step); });
  CHECK((big_steps(xt::xtensor<std::int32_t, 1>{0}) == xt::xtensor<std::int32_t, 1>{lo, lo + step, 0, step}));  // NumPy's arange(1, 3.5, dtype=int64): counted in the bounds' dtype

  // C++ numbers captured by the lambda are read when it is traced (TF's closures): int32[None]
  for (const auto& [start, limit, delta, expected] :
       std::vector<std::tuple<int, int, int, std::vector<int>>>{{0, 7, 2, {0, 2, 4, 6}}, {10, 0, -3, {10, 7, 4, 1}},
                                                                 {4, 4, 1, {}}, {-3, -2, 5, {-3}}, {0, 1, 1, {0}}}) {
    auto g = sf::function([&](auto y) { return y * sf::range(start, limit, delta); });
    const auto out = g(xt::xtensor<std::int32_t, 1>{2});
    REQUIRE(out.size() == expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) CHECK(out(i) == 2 * expected[i]);
  }
}

TEST_CASE("range: TF's errors, thrown before the call does anything", "[graph][creation]") {
  sf::variable<float> counter(0.f);
  int limit = -1;
  double delta = 1.0;
  auto f = sf::function([&](auto x) {
    counter.assign_add(1.f);
    return x * sf::range<float>(0, limit, delta);
  });
  const xt::xtensor<float, 1> x{1};
  CHECK_THROWS_WITH(f(x), "staticflow: range: start 0.0 > limit -1.0 with delta 1.0 (TensorFlow requires start <= limit)");
  CHECK(counter.value() == 0.f);
  limit = 1, delta = 0;
  auto g = sf::function([&](auto y) { return y * sf::range(0, limit, delta); });
  CHECK_THROWS_WITH(g(x), "staticflow: range: delta must not be 0");
  delta = std::numeric_limits<double>::infinity();
  auto h = sf::function([&](auto y) { return y * sf::range(0.0, 1.0, delta); });
  CHECK_THROWS_WITH(h(xt::xtensor<double, 1>{1}), "staticflow: range: start, limit and delta must be finite (got 0.0, 1.0, inf)");
  auto down = sf::function([&](auto y) { return y * sf::range(0, 3, -1); });
  CHECK_THROWS_WITH(down(xt::xtensor<std::int32_t, 1>{1}),
                    "staticflow: range: start 0 < limit 3 with delta -1 (TensorFlow requires start >= limit)");
  // TF's size limit, and bounds that do not fit the dtype asked for
  auto huge = sf::function([&](auto y) { return y * sf::range(-3e38f, 3e38f, 1e-30f); });
  CHECK_THROWS_AS(huge(xt::xtensor<float, 1>{1}), sf::shape_error);
  const long long far = 5'000'000'000LL;
  auto narrow = sf::function([&](auto y) { return y * sf::range<std::int32_t>(0LL, far); });
  CHECK_THROWS_WITH(narrow(xt::xtensor<std::int32_t, 1>{1}), "staticflow: range: limit 5000000000 does not fit int32");
  auto good = sf::function([&](auto y) { return y * sf::range(0, 1); });
  CHECK((good(xt::xtensor<std::int32_t, 1>{5}) == xt::xtensor<std::int32_t, 1>{0}));
}

TEST_CASE("linspace: tf.linspace's values, the exact stop, num 1, run-time num and its error", "[graph][creation]") {
  using namespace sf::literals;
  auto f = sf::function([](auto x) {
    return std::tuple{sf::linspace(0.f, 1.f, 5_c) + x, sf::linspace(2.0, -1.0, 4_c), sf::linspace(3, 7, 1_c),
                      sf::linspace<double>(0, 1, 3)};
  });
  const auto [a, b, one, c] = f(xt::xtensor_fixed<float, xt::xshape<5>>{0, 0, 0, 0, 1});
  CHECK(output_type(f.get_concrete_function(sf::spec<float, 5>{})) ==
        
        "Tuple[TensorSpec(shape=(5,), dtype=tf.float32, name=None), TensorSpec(shape=(4,), dtype=tf.float64, name=None), "
        "TensorSpec(shape=(1,), dtype=tf.float32, name=None), TensorSpec(shape=(None,), dtype=tf.float64, name=None)]");
  CHECK((a == xt::xtensor<float, 1>{0, 0.25f, 0.5f, 0.75f, 2}));
  CHECK((b == xt::xtensor<double, 1>{2, 1, 0, -1}));
  CHECK((one == xt::xtensor<float, 1>{3}));
  CHECK((c == xt::xtensor<double, 1>{0, 0.5, 1}));
  // the last value is stop exactly, where start + (n - 1) * step rounds elsewhere
  auto tenth = sf::function([](auto y) { return y + sf::linspace(0.0, 0.7, 8_c); });
  const auto t = tenth(xt::xtensor<double, 1>{0});
  CHECK(t(7) == 0.7);
  CHECK(t(3) == 0.0 + 3 * (0.7 / 7));
  int num = 0;
  auto bad = sf::function([&](auto y) { return y + sf::linspace(0.f, 1.f, num); });
  CHECK_THROWS_WITH(bad(xt::xtensor<float, 1>{0}), "staticflow: linspace: num must be at least 1 (got 0)");
}

TEST_CASE("eye: the identity, square and not, static and run-time, fused with what reads it", "[graph][creation]") {
  using namespace sf::literals;
  auto f = sf::function([](auto m) { return std::tuple{sf::eye(3_c), m * sf::eye<double>(2_c, 3_c), sf::eye<std::int32_t>(2, 4)}; });
  const xt::xtensor<double, 2> m = {{5, 6, 7}, {8, 9, 10}};
  const auto [i3, masked, wide] = f(m);
  CHECK(output_type(f.get_concrete_function(sf::spec<double, sf::dyn, sf::dyn>{})) ==
        
        "Tuple[TensorSpec(shape=(3, 3), dtype=tf.float32, name=None), TensorSpec(shape=(2, 3), dtype=tf.float64, name=None), "
        "TensorSpec(shape=(None, None), dtype=tf.int32, name=None)]");
  CHECK((i3 == xt::xtensor<float, 2>{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}));
  CHECK((masked == xt::xtensor<double, 2>{{5, 0, 0}, {0, 9, 0}}));
  CHECK((wide == xt::xtensor<std::int32_t, 2>{{1, 0, 0, 0}, {0, 1, 0, 0}}));
  for (int n : {0, 1, 4}) {
    auto g = sf::function([&](auto s) { return s * sf::eye(n); });
    const auto out = g(xt::xtensor<float, 0>(2.f));
    REQUIRE(out.shape()[0] == std::size_t(n));
    REQUIRE(out.shape()[1] == std::size_t(n));
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) CHECK(out(i, j) == (i == j ? 2.f : 0.f));
  }
  int rows = -2;
  auto bad = sf::function([&](auto s) { return s * sf::eye(rows); });
  CHECK_THROWS_WITH(bad(xt::xtensor<float, 0>(1.f)), "staticflow: eye: num_rows and num_columns must be at least 0 (got -2, -2)");
}

TEST_CASE("range, linspace and eye: values, and graph listings named as TF's", "[graph][creation]") {
  // (eager mode: graph/test_eager_parity.cpp)
  using namespace sf::literals;
  auto f = sf::function([](auto x) { return std::tuple{x * sf::range<float>(3_c), x + sf::linspace(1.f, 2.f, 3_c), sf::eye(2_c, 3_c) * x}; });
  const xt::xtensor_fixed<float, xt::xshape<3>> x{1, 2, 3};
  const auto traced = f(x);
  CHECK((std::get<0>(traced) == xt::xtensor<float, 1>{0, 2, 6}));
  CHECK((std::get<1>(traced) == xt::xtensor<float, 1>{2, 3.5f, 5}));
  CHECK((std::get<2>(traced) == xt::xtensor<float, 2>{{1, 0, 0}, {0, 2, 0}}));
  const std::string listing = f.get_concrete_function(sf::spec<float, 3>{}).graph_string();
  CHECK(listing.find("Range[start=0.0, delta=1.0, size=3]") != std::string::npos);
  CHECK(listing.find("LinSpace[start=1.0, stop=2.0, num=3]") != std::string::npos);
}

TEST_CASE("gradients through range, linspace and eye: constants, no gradient of their own", "[graph][creation]") {
  using namespace sf::literals;
  auto g = sf::grad<0>([](auto x) { return sf::reduce_sum(x * sf::range<double>(3_c) + sf::square(x) * sf::linspace(1.0, 2.0, 3_c)); });
  const xt::xtensor<double, 1> x{1, -2, 0.5};
  CHECK((g(x) == xt::xtensor<double, 1>{0 + 2 * 1.0 * 1, 1 + 2 * -2.0 * 1.5, 2 + 2 * 0.5 * 2}));
  // d/dm sum(m * eye) is eye (the comparison inside eye has no gradient)
  auto trace = sf::grad<0>([](auto m) { return sf::reduce_sum(m * sf::eye<double>(3, 2)); });
  CHECK((trace(xt::xtensor<double, 2>{{1, 2}, {3, 4}, {5, 6}}) == xt::xtensor<double, 2>{{1, 0}, {0, 1}, {0, 0}}));
}
