// Tests for backend/cpu/kernel.hpp, where the fused loop reads and writes: broadcasting without
// temporaries (scalar, row, column, a one-element argument) and its run-time errors before any
// write, call_into's containers, in-place and aliased outputs, and which graphs take the SIMD path.
// (Every op against the scalar reference: test_cpu_kernel.cpp.)
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <vector>

#include <staticflow/staticflow.hpp>

#include "kernel_test_inputs.hpp"

namespace sf = staticflow;

using kernel_test::random_vector;

TEST_CASE("broadcasting: scalar, row, column and both at once, with no temporaries", "[cpu][broadcast]") {
  auto f = sf::function([](auto a, auto b) { return a * 10.f + b; });
  xt::xtensor<float, 2> m = {{1, 2, 3}, {4, 5, 6}};
  xt::xtensor<float, 1> row = {100, 200, 300};
  xt::xtensor<float, 2> col = {{1000}, {2000}};
  CHECK((f(m, row) == xt::xtensor<float, 2>{{110, 220, 330}, {140, 250, 360}}));
  CHECK((f(m, col) == xt::xtensor<float, 2>{{1010, 1020, 1030}, {2040, 2050, 2060}}));
  CHECK((f(col, row) == xt::xtensor<float, 2>{{10100, 10200, 10300}, {20100, 20200, 20300}}));
  CHECK((f(m, 0.5f) == xt::xtensor<float, 2>{{10.5, 20.5, 30.5}, {40.5, 50.5, 60.5}}));
  CHECK((f(2.f, m) == xt::xtensor<float, 2>{{21, 22, 23}, {24, 25, 26}}));
  // a run-time 1-element tensor broadcasts too
  xt::xtensor<float, 1> one = {7};
  CHECK((f(m, one) == xt::xtensor<float, 2>{{17, 27, 37}, {47, 57, 67}}));

  // static shapes: the result shape is computed at compile time
  auto g = sf::function([](auto a, auto b) { return a - b; });
  xt::xtensor_fixed<int, xt::xshape<3, 1>> c3 = {{1}, {2}, {3}};
  xt::xtensor_fixed<int, xt::xshape<4>> r4 = {10, 20, 30, 40};
  auto d = g(c3, r4);
  static_assert(std::is_same_v<decltype(d), xt::xtensor_fixed<int, xt::xshape<3, 4>>>);
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 4; ++j) CHECK(d(i, j) == static_cast<int>(i + 1) - r4(j));

  // a long row (vector body + tail per row) against a column
  xt::xtensor<float, 2> tall = xt::xtensor<float, 2>::from_shape({5, 1});
  xt::xtensor<float, 1> wide = random_vector<float>(37, -1, 1, 5);
  for (std::size_t i = 0; i < 5; ++i) tall(i, 0) = static_cast<float>(i);
  auto big = f(tall, wide);
  for (std::size_t i = 0; i < 5; ++i)
    for (std::size_t j = 0; j < 37; ++j) CHECK(big(i, j) == static_cast<float>(i) * 10.f + wide(j));
}

TEST_CASE("run-time shapes that do not broadcast throw before anything is written", "[cpu][broadcast]") {
  auto f = sf::function([](auto a, auto b) { return a + b; });
  xt::xtensor<float, 2> m = {{1, 2, 3}, {4, 5, 6}};
  xt::xtensor<float, 1> bad = {1, 2};
  CHECK_THROWS_MATCHES(f(m, bad), sf::shape_error,
                       Catch::Message("staticflow: shapes (2, 3) and (2,) do not broadcast"));
  xt::xtensor<float, 2> out = {{-1, -1, -1}, {-1, -1, -1}};
  CHECK_THROWS_AS(f.call_into(out, m, bad), sf::shape_error);
  CHECK((out == xt::xtensor<float, 2>{{-1, -1, -1}, {-1, -1, -1}}));  // untouched
}

