// The backend-parameterized suite, its second translation unit (backend_suite.cpp is the first:
// one TU was the longest compile of the Thrust build): control flow, creation, gathers, random
// numbers, statistics, data movement, sorting, segment sums, masking, unique, scatters and the
// diagonal ops. Same rules: every case computes on `suite::backend` and checks values that do not
// depend on the backend.
#include <catch2/catch.hpp>

#include <cmath>
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "suite_backend.hpp"

// Control flow: the selector, a loop's condition and tensor-array indices are computed where the
// backend computes (on the device for Thrust) and read back by the host, which picks the branch
// or decides whether to iterate again.
TEST_CASE("suite: cond runs the branch its predicate picks (a reduction, a C++ scalar)", "[suite][control]") {
  INFO("backend " << suite::name());
  auto f = sf::function(
      [](auto x) { return sf::cond(sf::reduce_sum(x) > 0, [&] { return x * x; }, [&] { return sf::floordiv(-x, 2); }); },
      suite::backend);
  const xt::xtensor<std::int32_t, 1> pos = {1, -2, 3}, neg = {-1, -2, 3, -5};
  CHECK(suite::flat(suite::host(f(suite::in(pos)))) == std::vector<std::int32_t>{1, 4, 9});
  CHECK(suite::flat(suite::host(f(suite::in(neg)))) == std::vector<std::int32_t>{0, 1, -2, 2});
  CHECK(f.tracing_count() == 1);

  // a branch with a materialized node of its own, and a predicate that is a C++ scalar argument
  auto g = sf::function([](auto x, auto flag) {
    return sf::cond(flag, [&] { return x / sf::reduce_max(x); }, [&] { return x - 1.f; });
  }, suite::backend);
  const xt::xtensor<float, 1> x = {1, 2, 4};
  CHECK(suite::flat(suite::host(g(suite::in(x), suite::in(true)))) == std::vector<float>{0.25f, 0.5f, 1.f});
  CHECK(suite::flat(suite::host(g(suite::in(x), suite::in(false)))) == std::vector<float>{0.f, 1.f, 3.f});
}

TEST_CASE("suite: cond with tuple results, used twice, computed once", "[suite][control]") {
  INFO("backend " << suite::name());
  auto f = sf::function([](auto x, auto y) {
    auto [a, b] = sf::cond(sf::reduce_sum(x) > sf::reduce_sum(y), [&] { return std::tuple{x, y}; },
                           [&] { return std::tuple{y, x}; });
    return std::tuple{a, b - 1, a * 2 + b};
  }, suite::backend);
  const xt::xtensor<std::int32_t, 1> x = {5, 6}, y = {1, 2};
  {
    const auto [hi, lo, mix] = suite::host(f(suite::in(x), suite::in(y)));
    CHECK(suite::flat(hi) == std::vector<std::int32_t>{5, 6});
    CHECK(suite::flat(lo) == std::vector<std::int32_t>{0, 1});
    CHECK(suite::flat(mix) == std::vector<std::int32_t>{11, 14});
  }
  const auto before = sf::plan::materialization_counter();
  const auto [hi, lo, mix] = suite::host(f(suite::in(y), suite::in(x)));
  CHECK(sf::plan::materialization_counter() - before == 3);  // two reduce_sums and one cond
  CHECK(suite::flat(hi) == std::vector<std::int32_t>{5, 6});
  CHECK(suite::flat(lo) == std::vector<std::int32_t>{0, 1});
  CHECK(suite::flat(mix) == std::vector<std::int32_t>{11, 14});

  // nested conds on a scalar
  auto sign = sf::function([](auto v) {
    return sf::cond(sf::reduce_sum(v) > 0, [&] { return v * 0 + 1; },
                    [&] { return sf::cond(sf::reduce_sum(v) < 0, [&] { return v * 0 - 1; }, [&] { return v * 0; }); });
  }, suite::backend);
  const xt::xtensor<std::int32_t, 1> p = {3}, m = {-4}, z = {0};
  CHECK(suite::flat(suite::host(sign(suite::in(p)))) == std::vector<std::int32_t>{1});
  CHECK(suite::flat(suite::host(sign(suite::in(m)))) == std::vector<std::int32_t>{-1});
  CHECK(suite::flat(suite::host(sign(suite::in(z)))) == std::vector<std::int32_t>{0});
}

