// Tests for backend/cpu/kernel.hpp: every op through the fused loop against the scalar reference,
// at sizes that hit the unrolled body, the vector remainder and the scalar tail; broadcasting
// without temporaries; which graphs take the SIMD path; in-place and aliased outputs.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

namespace {
// Sizes around multiples of the batch width (up to 16 lanes with AVX-512, 4x unrolled).
const std::size_t sizes[] = {1, 3, 15, 16, 17, 63, 64, 65, 127, 200};

template <class T>
xt::xtensor<T, 1> random_vector(std::size_t n, double lo, double hi, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  auto v = xt::xtensor<T, 1>::from_shape({n});
  for (auto& e : v) e = static_cast<T>(dist(rng));
  return v;
}

// Distance in units in the last place between two finite floats of the same sign region.
template <class T>
std::int64_t ulp_distance(T a, T b) {
  if (a == b) return 0;
  using I = std::conditional_t<sizeof(T) == 4, std::int32_t, std::int64_t>;
  I ia, ib;
  std::memcpy(&ia, &a, sizeof a);
  std::memcpy(&ib, &b, sizeof b);
  if (ia < 0) ia = std::numeric_limits<I>::min() - ia;
  if (ib < 0) ib = std::numeric_limits<I>::min() - ib;
  return std::abs(static_cast<std::int64_t>(ia) - static_cast<std::int64_t>(ib));
}

// The documented bounds (docs/architecture.md) of xsimd's vector functions against the C
// library's: exp, log, tanh, sigmoid within 4 ulp; pow within 16 ulp.
constexpr std::int64_t max_ulp = 4;
constexpr std::int64_t max_pow_ulp = 16;

template <class Fn, class Ref>
void check_unary_float(Fn fn, Ref ref, double lo, double hi, std::int64_t ulps) {
  auto f = sf::function(fn);
  for (std::size_t n : sizes) {
    auto x = random_vector<float>(n, lo, hi, static_cast<unsigned>(n));
    auto r = f(x);
    REQUIRE(r.size() == n);
    for (std::size_t i = 0; i < n; ++i) {
      INFO("n=" << n << " i=" << i << " x=" << x(i) << " got=" << r(i) << " want=" << ref(x(i)));
      CHECK(ulp_distance(r(i), ref(x(i))) <= ulps);
    }
  }
}
}  // namespace

TEST_CASE("float unary ops match the scalar reference at every size", "[cpu][ops]") {
  check_unary_float([](auto x) { return -x; }, [](float v) { return -v; }, -10, 10, 0);
  check_unary_float([](auto x) { return sf::abs(x); }, [](float v) { return std::fabs(v); }, -10, 10, 0);
  check_unary_float([](auto x) { return sf::square(x); }, [](float v) { return v * v; }, -10, 10, 0);
  check_unary_float([](auto x) { return sf::sqrt(x); }, [](float v) { return std::sqrt(v); }, 0, 100, 0);
  check_unary_float([](auto x) { return sf::exp(x); }, [](float v) { return std::exp(v); }, -20, 20, max_ulp);
  check_unary_float([](auto x) { return sf::log(x); }, [](float v) { return std::log(v); }, 1e-3, 1e3, max_ulp);
  check_unary_float([](auto x) { return sf::tanh(x); }, [](float v) { return std::tanh(v); }, -5, 5, max_ulp);
  check_unary_float([](auto x) { return sf::sigmoid(x); }, [](float v) { return 1.f / (1.f + std::exp(-v)); },
                    -10, 10, max_ulp);
  check_unary_float([](auto x) { return sf::relu(x); }, [](float v) { return v > 0 ? v : 0.f; }, -10, 10, 0);
}

