// Tests for graph/random.hpp: stateless random numbers with TensorFlow's values (the reference
// numbers below were printed by tensorflow 2.21 on this machine, tf.random.stateless_* with the
// same seeds), run-time shapes, threads, distributions checked statistically, errors,
// listings, and dropout with its gradient (eager mode: test_eager_parity.cpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <tuple>
#include <vector>

#include <staticflow/staticflow.hpp>

#include "tf_reference.hpp"

namespace sf = staticflow;
using tf_reference::as;
using tf_reference::flat;

namespace {
const xt::xtensor_fixed<std::int64_t, xt::xshape<2>> seed_12{1, 2};
}  // namespace

TEST_CASE("stateless uniform, normal and integer values are TensorFlow's, bit for bit", "[graph][random]") {
  auto f = sf::function([](auto seed) {
    return std::tuple{sf::random::stateless_uniform(sf::shape<12>{}, seed),
                      sf::random::stateless_uniform<double>(sf::shape<5>{}, seed),
                      sf::random::stateless_normal(sf::shape<7>{}, seed),
                      sf::random::stateless_normal<double>(sf::shape<5>{}, seed),
                      sf::random::stateless_uniform<std::int32_t>(sf::shape<6>{}, seed, -5, 11),
                      sf::random::stateless_uniform<std::int64_t>(sf::shape<5>{}, seed, -5, 1000000000000),
                      sf::random::stateless_uniform_full_int(sf::shape<5>{}, seed),
                      sf::random::stateless_uniform_full_int<std::int32_t>(sf::shape<5>{}, seed)};
  });
  const auto [u, ud, n, nd, i32, i64, full, full32] = f(seed_12);
  CHECK(flat(u) == as<float>({0.8440604209899902, 0.19204533100128174, 0.9962232112884521, 0.16038739681243896,
                              0.27199018001556396, 0.6493459939956665, 0.10694444179534912, 0.06516242027282715,
                              0.4393514394760132, 0.08476817607879639, 0.20096802711486816, 0.13920831680297852}));
  CHECK(flat(ud) == as<double>({0.7524837538451801, 0.9697857725627486, 0.17592233912897481, 0.8555556648693279, 0.514811871731222}));
  CHECK(flat(n) == as<float>({0.544110119342804, 0.20738030970096588, 0.0735643208026886, 0.04643455147743225,
                              -1.301589846611023, -0.9538565278053284, 0.8417285680770874}));
  CHECK(flat(nd) == as<double>({-0.1423118100189212, 0.7406072461585091, -1.469047669443883, 1.147747453689489, -0.7218813856153005}));
  CHECK(flat(i32) == std::vector<std::int32_t>{7, -4, 9, -2, -2, 0});
  CHECK(flat(i64) == std::vector<std::int64_t>{146243290039, 637750006048, 318077103687, 515994380383, 327611604148});
  CHECK(flat(full) == std::vector<std::int64_t>{7464880146280614444, 1591045637757961278, -1057468755545501549,
                                                2524363516007002203, 6884554327646026923});
  CHECK(flat(full32) == std::vector<std::int32_t>{1105988140, 1738052849, -335576002, 370444179, 10670227});
  CHECK(f.tracing_count() == 1);
}