TEST_CASE("suite: switch_case runs the indexed branch, the last one when out of range", "[suite][control]") {
  INFO("backend " << suite::name());
  auto f = sf::function([](auto i, auto x) {
    return sf::switch_case(i, [&] { return x + 1; }, [&] { return x * 10; }, [&] { return -x; });
  }, suite::backend);
  const xt::xtensor<std::int32_t, 1> x = {5, -3};
  CHECK(suite::flat(suite::host(f(suite::in(0), suite::in(x)))) == std::vector<std::int32_t>{6, -2});
  CHECK(suite::flat(suite::host(f(suite::in(1), suite::in(x)))) == std::vector<std::int32_t>{50, -30});
  CHECK(suite::flat(suite::host(f(suite::in(2), suite::in(x)))) == std::vector<std::int32_t>{-5, 3});
  CHECK(suite::flat(suite::host(f(suite::in(7), suite::in(x)))) == std::vector<std::int32_t>{-5, 3});
  CHECK(suite::flat(suite::host(f(suite::in(-1), suite::in(x)))) == std::vector<std::int32_t>{-5, 3});
  // a selector computed from a tensor (an argmax on the device)
  auto g = sf::function([](auto v, auto x) {
    return sf::switch_case(sf::argmax(v), [&] { return x + 1; }, [&] { return x * 10; }, [&] { return -x; });
  }, suite::backend);
  const xt::xtensor<float, 1> v = {0.f, 3.f, 1.f};
  CHECK(suite::flat(suite::host(g(suite::in(v), suite::in(x)))) == std::vector<std::int32_t>{50, -30});
}

TEST_CASE("suite: while_loop with a data-dependent trip count (Collatz)", "[suite][control]") {
  INFO("backend " << suite::name());
  auto collatz = sf::function([](auto n) {
    auto [steps, m] = sf::while_loop([](auto, auto m) { return m != 1; },
                                     [](auto s, auto m) { return std::tuple{s + 1, sf::where(m % 2 == 0, m / 2, 3 * m + 1)}; },
                                     0, n);
    return std::tuple{steps, m};
  }, suite::backend);
  const auto reference = [](std::int32_t n) {
    std::int32_t steps = 0;
    while (n != 1) n = n % 2 == 0 ? n / 2 : 3 * n + 1, ++steps;
    return steps;
  };
  for (std::int32_t n : {1, 2, 3, 6, 7, 27, 97, 871}) {
    const auto [steps, m] = suite::host(collatz(suite::in(n)));
    CHECK(steps() == reference(n));
    CHECK(m() == 1);
  }
  const auto [steps27, m27] = suite::host(collatz(suite::in(std::int32_t{27})));
  CHECK(steps27() == 111);
  CHECK(collatz.tracing_count() == 1);

  // maximum_iterations stops a loop whose condition still holds
  auto capped = sf::function([](auto start) {
    return sf::while_loop([](auto i) { return i < 1000; }, [](auto i) { return i + 1; }, start, sf::maximum_iterations(5));
  }, suite::backend);
  CHECK(suite::host(capped(suite::in(std::int32_t{10})))() == 15);
  CHECK(suite::host(capped(suite::in(std::int32_t{998})))() == 1000);
}

TEST_CASE("suite: while_loop over vectors (a reduction in the condition, a growing variable)", "[suite][control]") {
  INFO("backend " << suite::name());
  auto f = sf::function([](auto x) {
    return sf::while_loop([](auto v) { return sf::reduce_sum(v) < 100.f; }, [](auto v) { return v * 2.f; }, x);
  }, suite::backend);
  const xt::xtensor<float, 1> x = {1, 2, 3}, big = {200, 1};
  CHECK(suite::flat(suite::host(f(suite::in(x)))) == std::vector<float>{32, 64, 96});
  CHECK(suite::flat(suite::host(f(suite::in(big)))) == std::vector<float>{200, 1});  // zero iterations

  // a variable of run-time shape that changes its extents every iteration
  auto grow = sf::function([](auto x) {
    return sf::while_loop([](auto v) { return sf::size(v) < 8; }, [](auto v) { return sf::concat<0>(v, v * 2); }, x);
  }, suite::backend);
  const xt::xtensor<std::int32_t, 1> one = {1}, three = {1, 2, 3};
  CHECK(suite::flat(suite::host(grow(suite::in(one)))) == std::vector<std::int32_t>{1, 2, 2, 4, 2, 4, 4, 8});
  CHECK(suite::flat(suite::host(grow(suite::in(three)))) ==
        std::vector<std::int32_t>{1, 2, 3, 2, 4, 6, 2, 4, 6, 4, 8, 12});
}

