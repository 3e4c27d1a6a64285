// Tests for graph/math.hpp and graph/math_ops.hpp: every math function against the C library on
// random inputs (float32 and float64, run-time lengths that leave SIMD tails, a static shape), the
// edges TensorFlow defines (rounding half to even, NaN, infinities, signed zeros, out-of-range
// shifts), the bitwise ops and operators, folding on constants (eager mode: test_eager_parity.cpp).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <tuple>
#include <vector>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

namespace {
template <class T>
xt::xtensor<T, 1> uniform(std::size_t n, double lo, double hi, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> d(lo, hi);
  xt::xtensor<T, 1> x = xt::xtensor<T, 1>::from_shape({n});
  for (auto& v : x) v = static_cast<T>(d(rng));
  return x;
}

/// |got - want| within a few ulps of T, relative to max(1, |want|).
template <class T>
bool close(T got, double want) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == static_cast<T>(want);
  const double tol = (std::is_same_v<T, float> ? 4e-6 : 1e-13) * std::max(1.0, std::fabs(want));
  return std::fabs(static_cast<double>(got) - want) <= tol;
}

/// Checks each output K of a tuple result against reference K applied to x (in double).
template <class T, class R, class... Ref>
void check_outputs(const xt::xtensor<T, 1>& x, const R& results, Ref... ref) {
  std::size_t k = 0;
  const auto one = [&](const auto& out, auto f) {
    INFO("output " << k << ", n = " << x.size());
    REQUIRE(out.size() == x.size());
    std::size_t bad = 0;
    for (std::size_t i = 0; i < x.size(); ++i)
      if (!close<T>(out(i), f(static_cast<double>(x(i))))) {
        if (bad++ == 0) FAIL_CHECK("x = " << x(i) << ": got " << out(i) << ", want " << f(static_cast<double>(x(i))));
      }
    CHECK(bad == 0);
    ++k;
  };
  std::apply([&](const auto&... out) { (one(out, ref), ...); }, results);
}

// Three groups by domain, each one traced function with a tuple of results.
const auto wide = [](auto x) {
  return std::tuple{sf::sin(x), sf::cos(x), sf::atan(x), sf::sinh(x), sf::cosh(x), sf::asinh(x), sf::erf(x),
                    sf::erfc(x), sf::softplus(x), sf::expm1(x), sf::exp2(x), sf::floor(x), sf::ceil(x),
                    sf::round(x), sf::rint(x), sf::sign(x), sf::tan(x * 0.45)};
};
const auto wide_ref = std::tuple{
    [](double v) { return std::sin(v); }, [](double v) { return std::cos(v); }, [](double v) { return std::atan(v); },
    [](double v) { return std::sinh(v); }, [](double v) { return std::cosh(v); }, [](double v) { return std::asinh(v); },
    [](double v) { return std::erf(v); }, [](double v) { return std::erfc(v); },
    [](double v) { return std::max(v, 0.0) + std::log1p(std::exp(-std::fabs(v))); },
    [](double v) { return std::expm1(v); }, [](double v) { return std::exp2(v); },
    [](double v) { return std::floor(v); }, [](double v) { return std::ceil(v); },
    [](double v) { return std::nearbyint(v); }, [](double v) { return std::nearbyint(v); },
    [](double v) { return v > 0 ? 1.0 : v < 0 ? -1.0 : v; }, [](double v) { return std::tan(v * 0.45); }};
const auto unit = [](auto x) { return std::tuple{sf::asin(x), sf::acos(x), sf::atanh(x), sf::log1p(x)}; };
const auto unit_ref = std::tuple{[](double v) { return std::asin(v); }, [](double v) { return std::acos(v); },
                                 [](double v) { return std::atanh(v); }, [](double v) { return std::log1p(v); }};
const auto above_one = [](auto x) { return std::tuple{sf::acosh(x), sf::log2(x), sf::rsqrt(x), sf::reciprocal(x)}; };
const auto above_one_ref = std::tuple{[](double v) { return std::acosh(v); }, [](double v) { return std::log2(v); },
                                      [](double v) { return 1 / std::sqrt(v); }, [](double v) { return 1 / v; }};