TEST_CASE("truncated normals are TF's: each group of values reads its own stretch of the counter", "[graph][random]") {
  auto f = sf::function([](auto seed) {
    return std::tuple{sf::random::stateless_truncated_normal(sf::shape<10>{}, seed),
                      sf::random::stateless_truncated_normal<double>(sf::shape<5>{}, seed),
                      sf::random::stateless_truncated_normal(sf::shape<6>{}, {3, 4}, 1.f, 0.5f)};
  });
  const auto [z, zd, scaled] = f(seed_12);
  CHECK(flat(z) == as<float>({0.544110119342804, 0.20738030970096588, 0.0735643208026886, 0.04643455147743225, 0.16820591688156128,
                              -1.6850333213806152, 0.24202857911586761, 1.703450322151184, 1.1060677766799927, -1.0725637674331665}));
  CHECK(flat(zd) == as<double>({-0.1423118100189212, 0.7406072461585091, -0.552387756244845, -0.734450092480207, -0.39842023956588357}));
  const auto tf_scaled = as<float>({0.9130330681800842, 1.8361773490905762, 1.1740851402282715, 0.14805465936660767, 1.319259524345398,
                                    0.34503769874572754});
  for (std::size_t k = 0; k < 6; ++k) CHECK(scaled(k) == Approx(tf_scaled[k]).epsilon(1e-7));
  const std::string listing = f.get_concrete_function(sf::spec<std::int64_t, 2>{}).graph_string();
  CHECK(listing.find("StatelessTruncatedNormalV2[dtype=float32]") != std::string::npos);
}

TEST_CASE("seeds: an int32 or int64 tensor read per call, or two integers fixed when traced", "[graph][random]") {
  auto f = sf::function([](auto seed) { return sf::random::stateless_uniform(sf::shape<2, 3>{}, seed); });
  const std::vector<float> tf_minus3_7 =
      as<float>({0.9851840734481812, 0.1729649305343628, 0.30341291427612305, 0.7769861221313477, 0.0477524995803833, 0.5370059013366699});
  CHECK(flat(f(xt::xtensor_fixed<std::int64_t, xt::xshape<2>>{-3, 7})) == tf_minus3_7);
  CHECK(flat(f(xt::xtensor_fixed<std::int32_t, xt::xshape<2>>{-3, 7})) == tf_minus3_7);  // int32 widened as TF's
  CHECK(f(seed_12)(0, 0) == 0.8440604209899902f);  // a new seed: the same concrete function
  CHECK(f.tracing_count() == 2);                   // (one per seed dtype)
  auto fixed = sf::function([] { return sf::random::stateless_uniform(sf::shape<2, 3>{}, {-3, 7}); });
  CHECK(flat(fixed()) == tf_minus3_7);
  // minval / maxval and mean / stddev, as TF's wrapper computes them
  auto scaled = sf::function([] {
    return std::tuple{sf::random::stateless_uniform(sf::shape<6>{}, {1, 2}, -2.f, 3.f),
                      sf::random::stateless_normal(sf::shape<5>{}, {4, 5}, 3.f, 2.f)};
  });
  const auto [u, n] = scaled();
  const auto tf_u = as<float>({2.220302104949951, -1.0397733449935913, 2.98111629486084, -1.1980630159378052, -0.6400490999221802, 1.246729850769043});
  const auto tf_n = as<float>({3.727672576904297, 2.560182571411133, 1.381348729133606, 5.722537040710449, 2.853210687637329});
  for (std::size_t k = 0; k < 6; ++k) CHECK(u(k) == Approx(tf_u[k]).epsilon(1e-7));  // a fused multiply-add may round once
  for (std::size_t k = 0; k < 5; ++k) CHECK(n(k) == Approx(tf_n[k]).epsilon(1e-7));
}

TEST_CASE("split and fold_in make TF's new seeds", "[graph][random]") {
  auto f = sf::function([](auto seed32, auto seed64) {
    return std::tuple{sf::random::split<3>(seed32), sf::random::split(seed64), sf::random::fold_in(seed64, 7),
                      sf::random::fold_in(seed64, std::int64_t{7})};
  });
  const auto [s3, s2, folded, folded64] = f(xt::xtensor_fixed<std::int32_t, xt::xshape<2>>{1, 2}, seed_12);
  CHECK(flat(s3) == std::vector<std::int32_t>{1105988140, 1738052849, -335576002, 370444179, 10670227, -246211131});
  CHECK(flat(s2) == std::vector<std::int64_t>{7464880146280614444, 1591045637757961278, -1057468755545501549, 2524363516007002203});
  CHECK(flat(folded) == std::vector<std::int32_t>{1105988140, 7});
  CHECK(flat(folded64) == std::vector<std::int64_t>{7464880146280614444, 7});
  // a split seed seeds a draw (s[1] as a training step's seed)
  auto g = sf::function([](auto seed) { return sf::random::stateless_uniform(sf::shape<3>{}, sf::random::split(seed)[1]); });
  auto h = sf::function([](auto seed) { return sf::random::stateless_uniform(sf::shape<3>{}, seed); });
  CHECK((g(seed_12) == h(xt::xtensor_fixed<std::int64_t, xt::xshape<2>>{-1057468755545501549, 2524363516007002203})));
}

