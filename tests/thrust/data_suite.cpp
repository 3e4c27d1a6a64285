// The backend-parameterized suite's data ops (one of its translation units, each kept under the
// 2 GB compile budget): creation (range, linspace, eye), stateless random values, moments and
// layer_normalization, data movement (reverse, roll, tile, repeat, pad, split), strided slices,
// sorting (argsort, sort, top_k) and the diagonal ops. Same rules as backend_suite.cpp: every case
// computes on `suite::backend` and checks values that do not depend on the backend.
#include <catch2/catch.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "suite_backend.hpp"

TEST_CASE("suite: range, linspace and eye (static and run-time extents)", "[suite][creation]") {
  using namespace sf::literals;
  const int n = 5;
  auto f = sf::function([&](auto x) {
    return std::tuple{x * sf::range<float>(4_c), sf::range(2, 2 + 3 * n, 3), sf::linspace(0.0, 1.0, n) + 1.0,
                      sf::eye(3_c, 4_c) * sf::reduce_sum(x), sf::eye<std::int32_t>(n)};
  }, suite::backend);
  const xt::xtensor<float, 1> x = {1, 2, 3, 4};
  const auto [scaled, ints, spaced, identity, square] = suite::host(f(suite::in(x)));
  CHECK(suite::flat(scaled) == std::vector<float>{0, 2, 6, 12});
  CHECK(suite::flat(ints) == std::vector<std::int32_t>{2, 5, 8, 11, 14});
  CHECK(suite::flat(spaced) == std::vector<double>{1, 1.25, 1.5, 1.75, 2});
  CHECK(suite::flat(identity) == std::vector<float>{10, 0, 0, 0, 0, 10, 0, 0, 0, 0, 10, 0});
  REQUIRE(suite::shape(square) == std::vector<std::size_t>{5, 5});
  const auto sq = suite::flat(square);
  for (std::size_t i = 0; i < 25; ++i) CHECK(sq[i] == (i % 6 == 0 ? 1 : 0));
}

TEST_CASE("suite: stateless random values are TF's on every backend", "[suite][random]") {
  auto f = sf::function(
      [](auto x, auto seed) {
        return std::tuple{sf::random::stateless_uniform(sf::shape_of(x), seed) + x, sf::random::stateless_normal(sf::shape<7>{}, seed),
                          sf::random::stateless_uniform<std::int64_t>(sf::shape<5>{}, {1, 2}, -5, 1000000000000),
                          sf::stateless_dropout(x + 1.f, 0.4, {1, 2}), sf::random::stateless_truncated_normal<double>(sf::shape<5>{}, seed)};
      },
      suite::backend);
  const xt::xtensor<float, 1> zeros = xt::zeros<float>({std::size_t{12}});
  const xt::xtensor<std::int64_t, 1> seed = {1, 2};
  const auto [u, n, i, d, t] = suite::host(f(suite::in(zeros), suite::in(seed)));
  const std::vector<double> tf_truncated{-0.1423118100189212, 0.7406072461585091, -0.552387756244845, -0.734450092480207, -0.39842023956588357};
  const auto tf_got = suite::flat(t);
  REQUIRE(tf_got.size() == 5);
  for (std::size_t k = 0; k < 5; ++k) CHECK(tf_got[k] == Approx(tf_truncated[k]).epsilon(1e-12));
  CHECK(suite::flat(u) == std::vector<float>{0.8440604209899902f, 0.19204533100128174f, 0.9962232112884521f, 0.16038739681243896f,
                                             0.27199018001556396f, 0.6493459939956665f, 0.10694444179534912f, 0.06516242027282715f,
                                             0.4393514394760132f, 0.08476817607879639f, 0.20096802711486816f, 0.13920831680297852f});
  const std::vector<float> tf_normal{0.544110119342804f, 0.20738030970096588f, 0.0735643208026886f, 0.04643455147743225f,
                                     -1.301589846611023f, -0.9538565278053284f, 0.8417285680770874f};
  const auto nf = suite::flat(n);
  REQUIRE(nf.size() == 7);
  for (std::size_t k = 0; k < 7; ++k) CHECK(nf[k] == Approx(tf_normal[k]).epsilon(1e-6));  // exact on the host; CUDA's log/sin may differ in the last bit
  CHECK(suite::flat(i) == std::vector<std::int64_t>{146243290039, 637750006048, 318077103687, 515994380383, 327611604148});
  const float kept = 1.6666666269302368f;  // TF's mask over ones
  CHECK(suite::flat(d) == std::vector<float>{kept, 0, kept, 0, 0, kept, 0, 0, kept, 0, 0, 0});
  const auto none = xt::xtensor<float, 1>::from_shape({0});
  CHECK(suite::shape(std::get<0>(suite::host(f(suite::in(none), suite::in(seed))))) == std::vector<std::size_t>{0});
}