template <class T>
void check_all_groups() {
  auto f_wide = sf::function(wide);
  auto f_static = sf::function([](auto x) { return std::tuple{sf::sin(x), sf::cos(x)}; });
  auto f_unit = sf::function(unit);
  auto f_above = sf::function(above_one);
  unsigned seed = 1;
  for (std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{8}, std::size_t{33}, std::size_t{1001}}) {
    const auto x = uniform<T>(n, -3.2, 3.2, seed++);
    std::apply([&](auto... r) { check_outputs(x, f_wide(x), r...); }, wide_ref);
    const auto u = uniform<T>(n, -0.95, 0.95, seed++);
    std::apply([&](auto... r) { check_outputs(u, f_unit(u), r...); }, unit_ref);
    const auto a = uniform<T>(n, 1.0, 40.0, seed++);
    std::apply([&](auto... r) { check_outputs(a, f_above(a), r...); }, above_one_ref);
  }
  // a static shape takes the same kernels
  const xt::xtensor_fixed<T, xt::xshape<19>> s = uniform<T>(19, -3.2, 3.2, 99);
  const auto [sin_s, cos_s] = f_static(s);
  CHECK(sin_s(18) == Approx(std::sin(static_cast<double>(s(18)))).epsilon(1e-6));
  CHECK(cos_s(17) == Approx(std::cos(static_cast<double>(s(17)))).epsilon(1e-6));
  CHECK(f_wide.tracing_count() == 1);  // one run-time length signature for every n
}
}  // namespace

TEST_CASE("math functions match the C library on random float32 and float64 inputs", "[graph][math]") {
  check_all_groups<float>();
  check_all_groups<double>();
}

TEST_CASE("math functions at the edges, as TensorFlow defines them", "[graph][math]") {
  constexpr float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  // long enough for a full batch and a tail, so both paths see each edge
  const xt::xtensor<float, 1> x{2.5f, -2.5f, 0.5f, -0.5f, 1.5f, -0.0f, 0.0f, nan, inf, -inf, 1000.f, -1000.f,
                                3.5f, -1.5f, 4.5f, 0.25f, 2.5f, -0.5f, nan};
  auto f = sf::function([](auto v) {
    return std::tuple{sf::round(v), sf::sign(v), sf::softplus(v), sf::is_nan(v), sf::is_inf(v), sf::is_finite(v),
                      sf::floor(v), sf::reciprocal(v)};
  });
  const auto [round, sign, softplus, is_nan, is_inf, is_finite, floor, reciprocal] = f(x);
  const std::vector<float> round_want{2, -2, 0, -0.f, 2, -0.f, 0, nan, inf, -inf, 1000, -1000, 4, -2, 4, 0, 2, -0.f, nan};
  for (std::size_t i = 0; i < x.size(); ++i) {
    INFO("x = " << x(i));
    if (std::isnan(x(i))) {
      CHECK(std::isnan(round(i)));
      CHECK(std::isnan(sign(i)));
      CHECK(std::isnan(softplus(i)));
      CHECK(is_nan(i));
      CHECK_FALSE(is_finite(i));
      continue;
    }
    CHECK(round(i) == round_want[i]);
    CHECK(std::signbit(round(i)) == std::signbit(round_want[i]));  // round(-0.5) == -0.0
    CHECK(sign(i) == (x(i) > 0 ? 1.f : x(i) < 0 ? -1.f : x(i)));
    CHECK(std::signbit(sign(i)) == std::signbit(x(i)));
    CHECK_FALSE(is_nan(i));
    CHECK(is_inf(i) == std::isinf(x(i)));
    CHECK(is_finite(i) == std::isfinite(x(i)));
    CHECK(floor(i) == std::floor(x(i)));
    CHECK(reciprocal(i) == 1.f / x(i));
  }
  CHECK(softplus(10) == 1000.f);  // no overflow
  CHECK(softplus(11) == 0.f);
  CHECK(softplus(8) == inf);
  CHECK(softplus(9) == 0.f);
  CHECK(std::isnan(softplus(18)));

  auto angle = sf::function([](auto y, auto x) { return sf::atan2(y, x); });
  const xt::xtensor<double, 1> ys{1, 1, -1, -1, 0, 0, 1, -1, 0};
  const xt::xtensor<double, 1> xs{1, -1, -1, 1, -1, 1, 0, 0, 0};
  const auto r = angle(ys, xs);
  for (std::size_t i = 0; i < ys.size(); ++i) CHECK(r(i) == std::atan2(ys(i), xs(i)));
  CHECK(r(4) == Approx(3.14159265358979323846));
}