TEST_CASE("which graphs take the SIMD path is a compile-time fact", "[cpu][simd]") {
  auto f = sf::function([](auto x, auto y) { return sf::where(x > 0.f, sf::exp(x) * y, -y); });
  using vecf = xt::xtensor<float, 1>;
  using C = std::remove_cvref_t<decltype(f.get_concrete_function(sf::spec<float, sf::dyn>{}, sf::spec<float, sf::dyn>{}))>;
  STATIC_REQUIRE(C::kernel<0> == sf::kernel_kind::simd);
  (void)sizeof(vecf);

  // integer division has no vector instruction: scalar loop
  auto g = sf::function([](auto x) { return x / 3; });
  using G = std::remove_cvref_t<decltype(g.get_concrete_function(sf::spec<int, 8>{}))>;
  STATIC_REQUIRE(G::kernel<0> == sf::kernel_kind::scalar);
  // integer add/mul vectorize
  auto h = sf::function([](auto x) { return x * 3 + 1; });
  using H = std::remove_cvref_t<decltype(h.get_concrete_function(sf::spec<int, 8>{}))>;
  STATIC_REQUIRE(H::kernel<0> == sf::kernel_kind::simd);
  // mixed dtypes and bool results stay scalar
  auto k = sf::function([](auto x, auto y) { return x + y; });
  using K = std::remove_cvref_t<decltype(k.get_concrete_function(sf::spec<int, 8>{}, sf::spec<float, 8>{}))>;
  STATIC_REQUIRE(K::kernel<0> == sf::kernel_kind::scalar);
  auto b = sf::function([](auto x) { return x > 0.f; });
  using Bk = std::remove_cvref_t<decltype(b.get_concrete_function(sf::spec<float, 8>{}))>;
  STATIC_REQUIRE(Bk::kernel<0> == sf::kernel_kind::scalar);
  // ... except a cast of a uniform value (an int scalar, as the 1 / count of a mean's gradient):
  // computed once per batch on the scalar path and splatted, so the loop stays SIMD
  auto u = sf::function([](auto x, auto n) { return x * sf::cast<float>(n / 2); });
  using U = std::remove_cvref_t<decltype(u.get_concrete_function(sf::spec<float, 8>{}, sf::spec<int>{}))>;
  STATIC_REQUIRE(U::kernel<0> == sf::kernel_kind::simd);
  using Un = std::remove_cvref_t<decltype(u.get_concrete_function(sf::spec<float, 8>{}, sf::spec<int, 8>{}))>;
  STATIC_REQUIRE(Un::kernel<0> == sf::kernel_kind::scalar);  // one int per element: not uniform
}

TEST_CASE("call_into writes into the caller's containers and checks their shapes", "[cpu][call_into]") {
  auto f = sf::function([](auto x, auto y) { return x * x + y; });
  xt::xtensor<float, 1> x = random_vector<float>(100, -2, 2, 3), y = random_vector<float>(100, -2, 2, 4);
  auto out = xt::xtensor<float, 1>::from_shape({100});
  f.call_into(out, x, y);
  for (std::size_t i = 0; i < 100; ++i) CHECK(out(i) == x(i) * x(i) + y(i));

  auto wrong = xt::xtensor<float, 1>::from_shape({99});
  CHECK_THROWS_MATCHES(f.call_into(wrong, x, y), sf::shape_error,
                       Catch::Message("staticflow: call_into: output 0 has shape (99,), the result has shape (100,)"));

  // rank-0 results can be written into a scalar
  int s = 0;
  f.call_into(s, 3, 4);
  CHECK(s == 13);

  // several outputs through std::tie
  auto g = sf::function([](auto a) { return std::tuple{a + 1, a * 2}; });
  xt::xtensor_fixed<int, xt::xshape<3>> a = {1, 2, 3}, p, q;
  g.call_into(std::tie(p, q), a);
  CHECK((p == xt::xtensor_fixed<int, xt::xshape<3>>{2, 3, 4}));
  CHECK((q == xt::xtensor_fixed<int, xt::xshape<3>>{2, 4, 6}));

  // xt::adapt views over the caller's memory, in and out
  std::vector<float> raw_in = {1, 2, 3, 4, 5}, raw_out(5);
  auto in_view = xt::adapt(raw_in.data(), raw_in.size(), xt::no_ownership(), std::array<std::size_t, 1>{5});
  auto out_view = xt::adapt(raw_out.data(), raw_out.size(), xt::no_ownership(), std::array<std::size_t, 1>{5});
  f.call_into(out_view, in_view, 1.f);
  CHECK(raw_out == std::vector<float>{2, 5, 10, 17, 26});
}

