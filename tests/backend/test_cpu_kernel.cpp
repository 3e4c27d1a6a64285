// Tests for backend/cpu/kernel.hpp: every op through the fused loop against the scalar reference,
// at sizes that hit the unrolled body, the vector remainder and the scalar tail; NaN lanes,
// integer wrapping with XLA's division rules, dtype promotion and casts. Every small length, empty
// tensors and static values: test_cpu_kernel_lengths.cpp; broadcasting, call_into, aliased
// outputs and the SIMD path: test_cpu_kernel_outputs.cpp.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include <staticflow/staticflow.hpp>

#include "kernel_test_inputs.hpp"

namespace sf = staticflow;

using kernel_test::random_vector;

namespace {
// Sizes around multiples of the batch width (up to 16 lanes with AVX-512, 4x unrolled).
const std::size_t sizes[] = {1, 3, 15, 16, 17, 63, 64, 65, 127, 200};

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