TEST_CASE("suite: moments and layer_normalization are TF's and Keras' on every backend", "[suite][statistics]") {
  auto f = sf::function(
      [](auto x, auto gamma, auto beta) {
        const auto [mean, variance] = sf::moments(x, sf::axes<0>{});
        return std::tuple{mean, variance, sf::layer_normalization(x, gamma, beta), sf::norm<sf::norm_order::one>(x, sf::axes<0, 1>{})};
      },
      suite::backend);
  const xt::xtensor<float, 2> x = {{1.5f, -2.0f, 3.25f}, {4.0f, 0.5f, -7.0f}};
  const xt::xtensor<float, 1> gamma = {2.0f, 0.5f, -1.0f}, beta = {0.1f, -0.2f, 0.3f};
  const auto [mean, variance, normalized, matrix_one] = suite::host(f(suite::in(x), suite::in(gamma), suite::in(beta)));
  CHECK(suite::flat(mean) == std::vector<float>{2.75f, -0.75f, -1.875f});
  CHECK(suite::flat(variance) == std::vector<float>{1.5625f, 1.5625f, 26.265625f});
  const std::vector<float> keras{0.6344664096832275f, -0.8680830001831055f, -0.7689328193664551f,
                                 2.2066049575805664f, -0.05471691116690636f, 1.6438686847686768f};
  const auto got = suite::flat(normalized);
  REQUIRE(got.size() == keras.size());
  for (std::size_t k = 0; k < keras.size(); ++k) CHECK(got[k] == Approx(keras[k]).epsilon(2e-6));
  CHECK(suite::flat(matrix_one) == std::vector<float>{10.25f});
}

TEST_CASE("suite: reverse, roll, tile, repeat, pad and split are NumPy's on every backend", "[suite][data_movement]") {
  auto f = sf::function(
      [](auto x) {
        const auto halves = sf::split<2>(x, sf::axes<1>{});
        return std::tuple{sf::reverse(x, sf::axes<0, 1>{}), sf::roll(x, {1, -1}, sf::axes<0, 1>{}), sf::tile(x, {1, 2}),
                          sf::repeat(x, 2, sf::axes<0>{}), sf::pad(x, {{1, 0}, {0, 1}}, -1.f),
                          sf::pad(x, {{0, 0}, {2, 1}}, sf::pad_mode::reflect), sf::pad(x, {{1, 1}, {0, 0}}, sf::pad_mode::symmetric),
                          halves[1] - halves[0]};
      },
      suite::backend);
  const xt::xtensor<float, 2> x = {{1, 2, 3, 4}, {5, 6, 7, 8}};
  const auto [reversed, rolled, tiled, repeated, constant, reflect, symmetric, halves] = suite::host(f(suite::in(x)));
  CHECK(suite::flat(reversed) == std::vector<float>{8, 7, 6, 5, 4, 3, 2, 1});
  CHECK(suite::flat(rolled) == std::vector<float>{6, 7, 8, 5, 2, 3, 4, 1});
  CHECK(suite::flat(tiled) == std::vector<float>{1, 2, 3, 4, 1, 2, 3, 4, 5, 6, 7, 8, 5, 6, 7, 8});
  CHECK(suite::flat(repeated) == std::vector<float>{1, 2, 3, 4, 1, 2, 3, 4, 5, 6, 7, 8, 5, 6, 7, 8});
  CHECK(suite::flat(constant) == std::vector<float>{-1, -1, -1, -1, -1, 1, 2, 3, 4, -1, 5, 6, 7, 8, -1});
  CHECK(suite::flat(reflect) == std::vector<float>{3, 2, 1, 2, 3, 4, 3, 7, 6, 5, 6, 7, 8, 7});
  CHECK(suite::flat(symmetric) == std::vector<float>{1, 2, 3, 4, 1, 2, 3, 4, 5, 6, 7, 8, 5, 6, 7, 8});
  CHECK(suite::flat(halves) == std::vector<float>{2, 2, 2, 2});
}

