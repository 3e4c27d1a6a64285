// Tests for backend/cpu/kernel.hpp at the lengths where its steps change: every length from 0 to 40
// (the half, quarter and scalar steps) and the same static shapes against a scalar reference, empty
// tensors, and static values against plain literals. (Every op: test_cpu_kernel.cpp.)
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <staticflow/staticflow.hpp>

#include "kernel_test_inputs.hpp"

namespace sf = staticflow;

using kernel_test::random_vector;

TEST_CASE("empty tensors give empty results", "[cpu]") {
  auto f = sf::function([](auto x) { return sf::exp(x) + 1.f; });
  auto e = xt::xtensor<float, 2>::from_shape({0, 3});
  auto r = f(e);
  CHECK(r.shape()[0] == 0);
  CHECK(r.shape()[1] == 3);
}

TEST_CASE("every length from 0 to 40 (half, quarter and scalar steps) matches a scalar reference", "[cpu][small]") {
  // run_loop: full batches, then a half-width and a quarter-width batch, then single elements;
  // every length up to 40 covers each combination for 4-, 8- and 16-lane float batches, and for
  // doubles and int32 as well
  auto f = sf::function([](auto x, auto y) { return x * x + y; });
  auto g = sf::function([](auto x, auto y) { return sf::exp(x) * 0.5f - sf::maximum(x, y); });
  auto h = sf::function([](auto x, auto y) { return x * x + y; });
  auto k = sf::function([](auto x, auto y) { return x * 3 - y; });
  for (std::size_t n = 0; n <= 40; ++n) {
    CAPTURE(n);
    const auto x = random_vector<float>(n, -3, 3, 10 + static_cast<unsigned>(n));
    const auto y = random_vector<float>(n, -3, 3, 100 + static_cast<unsigned>(n));
    // one element past the end of the output is a sentinel that must stay as it is
    std::vector<float> buf(n + 1, -7.f);
    auto out = xt::adapt(buf.data(), n, xt::no_ownership(), std::array<std::size_t, 1>{n});
    f.call_into(out, x, y);
    for (std::size_t i = 0; i < n; ++i) CHECK(buf[i] == x(i) * x(i) + y(i));
    CHECK(buf[n] == -7.f);
    const auto r = g(x, y);
    REQUIRE(r.size() == n);
    for (std::size_t i = 0; i < n; ++i) {
      const float want = std::exp(x(i)) * 0.5f - std::max(x(i), y(i));
      CHECK(std::fabs(r(i) - want) <= 4 * std::numeric_limits<float>::epsilon() * (std::fabs(want) + 2.f));
    }
    const auto xd = random_vector<double>(n, -3, 3, 20 + static_cast<unsigned>(n));
    const auto yd = random_vector<double>(n, -3, 3, 200 + static_cast<unsigned>(n));
    const auto rd = h(xd, yd);
    for (std::size_t i = 0; i < n; ++i) CHECK(rd(i) == xd(i) * xd(i) + yd(i));
    auto xi = xt::xtensor<std::int32_t, 1>::from_shape({n});
    auto yi = xt::xtensor<std::int32_t, 1>::from_shape({n});
    for (std::size_t i = 0; i < n; ++i) xi(i) = static_cast<std::int32_t>(i * 7919 % 201) - 100, yi(i) = static_cast<std::int32_t>(i) - 20;
    const auto ri = k(xi, yi);
    for (std::size_t i = 0; i < n; ++i) CHECK(ri(i) == xi(i) * 3 - yi(i));
  }
}

TEST_CASE("static shapes of every small length use the same steps", "[cpu][small]") {
  auto f = sf::function([](auto x, auto y) { return x * x - y; });
  auto check = [&]<std::size_t N>(std::integral_constant<std::size_t, N>) {
    xt::xtensor_fixed<float, xt::xshape<N>> x, y;
    for (std::size_t i = 0; i < N; ++i) x(i) = 0.25f * static_cast<float>(i) - 1.f, y(i) = static_cast<float>(i % 3);
    const auto r = f(x, y);
    for (std::size_t i = 0; i < N; ++i) CHECK(r(i) == x(i) * x(i) - y(i));
  };
  [&]<std::size_t... N>(std::index_sequence<N...>) {
    (check(std::integral_constant<std::size_t, N + 1>{}), ...);
  }(std::make_index_sequence<33>{});
}

TEST_CASE("static values compute what plain literals do, negatives included", "[cpu][static_value]") {
  using namespace sf::literals;
  // x % 2^k == 0 has a shortcut (the low bits) on the scalar path; division and remainder by
  // static powers of two truncate toward zero like C++'s
  auto with_static = sf::function([](auto x) {
    return std::tuple{sf::where(x % 4_c == 0_c, x / 4_c, x % 4_c), x % 2_c == 0_c, x * 3_c + 1_c, x % 3_c == 0_c};
  });
  auto with_plain = sf::function([](auto x) {
    return std::tuple{sf::where(x % 4 == 0, x / 4, x % 4), x % 2 == 0, x * 3 + 1, x % 3 == 0};
  });
  for (std::int32_t v = -9; v <= 9; ++v) {  // scalars: the scalar path
    const auto [a, b, c, d] = with_static(v);
    CHECK(a == (v % 4 == 0 ? v / 4 : v % 4));
    CHECK(b == (v % 2 == 0));
    CHECK(c == 3 * v + 1);
    CHECK(d == (v % 3 == 0));
  }
  xt::xtensor<std::int64_t, 1> xs = xt::arange<std::int64_t>(-40, 41);  // a vector: the fused loops
  const auto [sa, sb, sc, sd] = with_static(xs);
  const auto [pa, pb, pc, pd] = with_plain(xs);
  CHECK((sa == pa));
  CHECK((sb == pb));
  CHECK((sc == pc));
  CHECK((sd == pd));
  CHECK(sa(0) == -10);  // -40 / 4
  CHECK(sa(1) == -3);   // -39 % 4
  xt::xtensor<float, 1> f = {-1.5f, 0.f, 2.25f};
  auto scaled = sf::function([](auto x) { return x * 2_c - 1_c; });
  CHECK((scaled(f) == xt::xtensor<float, 1>{-4.f, -1.f, 3.5f}));
}