TEST_CASE("an output that is also an input works in place or through a temporary", "[cpu][alias]") {
  auto f = sf::function([](auto x, auto y) { return x * 2.f + y; });
  xt::xtensor<float, 1> x = random_vector<float>(70, -1, 1, 7), y = random_vector<float>(70, -1, 1, 8);
  const xt::xtensor<float, 1> x0 = x;
  f.call_into(x, x, y);  // elementwise: in place
  for (std::size_t i = 0; i < 70; ++i) CHECK(x(i) == x0(i) * 2.f + y(i));

  // the output overlaps the input shifted by one element: must go through a temporary
  std::vector<float> buf(71);
  for (std::size_t i = 0; i < 71; ++i) buf[i] = static_cast<float>(i);
  auto in = xt::adapt(buf.data(), 70, xt::no_ownership(), std::array<std::size_t, 1>{70});
  auto out = xt::adapt(buf.data() + 1, 70, xt::no_ownership(), std::array<std::size_t, 1>{70});
  f.call_into(out, in, 0.f);
  for (std::size_t i = 0; i < 70; ++i) CHECK(buf[i + 1] == 2.f * static_cast<float>(i));

  // several outputs: the first overwrites an input the second still reads
  auto g = sf::function([](auto a) { return std::tuple{a + 1, a * 10}; });
  xt::xtensor<int, 1> a = {1, 2, 3}, q = xt::xtensor<int, 1>::from_shape({3});
  g.call_into(std::tie(a, q), a);
  CHECK((a == xt::xtensor<int, 1>{2, 3, 4}));
  CHECK((q == xt::xtensor<int, 1>{10, 20, 30}));
}

TEST_CASE("partial overlaps are found by the cheap alias test; disjoint and in-place calls write directly", "[cpu][alias]") {
  auto f = sf::function([](auto x, auto y) { return x * 2.f + y; });
  for (std::size_t n : {1u, 4u, 5u, 17u, 40u}) {
    CAPTURE(n);
    std::vector<float> buf(3 * n + 2);
    for (std::size_t i = 0; i < buf.size(); ++i) buf[i] = static_cast<float>(i);
    const std::vector<float> before = buf;
    using view = decltype(xt::adapt(buf.data(), n, xt::no_ownership(), std::array<std::size_t, 1>{n}));
    auto at = [&](std::size_t offset) -> view {
      return xt::adapt(buf.data() + offset, n, xt::no_ownership(), std::array<std::size_t, 1>{n});
    };
    // the output starts one element after x: a read-after-write hazard at every position
    auto x = at(0);
    auto y = at(n + 1);
    auto out = at(1);
    f.call_into(out, x, y);
    for (std::size_t i = 0; i < n; ++i) CHECK(buf[1 + i] == before[i] * 2.f + before[n + 1 + i]);
    // in place (the output is x itself)
    buf = before;
    auto x2 = at(0);
    auto y2 = at(n + 1);
    auto out2 = at(0);
    f.call_into(out2, x2, y2);
    for (std::size_t i = 0; i < n; ++i) CHECK(buf[i] == before[i] * 2.f + before[n + 1 + i]);
  }
}