TEST_CASE("float binary ops match the scalar reference at every size", "[cpu][ops]") {
  auto check = [](auto fn, auto ref, std::int64_t ulps) {
    auto f = sf::function(fn);
    for (std::size_t n : sizes) {
      auto x = random_vector<float>(n, -8, 8, 1 + static_cast<unsigned>(n));
      auto y = random_vector<float>(n, 0.5, 4, 2 + static_cast<unsigned>(n));
      auto r = f(x, y);
      for (std::size_t i = 0; i < n; ++i) {
        INFO("n=" << n << " i=" << i << " x=" << x(i) << " y=" << y(i));
        CHECK(ulp_distance(r(i), ref(x(i), y(i))) <= ulps);
      }
    }
  };
  check([](auto x, auto y) { return x + y; }, [](float a, float b) { return a + b; }, 0);
  check([](auto x, auto y) { return x - y; }, [](float a, float b) { return a - b; }, 0);
  check([](auto x, auto y) { return x * y; }, [](float a, float b) { return a * b; }, 0);
  check([](auto x, auto y) { return x / y; }, [](float a, float b) { return a / b; }, 0);
  check([](auto x, auto y) { return sf::floordiv(x, y); }, [](float a, float b) { return std::floor(a / b); }, 0);
  check([](auto x, auto y) { return sf::maximum(x, y); }, [](float a, float b) { return a > b ? a : b; }, 0);
  check([](auto x, auto y) { return sf::minimum(x, y); }, [](float a, float b) { return a < b ? a : b; }, 0);
  check([](auto x, auto y) { return sf::pow(y, x); }, [](float a, float b) { return std::pow(b, a); }, max_pow_ulp);
  check([](auto x, auto y) { return x % y; }, [](float a, float b) { return std::fmod(a, b); }, 0);
  check([](auto x, auto y) { return sf::floormod(x, y); },
        [](float a, float b) { return sf::op::floormod::apply(a, b); }, 0);
  check([](auto x, auto y) { return sf::where(x > y, x, y * 2.f); },
        [](float a, float b) { return a > b ? a : b * 2.f; }, 0);
}

TEST_CASE("NaN lanes: maximum, minimum and relu propagate NaN, != is true against NaN", "[cpu][ops][nan]") {
  // the SIMD forms once used xsimd's `!=`, an ordered compare on AVX2 (false for NaN)
  auto f = sf::function([](auto x, auto y) {
    return std::tuple{sf::maximum(x, y), sf::minimum(x, y), sf::relu(x), x != y, sf::reduce_max(x), sf::reduce_min(x)};
  });
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (std::size_t n : sizes) {
    auto x = random_vector<float>(n, -8, 8, 3 + static_cast<unsigned>(n));
    auto y = random_vector<float>(n, -8, 8, 4 + static_cast<unsigned>(n));
    x(n / 2) = nan;
    const auto [mx, mn, r, ne, rmax, rmin] = f(x, y);
    for (std::size_t i = 0; i < n; ++i) {
      INFO("n=" << n << " i=" << i);
      CHECK(std::isnan(mx(i)) == (i == n / 2));
      CHECK(std::isnan(mn(i)) == (i == n / 2));
      CHECK(std::isnan(r(i)) == (i == n / 2));
      CHECK(ne(i) == (i == n / 2 || x(i) != y(i)));
    }
    CHECK(std::isnan(rmax));
    CHECK(std::isnan(rmin));
  }
}