TEST_CASE("run-time shapes through sf::shape_of, sizes 0 and 1 included; value i depends on i alone", "[graph][random]") {
  auto f = sf::function([](auto x) { return sf::random::stateless_uniform(sf::shape_of(x), {1, 2}) + x * 0.f; });
  const auto reference = as<float>({0.8440604209899902, 0.19204533100128174, 0.9962232112884521, 0.16038739681243896,
                                    0.27199018001556396, 0.6493459939956665, 0.10694444179534912});
  for (std::size_t n : {0, 1, 3, 7}) {
    const xt::xtensor<float, 1> x = xt::zeros<float>({n});
    const auto r = f(x);
    REQUIRE(r.size() == n);
    CHECK(flat(r) == std::vector<float>(reference.begin(), reference.begin() + static_cast<std::ptrdiff_t>(n)));
  }
  const xt::xtensor<float, 2> m = xt::zeros<float>({std::size_t{0}, std::size_t{4}});
  CHECK(f(m).shape()[1] == 4);
  CHECK(f.tracing_count() == 2);
}

TEST_CASE("philox: the counter is one 128-bit number; TF's seed scramble", "[graph][random]") {
  using block = sf::philox::block;
  CHECK((sf::philox::advance(block{0xFFFFFFFFu, 0, 0, 0}, 1) == block{0, 1, 0, 0}));
  CHECK((sf::philox::advance(block{5, 0, 0, 0}, std::uint64_t{1} << 32) == block{5, 1, 0, 0}));
  CHECK((sf::philox::advance(block{0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 7}, 2) == block{1, 0, 0, 8}));
  CHECK((sf::philox::advance(block{1, 2, 3, 4}, 0) == block{1, 2, 3, 4}));
  static_assert(sf::philox::from_seed(1, 2).counter[0] == 0 && sf::philox::from_seed(1, 2).counter[1] == 0);  // constexpr
  CHECK(sf::philox::unit_float(0xFFFFFFFFu) == 1.f - 0x1p-23f);
  CHECK(sf::philox::unit_double(0xFFFFFFFFu, 0xFFFFFFFFu) == 1.0 - 0x1p-52);
}

TEST_CASE("one or two threads give the same numbers", "[graph][random]") {
  // (large results: run-time shapes, taken from arguments of those shapes)
  auto f = sf::function([](auto a, auto b, auto seed) {
    return std::tuple{sf::random::stateless_normal(sf::shape_of(a), seed), sf::random::stateless_uniform<double>(sf::shape_of(b), seed)};
  });
  const xt::xtensor<float, 2> a = xt::zeros<float>({1000, 1003});
  const xt::xtensor<float, 1> b = xt::zeros<float>({300001});
  const std::size_t saved = sf::num_threads();
  sf::set_num_threads(1);
  const auto one = f(a, b, seed_12);
  sf::set_num_threads(2);
  const auto two = f(a, b, seed_12);
  sf::set_num_threads(saved);
  CHECK((std::get<0>(one) == std::get<0>(two)));
  CHECK((std::get<1>(one) == std::get<1>(two)));
}