TEST_CASE("suite: fori_loop, scan and map_fn (while loops underneath)", "[suite][control]") {
  INFO("backend " << suite::name());
  auto fib = sf::function([](auto v, auto n) {
    auto [a, b] = sf::fori_loop(0, n, [](auto, auto a, auto b) { return std::tuple{a + b, a}; }, v, v * 0);
    return std::tuple{a, b};
  }, suite::backend);
  const xt::xtensor<std::int64_t, 1> v = {1, 2};
  const auto [a, b] = suite::host(fib(suite::in(v), suite::in(10)));
  CHECK(suite::flat(a) == std::vector<std::int64_t>{89, 178});
  CHECK(suite::flat(b) == std::vector<std::int64_t>{55, 110});

  auto squares = sf::function([](auto lo, auto hi) {
    return sf::fori_loop(lo, hi, [](auto i, auto acc) { return acc + i * i; }, 0);
  }, suite::backend);
  CHECK(suite::host(squares(suite::in(1), suite::in(5)))() == 30);
  CHECK(suite::host(squares(suite::in(5), suite::in(1)))() == 0);

  auto row_scan = sf::function([](auto m) {
    return sf::scan([](auto c, auto row) { return std::tuple{c + row, sf::reduce_sum(c)}; }, m[0] * 0.f, m);
  }, suite::backend);
  const xt::xtensor<float, 2> rows = {{1, 2}, {3, 4}, {5, 6}};
  const auto [c, sums] = suite::host(row_scan(suite::in(rows)));
  CHECK(suite::flat(c) == std::vector<float>{9, 12});
  CHECK(suite::flat(sums) == std::vector<float>{0, 3, 10});
  auto running_rows = sf::function([](auto m) {  // per-step results of run-time shape
    return sf::scan([](auto c, auto row) { return std::tuple{c + row, c + row}; }, m[0] * 0.f, m);
  }, suite::backend);
  const auto [last, partial] = suite::host(running_rows(suite::in(rows)));
  CHECK(suite::flat(last) == std::vector<float>{9, 12});
  CHECK(suite::flat(partial) == std::vector<float>{1, 2, 4, 6, 9, 12});
  CHECK(partial.shape()[0] == 3);

  auto norms = sf::function([](auto m) { return sf::map_fn([](auto row) { return sf::reduce_sum(row * row); }, m); },
                            suite::backend);
  const xt::xtensor<float, 2> m = {{3, 4}, {1, 0}, {0, 2}};
  CHECK(suite::flat(suite::host(norms(suite::in(m)))) == std::vector<float>{25, 1, 4});
}

TEST_CASE("suite: tensor arrays written in a loop and stacked; writes outside loops; errors", "[suite][control]") {
  INFO("backend " << suite::name());
  auto plus_one = sf::function([](auto x) {
    auto ta = sf::fori_loop(0, sf::size(x), [&](auto i, auto ta) { return ta.write(i, x[i] + 1); }, sf::tensor_array<int>{});
    return ta.stack();
  }, suite::backend);
  const xt::xtensor<int, 1> x = {1, 2, 3};
  CHECK(suite::flat(suite::host(plus_one(suite::in(x)))) == std::vector<int>{2, 3, 4});

  auto fill = sf::function([](auto n, auto size) {
    auto ta = sf::fori_loop(0, n, [](auto i, auto ta) { return ta.write(i, sf::cast<float>(i) * 0.5f); },
                            sf::tensor_array<float>::with_size(size));
    return std::tuple{ta.stack(), ta.size(), ta.read(1)};
  }, suite::backend);
  const auto [stacked, size, second] = suite::host(fill(suite::in(3), suite::in(4)));
  CHECK(suite::flat(stacked) == std::vector<float>{0.f, 0.5f, 1.f, 0.f});  // unwritten elements are zeros
  CHECK(size() == 4);
  CHECK(second() == 0.5f);
  CHECK_THROWS_WITH(fill(suite::in(5), suite::in(4)),
                    "staticflow: tensor_array::write: index 4 is out of range for a tensor array of size 4 "
                    "(its size is fixed; make it with dynamic_size to let it grow)");

  // an array of vectors written out of order, outside a loop: it grows to the largest index
  auto rows = sf::function([](auto x) {
    auto ta = sf::tensor_array<float, sf::shape<sf::dyn>>{}.write(2, x).write(0, x * 2.f);
    return ta.stack();
  }, suite::backend);
  const xt::xtensor<float, 1> r = {1, 2};
  const auto stacked_rows = suite::host(rows(suite::in(r)));
  CHECK(suite::shape(stacked_rows) == std::vector<std::size_t>{3, 2});
  CHECK(suite::flat(stacked_rows) == std::vector<float>{2, 4, 0, 0, 1, 2});
  auto negative = sf::function([](auto i) { return sf::tensor_array<int>{}.write(i, 1).stack(); }, suite::backend);
  CHECK_THROWS_WITH(negative(suite::in(-1)), "staticflow: tensor_array::write: index -1 is negative");
}

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