TEST_CASE("suite: strided slices (negative steps, bounds from the end) are Python's on every backend", "[suite][slicing]") {
  auto f = sf::function([](auto x) { return std::tuple{x(sf::span(sf::none, sf::none, -1), sf::span(1, -1)), x(sf::whole, sf::span(-1, 0, -2))}; },
                        suite::backend);
  const xt::xtensor<float, 2> x = {{1, 2, 3, 4}, {5, 6, 7, 8}};
  const auto [inner, odd] = suite::host(f(suite::in(x)));
  CHECK(suite::flat(inner) == std::vector<float>{6, 7, 2, 3});
  CHECK(suite::flat(odd) == std::vector<float>{4, 2, 8, 6});
}

TEST_CASE("suite: argsort, sort and top_k are stable and TF's on every backend", "[suite][sorting]") {
  auto f = sf::function(
      [](auto x) {
        const auto [values, indices] = sf::top_k(x, 2);
        return std::tuple{sf::argsort(x), sf::sort(x, sf::axes<0>{}, sf::descending), values, indices};
      },
      suite::backend);
  const xt::xtensor<float, 2> x = {{3, 1, 2, 1}, {0, -1, 5, 5}};
  const auto [order, columns, values, indices] = suite::host(f(suite::in(x)));
  CHECK(suite::flat(order) == std::vector<std::int32_t>{1, 3, 2, 0, 1, 0, 2, 3});
  CHECK(suite::flat(columns) == std::vector<float>{3, 1, 5, 5, 0, -1, 2, 1});
  CHECK(suite::flat(values) == std::vector<float>{3, 2, 5, 5});
  CHECK(suite::flat(indices) == std::vector<std::int32_t>{0, 2, 2, 3});
}

TEST_CASE("suite: diag_part, set_diag, trace and einsum's diagonals on every backend", "[suite][linalg]") {
  auto f = sf::function(
      [](auto x, auto d) {
        return std::tuple{sf::linalg::diag_part(x), sf::linalg::set_diag(x, d), sf::linalg::trace(x), sf::einsum<"bii->b">(x)};
      },
      suite::backend);
  const xt::xtensor<float, 3> x = {{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}};
  const xt::xtensor<float, 2> d = {{-1, -2}, {-3, -4}};
  const auto [part, replaced, trace, diagonal_sum] = suite::host(f(suite::in(x), suite::in(d)));
  CHECK(suite::flat(part) == std::vector<float>{1, 4, 5, 8});
  CHECK(suite::flat(replaced) == std::vector<float>{-1, 2, 3, -2, -3, 6, 7, -4});
  CHECK(suite::flat(trace) == std::vector<float>{5, 13});
  CHECK(suite::flat(diagonal_sum) == std::vector<float>{5, 13});
  // a diagonal of the wrong length: the error comes before any kernel writes
  const xt::xtensor<float, 2> wrong = {{1, 2, 3}, {4, 5, 6}};
  CHECK_THROWS_WITH(f(suite::in(x), suite::in(wrong)), Catch::Contains("set_diag: a diagonal of shape (2, 3) for matrices of shape (2, 2, 2)"));
}