TEST_CASE("the distributions: moments, tails and integer counts", "[graph][random]") {
  // fixed seeds: the figures are deterministic, the bounds about 5 standard errors wide
  constexpr std::size_t n = 1 << 20;
  auto f = sf::function([](auto x) {
    return std::tuple{sf::random::stateless_uniform(sf::shape_of(x), {7, 11}), sf::random::stateless_normal<double>(sf::shape_of(x), {7, 11}),
                      sf::random::stateless_normal(sf::shape_of(x), {3, 4}),
                      sf::random::stateless_uniform<std::int32_t>(sf::shape_of(x), {5, 6}, 0, 10),
                      sf::random::stateless_truncated_normal<double>(sf::shape_of(x), {8, 9})};
  });
  const auto [u, z, zf, k, zt] = f(xt::xtensor<float, 1>(xt::zeros<float>({n})));
  auto moments = [](const auto& v) {
    double s = 0, s2 = 0;
    for (double x : v) s += x, s2 += x * x;
    const double mean = s / static_cast<double>(v.size());
    return std::pair{mean, s2 / static_cast<double>(v.size()) - mean * mean};
  };
  const auto [um, uv] = moments(u);
  CHECK(um == Approx(0.5).margin(5 * std::sqrt(1.0 / 12 / n)));
  CHECK(uv == Approx(1.0 / 12).margin(0.001));
  CHECK(xt::amin(u)() >= 0.f);
  CHECK(xt::amax(u)() < 1.f);
  const auto [zm, zv] = moments(z);
  CHECK(zm == Approx(0).margin(5 / std::sqrt(double(n))));
  CHECK(zv == Approx(1).margin(0.01));
  const auto [fm, fv] = moments(zf);
  CHECK(fm == Approx(0).margin(5 / std::sqrt(double(n))));
  CHECK(fv == Approx(1).margin(0.01));
  std::size_t within_one = 0, beyond_three = 0;
  for (double x : z) within_one += std::abs(x) < 1, beyond_three += std::abs(x) > 3;
  CHECK(double(within_one) / n == Approx(0.682689).margin(0.003));
  CHECK(double(beyond_three) / n == Approx(0.0026998).margin(0.0003));
  std::vector<std::size_t> counts(10);
  for (auto v : k) {
    REQUIRE((v >= 0 && v < 10));
    ++counts[static_cast<std::size_t>(v)];
  }
  double chi2 = 0;
  for (auto c : counts) chi2 += (double(c) - n / 10.0) * (double(c) - n / 10.0) / (n / 10.0);
  CHECK(chi2 < 30);  // 9 degrees of freedom: P(chi2 > 30) < 0.0005
  // the normal truncated to (-2, 2): mean 0, variance 1 - 4 phi(2) / (Phi(2) - Phi(-2)) = 0.773741
  const auto [tm, tv] = moments(zt);
  CHECK(tm == Approx(0).margin(5 / std::sqrt(double(n))));
  CHECK(tv == Approx(0.773741).margin(0.005));
  CHECK(xt::amax(xt::abs(zt))() < 2.0);
}

TEST_CASE("random ops' listings name TF's ops", "[graph][random]") {
  // (eager mode's values: graph/test_eager_parity.cpp)
  auto g = sf::function([](auto seed) {
    return std::tuple{sf::random::stateless_uniform<std::int32_t>(sf::shape<2>{}, seed, 3, 9), sf::random::stateless_uniform(sf::shape<2>{}, {1, 2})};
  });
  const std::string listing = g.get_concrete_function(sf::spec<std::int32_t, 2>{}).graph_string();
  CHECK(listing.find("int32[2] = StatelessRandomUniformIntV2[dtype=int32, minval=3, maxval=9] a") != std::string::npos);
  CHECK(listing.find("float32[2] = StatelessRandomUniformV2[dtype=float32, seed=(1, 2)]") != std::string::npos);
}