TEST_CASE("run-time broadcasting errors keep their messages on the fast path", "[cpu][broadcast]") {
  auto f = sf::function([](auto a, auto b) { return a * b + a; });
  xt::xtensor<float, 1> three = {1, 2, 3}, two = {1, 2}, one = {5};
  CHECK_THROWS_MATCHES(f(three, two), sf::shape_error, Catch::Message("staticflow: shapes (3,) and (2,) do not broadcast"));
  CHECK_THROWS_MATCHES(f(two, three), sf::shape_error, Catch::Message("staticflow: shapes (2,) and (3,) do not broadcast"));
  const auto r = f(three, one);  // an extent of 1 still broadcasts
  CHECK((r == xt::xtensor<float, 1>{6, 12, 18}));
  xt::xtensor<float, 2> m = xt::xtensor<float, 2>::from_shape({2, 3});
  m.fill(1.f);
  xt::xtensor<float, 2> bad = xt::xtensor<float, 2>::from_shape({3, 2});
  CHECK_THROWS_MATCHES(f(m, bad), sf::shape_error, Catch::Message("staticflow: shapes (2, 3) and (3, 2) do not broadcast"));
  xt::xtensor<float, 1> empty = xt::xtensor<float, 1>::from_shape({0});
  CHECK_THROWS_MATCHES(f(empty, two), sf::shape_error, Catch::Message("staticflow: shapes (0,) and (2,) do not broadcast"));
  CHECK(f(empty, empty).size() == 0);
}

TEST_CASE("1-D run-time broadcasting: a one-element argument spread over the result's length", "[cpu][broadcast]") {
  // (backend/cpu/kernel.hpp's run_flat_spread: the flat loop in chunks of 256, the argument read
  // from 256 copies of its value; no row loop): lengths within, at and across chunks, two threads
  auto f = sf::function([](auto a, auto b, auto c) { return sf::where(a > b, a * c - b, c); });
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{40}, std::size_t{256}, std::size_t{600},
                              std::size_t{70001}}) {
    INFO("length " << n);
    sf::set_num_threads(n == 70001 ? 2 : 1);
    const xt::xtensor<double, 1> a = random_vector<double>(n, -1, 1, 3);
    const xt::xtensor<double, 1> b1 = {0.25}, c1 = {-2.0};
    const xt::xtensor<double, 1> b = random_vector<double>(n, -1, 1, 4);
    const auto want = [&](double x, double y, double z) { return x > y ? x * z - y : z; };
    const xt::xtensor<double, 1> one_broadcast = f(a, b1, b);
    const xt::xtensor<double, 1> two_broadcast = f(a, b1, c1);
    const xt::xtensor<double, 1> first_broadcast = f(b1, a, b);
    REQUIRE(one_broadcast.size() == n);
    REQUIRE(two_broadcast.size() == n);
    REQUIRE(first_broadcast.size() == n);
    bool all = true;
    for (std::size_t i = 0; i < n; ++i) {
      all = all && one_broadcast(i) == want(a(i), 0.25, b(i)) && two_broadcast(i) == want(a(i), 0.25, -2.0) &&
            first_broadcast(i) == want(0.25, a(i), b(i));
    }
    CHECK(all);
    // into the broadcasting argument's neighbour: the output is the first argument itself
    xt::xtensor<double, 1> inout = a;
    f.call_into(inout, inout, b1, c1);
    CHECK((inout == two_broadcast));
  }
  sf::set_num_threads(1);
  // every argument of one element over a result of one; integers and bools
  const xt::xtensor<double, 1> one = {3.0};
  CHECK((f(one, xt::xtensor<double, 1>{1.0}, one) == xt::xtensor<double, 1>{8.0}));
  auto g = sf::function([](auto a, auto b) { return std::tuple{a + b, a > b}; });
  const auto [sum, greater] = g(xt::xtensor<int, 1>{1, 5, 9}, xt::xtensor<int, 1>{4});
  CHECK((sum == xt::xtensor<int, 1>{5, 9, 13}));
  CHECK((greater == xt::xtensor<bool, 1>{false, true, true}));
  // an empty result against one element
  CHECK(std::get<0>(g(xt::xtensor<int, 1>::from_shape({0}), xt::xtensor<int, 1>{4})).size() == 0);
}