TEST_CASE("integer ops are exact and wrap, with XLA's division rules", "[cpu][ops]") {
  auto f = sf::function([](auto x, auto y) {
    return std::tuple{x + y, x - y, x * y, x / y, x % y, sf::floordiv(x, y), sf::floormod(x, y),
                      sf::maximum(x, y), sf::abs(x), -x};
  });
  constexpr int lo = std::numeric_limits<int>::min(), hi = std::numeric_limits<int>::max();
  xt::xtensor<int, 1> x = {7, -7, 7, -7, 5, lo, hi, lo, 0, 3, 100, -100, 42, 1, -1, 9, 11};
  xt::xtensor<int, 1> y = {2, 2, -2, -2, 0, -1, 1, 1, 5, 3, 7, 7, -5, 1, 1, 4, -3};
  auto [sum, diff, prod, quot, rem, fdiv, fmod, mx, ab, neg] = f(x, y);
  for (std::size_t i = 0; i < x.size(); ++i) {
    INFO("i=" << i << " x=" << x(i) << " y=" << y(i));
    CHECK(sum(i) == sf::op::add::apply(x(i), y(i)));
    CHECK(diff(i) == sf::op::subtract::apply(x(i), y(i)));
    CHECK(prod(i) == sf::op::multiply::apply(x(i), y(i)));
    CHECK(quot(i) == sf::op::divide::apply(x(i), y(i)));
    CHECK(rem(i) == sf::op::mod::apply(x(i), y(i)));
    CHECK(fdiv(i) == sf::op::floordiv::apply(x(i), y(i)));
    CHECK(fmod(i) == sf::op::floormod::apply(x(i), y(i)));
    CHECK(mx(i) == std::max(x(i), y(i)));
    CHECK(ab(i) == sf::op::abs::apply(x(i)));
    CHECK(neg(i) == sf::op::negate::apply(x(i)));
  }
  // spot values, independent of the reference functions
  CHECK(quot(0) == 3);   // 7 / 2 truncates
  CHECK(quot(1) == -3);  // -7 / 2 truncates toward zero
  CHECK(fdiv(1) == -4);  // floordiv rounds down
  CHECK(rem(1) == -1);
  CHECK(fmod(1) == 1);   // floormod takes the divisor's sign
  CHECK(fmod(2) == -1);
  CHECK(quot(4) == -1);  // x / 0 == -1 (XLA)
  CHECK(rem(4) == 5);    // x % 0 == x
  CHECK(quot(5) == lo);  // INT_MIN / -1 wraps
  CHECK(rem(5) == 0);
  CHECK(sum(6) == lo);   // INT_MAX + 1 wraps
  CHECK(ab(7) == lo);    // abs(INT_MIN) wraps
}

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

TEST_CASE("mixed dtypes promote, casts convert, bool results come back as bool", "[cpu][dtype]") {
  auto f = sf::function([](auto i, auto x) { return std::tuple{i + x, sf::cast<int>(x), sf::cast<bool>(i), i > 1}; });
  xt::xtensor<int, 1> i = {0, 1, 2, 3};
  xt::xtensor<float, 1> x = {0.5f, -1.75f, 2.75f, 3.f};
  auto [sum, truncated, nonzero, gt] = f(i, x);
  static_assert(std::is_same_v<decltype(sum), xt::xtensor<float, 1>>);
  CHECK((sum == xt::xtensor<float, 1>{0.5f, -0.75f, 4.75f, 6.f}));
  CHECK((truncated == xt::xtensor<int, 1>{0, -1, 2, 3}));
  CHECK((nonzero == xt::xtensor<bool, 1>{false, true, true, true}));
  CHECK((gt == xt::xtensor<bool, 1>{false, false, true, true}));

  auto logic = sf::function([](auto a, auto b) { return (a && !b) || (b && !a); });
  xt::xtensor<bool, 1> a = {true, true, false, false}, b = {true, false, true, false};
  CHECK((logic(a, b) == xt::xtensor<bool, 1>{false, true, true, false}));

  // a float mask feeding a float select vectorizes, with the mask cast in between
  auto m = sf::function([](auto x) { return sf::cast<float>(x > 1.f) * x; });
  xt::xtensor<float, 1> v = random_vector<float>(50, -3, 3, 9);
  auto r = m(v);
  for (std::size_t k = 0; k < 50; ++k) CHECK(r(k) == (v(k) > 1.f ? v(k) : 0.f));
  using M = std::remove_cvref_t<decltype(m.get_concrete_function(v))>;
  STATIC_REQUIRE(M::kernel<0> == sf::kernel_kind::simd);
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