TEST_CASE("random misuse: empty integer ranges and dropout rates outside 0 <= rate < 1 throw when traced", "[graph][random]") {
  auto f = sf::function([](auto x) { return x + sf::random::stateless_uniform<std::int32_t>(sf::shape<3>{}, {1, 2}, 4, 4); });
  CHECK_THROWS_AS(f(xt::xtensor<std::int32_t, 1>{1, 2, 3}), sf::shape_error);
  CHECK_THROWS_WITH(f(xt::xtensor<std::int32_t, 1>{1, 2, 3}), "staticflow: stateless_uniform: need minval < maxval (got 4 and 4)");
  auto seeded = sf::function([](auto seed) { return sf::random::stateless_uniform(sf::shape<2>{}, seed); });
  CHECK(seeded(xt::xtensor<std::int64_t, 1>{1, 2})(0) == 0.8440604209899902f);  // a run-time seed extent, checked per call
  CHECK_THROWS_WITH(seeded(xt::xtensor<std::int64_t, 1>{1, 2, 3}),
                    "staticflow: random: the seed must have shape [2] (TensorFlow's stateless seed), got (3,)");
  auto wide = sf::function([] { return sf::random::stateless_uniform<std::int32_t>(sf::shape<2>{}, {1, 2}, -1, 5000000000); });
  CHECK_THROWS_WITH(wide(), "staticflow: stateless_uniform: minval -1 and maxval 5000000000 must fit int32");
  auto d = sf::function([](auto x) { return sf::stateless_dropout(x, 1.0, {1, 2}); });
  CHECK_THROWS_WITH(d(xt::xtensor<float, 1>{1, 2}), "staticflow: dropout: rate must be in [0, 1) (got 1.0)");
}

TEST_CASE("stateless dropout: TF's mask and scale, and its gradient", "[graph][random]") {
  auto f = sf::function([](auto x) { return sf::stateless_dropout(x, 0.4, {1, 2}); });
  const xt::xtensor<float, 2> x = xt::reshape_view(xt::arange<float>(1, 13), {3, 4});
  CHECK(flat(f(x)) == as<float>({1.6666666269302368, 0, 5, 0, 0, 10, 0, 0, 15, 0, 0, 0}));
  auto keep_all = sf::function([](auto x) { return sf::stateless_dropout(x, 0.0, {1, 2}); });
  CHECK((keep_all(x) == x));
  // d/dx sum(dropout(x) * w) = mask * scale * w
  auto g = sf::grad<0>([](auto x, auto w) { return sf::reduce_sum(sf::stateless_dropout(x, 0.4, {1, 2}) * w); });
  const xt::xtensor<double, 2> xd = xt::cast<double>(x), w = xt::ones<double>({3, 4}) * 3.0;
  const auto dx = g(xd, w);
  const auto kept = flat(f(xd));  // float64's mask: its uniforms are made from 64 bits each
  const double scale = 1.0 / (1.0 - 0.4);
  CHECK(flat(f(xd)) == std::vector<double>{1 * scale, 2 * scale, 0, 4 * scale, 5 * scale, 6 * scale, 7 * scale, 0, 9 * scale,
                                           10 * scale, 11 * scale, 0});
  for (std::size_t k = 0; k < 12; ++k) CHECK(dx.data()[k] == (kept[k] != 0 ? 3.0 * (1.0 / (1.0 - 0.4)) : 0.0));
  // a run-time shape: the mask comes from x's extents
  auto h = sf::function([](auto x) { return sf::stateless_dropout(x, 0.5, {9, 9}); });
  const xt::xtensor<float, 1> ones = xt::ones<float>({std::size_t{4096}});
  const auto r = h(ones);
  std::size_t kept_count = 0;
  for (float v : r) {
    REQUIRE((v == 0.f || v == 2.f));
    kept_count += v != 0;
  }
  CHECK(double(kept_count) == Approx(2048).margin(5 * 32));
}