TEST_CASE("bitwise ops, shifts and integer rounding on int32 and int64", "[graph][math]") {
  auto f = sf::function([](auto a, auto b) {
    return std::tuple{a & b, a | b, a ^ b, ~a, a << b, a >> b, sf::bitwise_and(a, 6), sf::left_shift(a, 3),
                      sf::floor(a), sf::round(a), sf::sign(a), sf::reciprocal(a)};
  });
  const xt::xtensor<std::int32_t, 1> a{5, -7, 12, 0, 1, -1, 1 << 30, -8, 3, 2, 7};
  const xt::xtensor<std::int32_t, 1> b{3, 2, 0, 5, 31, 31, 2, 1, 32, -1, 40};
  const auto [band, bor, bxor, inv, shl, shr, and6, shl3, fl, ro, sg, rc] = f(a, b);
  for (std::size_t i = 0; i < a.size(); ++i) {
    INFO("a = " << a(i) << ", b = " << b(i));
    CHECK(band(i) == (a(i) & b(i)));
    CHECK(bor(i) == (a(i) | b(i)));
    CHECK(bxor(i) == (a(i) ^ b(i)));
    CHECK(inv(i) == ~a(i));
    const bool in_range = b(i) >= 0 && b(i) < 32;
    CHECK(shl(i) == (in_range ? std::int32_t(std::uint32_t(a(i)) << b(i)) : 0));
    CHECK(shr(i) == (in_range ? (a(i) >> b(i)) : (a(i) < 0 ? -1 : 0)));
    CHECK(and6(i) == (a(i) & 6));
    CHECK(shl3(i) == std::int32_t(std::uint32_t(a(i)) << 3));
    CHECK(fl(i) == a(i));
    CHECK(ro(i) == a(i));
    CHECK(sg(i) == (a(i) > 0 ? 1 : a(i) < 0 ? -1 : 0));
    CHECK(rc(i) == (a(i) == 0 ? -1 : 1 / a(i)));  // XLA's x / 0 == -1
  }
  CHECK(shl(4) == std::numeric_limits<std::int32_t>::min());  // 1 << 31 wraps to INT_MIN
  CHECK(shl(6) == 0);                                         // 2^30 << 2: the bits leave

  auto wide = sf::function([](auto a) { return std::tuple{a << 40, a >> 63, ~a}; });
  const xt::xtensor<std::int64_t, 1> big{1, -3, std::int64_t(1) << 40};
  const auto [l40, r63, inv64] = wide(big);
  CHECK(l40(0) == std::int64_t(1) << 40);
  CHECK(r63(1) == -1);
  CHECK(r63(2) == 0);
  CHECK(inv64(2) == ~(std::int64_t(1) << 40));
}

TEST_CASE("&, |, ^ and ~ on bool tensors are the logical ops", "[graph][math]") {
  auto f = sf::function([](auto a, auto b) {
    return std::tuple{(a > 0) & (b > 0), (a > 0) | (b > 0), (a > 0) ^ (b > 0), ~(a > 0), sf::logical_xor(a > 0, b > 0)};
  });
  const xt::xtensor<float, 1> a{1, 1, -1, -1, 2, 3, -4, 5, 1};
  const xt::xtensor<float, 1> b{1, -1, 1, -1, 2, -3, -4, -5, 1};
  const auto [land, lor, lxor, lnot, xor2] = f(a, b);
  for (std::size_t i = 0; i < a.size(); ++i) {
    const bool p = a(i) > 0, q = b(i) > 0;
    CHECK(land(i) == (p && q));
    CHECK(lor(i) == (p || q));
    CHECK(lxor(i) == (p != q));
    CHECK(lnot(i) == !p);
    CHECK(xor2(i) == (p != q));
  }
  auto& c = f.get_concrete_function(sf::spec<float, 3>{}, sf::spec<float, 3>{});
  const std::string listing = c.graph_string();
  CHECK(listing.find(" LogicalAnd ") != std::string::npos);
  CHECK(listing.find(" LogicalXor ") != std::string::npos);
  CHECK(listing.find("Bitwise") == std::string::npos);
}

TEST_CASE("math functions print with their names and fold on constants", "[graph][math]") {
  auto f = sf::function([](auto x) { return sf::atan2(sf::sin(x), sf::erf(x)) + sf::sign(sf::static_value<-4>{}); });
  const std::string listing = f.get_concrete_function(sf::spec<double, 2>{}).graph_string();
  INFO(listing);
  CHECK(listing.find("= Sin a") != std::string::npos);
  CHECK(listing.find("= Erf a") != std::string::npos);
  CHECK(listing.find("= Atan2 ") != std::string::npos);
  CHECK(listing.find("Sign") == std::string::npos);  // sign(-4) folded to the constant -1
  CHECK(listing.find("AddV2 d -1:int32[]") != std::string::npos);
  const xt::xtensor<double, 1> x{0.5, -1.0};
  const auto r = f(x);
  CHECK(r(0) == Approx(std::atan2(std::sin(0.5), std::erf(0.5)) - 1));
}

TEST_CASE("misuse: math functions on the wrong dtype are compile errors", "[graph][math]") {
  // (the messages: tests/compile_fail/sqrt_of_int_tensor.cpp, bitwise_of_float_tensors.cpp,
  // activation_of_int_tensor.cpp)
  STATIC_REQUIRE(sf::op::sin::requirement == sf::op::operands::floating);
  STATIC_REQUIRE(sf::op::bitwise_and::requirement == sf::op::operands::integer);
  STATIC_REQUIRE(sf::op::floor::requirement == sf::op::operands::numeric);
  STATIC_REQUIRE(std::is_same_v<sf::op::is_nan::result<float>, bool>);
}
