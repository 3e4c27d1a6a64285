// The scalar reference semantics of every elementwise op (graph/scalar_ops.hpp): what each
// backend must reproduce, including the cases C++ leaves undefined.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "staticflow/graph/math_ops.hpp"
#include "staticflow/graph/scalar_ops.hpp"

namespace op = staticflow::op;
using std::int32_t;
using std::int64_t;

namespace {
constexpr int32_t i32_min = std::numeric_limits<int32_t>::min();
constexpr int32_t i32_max = std::numeric_limits<int32_t>::max();
constexpr int64_t i64_min = std::numeric_limits<int64_t>::min();
constexpr int64_t i64_max = std::numeric_limits<int64_t>::max();
constexpr float f_nan = std::numeric_limits<float>::quiet_NaN();
constexpr double d_nan = std::numeric_limits<double>::quiet_NaN();
constexpr double d_inf = std::numeric_limits<double>::infinity();

// Hides a value from the optimizer, so the run-time checks exercise the code as compiled (the
// constexpr ones prove the same expressions have no undefined behaviour).
template <class T>
T opaque(T v) {
  volatile T x = v;
  return x;
}
}  // namespace

TEST_CASE("op names and operand requirements", "[graph][scalar_ops]") {
  CHECK(op::negate::name == "neg");
  CHECK(op::subtract::name == "sub");
  CHECK(op::multiply::name == "mul");
  CHECK(op::divide::name == "div");
  CHECK(op::mod::name == "rem");
  CHECK(op::maximum::name == "max");
  CHECK(op::less_equal::name == "le");
  CHECK(op::not_equal::name == "ne");
  CHECK(op::logical_not::name == "not");

  STATIC_REQUIRE(op::add::requirement == op::operands::numeric);
  STATIC_REQUIRE(op::sqrt::requirement == op::operands::floating);
  STATIC_REQUIRE(op::sigmoid::requirement == op::operands::floating);
  STATIC_REQUIRE(op::logical_and::requirement == op::operands::boolean);
  STATIC_REQUIRE(op::equal::requirement == op::operands::any);
  STATIC_REQUIRE(op::less::requirement == op::operands::numeric);

  STATIC_REQUIRE(std::is_same_v<op::add::result<int32_t>, int32_t>);
  STATIC_REQUIRE(std::is_same_v<op::divide::result<double>, double>);
  STATIC_REQUIRE(std::is_same_v<op::less::result<float>, bool>);
  STATIC_REQUIRE(std::is_same_v<op::equal::result<int64_t>, bool>);
}

TEST_CASE("integer add, sub, mul, neg, abs and square wrap around", "[graph][scalar_ops]") {
  // Compile-time: would not be a constant expression if it overflowed a signed type.
  STATIC_REQUIRE(op::add::apply(i32_max, int32_t{1}) == i32_min);
  STATIC_REQUIRE(op::add::apply(i32_min, int32_t{-1}) == i32_max);
  STATIC_REQUIRE(op::add::apply(i64_max, int64_t{1}) == i64_min);
  STATIC_REQUIRE(op::subtract::apply(i32_min, int32_t{1}) == i32_max);
  STATIC_REQUIRE(op::subtract::apply(int32_t{0}, i32_min) == i32_min);
  STATIC_REQUIRE(op::multiply::apply(i32_max, int32_t{2}) == -2);
  STATIC_REQUIRE(op::multiply::apply(int32_t{65536}, int32_t{65536}) == 0);
  STATIC_REQUIRE(op::multiply::apply(i32_min, int32_t{-1}) == i32_min);
  STATIC_REQUIRE(op::multiply::apply(i64_min, int64_t{-1}) == i64_min);
  STATIC_REQUIRE(op::multiply::apply(int64_t{1} << 32, int64_t{1} << 32) == 0);
  STATIC_REQUIRE(op::negate::apply(i32_min) == i32_min);
  STATIC_REQUIRE(op::negate::apply(i64_min) == i64_min);
  STATIC_REQUIRE(op::abs::apply(i32_min) == i32_min);
  STATIC_REQUIRE(op::abs::apply(i64_min) == i64_min);
  STATIC_REQUIRE(op::square::apply(int32_t{46341}) == -2147479015);  // 46341^2 - 2^32

  // The same at run time.
  CHECK(op::add::apply(opaque(i32_max), opaque(int32_t{1})) == i32_min);
  CHECK(op::subtract::apply(opaque(i64_min), opaque(int64_t{1})) == i64_max);
  CHECK(op::multiply::apply(opaque(i32_max), opaque(i32_max)) == 1);
  CHECK(op::negate::apply(opaque(i32_min)) == i32_min);
  CHECK(op::abs::apply(opaque(i32_min)) == i32_min);
  CHECK(op::square::apply(opaque(int32_t{46341})) == -2147479015);

  // Ordinary values.
  CHECK(op::add::apply(opaque(int32_t{2}), opaque(int32_t{-5})) == -3);
  CHECK(op::negate::apply(opaque(int64_t{7})) == -7);
  CHECK(op::abs::apply(opaque(int32_t{-5})) == 5);
  CHECK(op::abs::apply(opaque(int32_t{5})) == 5);
  CHECK(op::abs::apply(opaque(-2.5f)) == 2.5f);
  CHECK(op::negate::apply(opaque(1.5)) == -1.5);
  CHECK(op::square::apply(opaque(-3.0f)) == 9.0f);
  // Floats do not wrap.
  CHECK(op::multiply::apply(opaque(3.0e38f), opaque(10.0f)) == std::numeric_limits<float>::infinity());
}

TEST_CASE("integer divide and mod truncate toward zero", "[graph][scalar_ops]") {
  STATIC_REQUIRE(op::divide::apply(7, 2) == 3);
  STATIC_REQUIRE(op::divide::apply(-7, 2) == -3);
  STATIC_REQUIRE(op::divide::apply(7, -2) == -3);
  STATIC_REQUIRE(op::divide::apply(-7, -2) == 3);
  STATIC_REQUIRE(op::mod::apply(7, 2) == 1);
  STATIC_REQUIRE(op::mod::apply(-7, 2) == -1);
  STATIC_REQUIRE(op::mod::apply(7, -2) == 1);
  STATIC_REQUIRE(op::mod::apply(-7, -2) == -1);
  STATIC_REQUIRE(op::divide::apply(int64_t{-9}, int64_t{4}) == -2);
  STATIC_REQUIRE(op::mod::apply(int64_t{-9}, int64_t{4}) == -1);

  CHECK(op::divide::apply(opaque(-7), opaque(2)) == -3);
  CHECK(op::mod::apply(opaque(-7), opaque(2)) == -1);
  CHECK(op::mod::apply(opaque(7), opaque(-2)) == 1);

  // Floats: true division, and fmod (sign of the dividend).
  CHECK(op::divide::apply(opaque(7.0f), opaque(2.0f)) == 3.5f);
  CHECK(op::divide::apply(opaque(1.0), opaque(0.0)) == d_inf);
  CHECK(op::mod::apply(opaque(-7.5), opaque(2.0)) == -1.5);
  CHECK(op::mod::apply(opaque(7.5f), opaque(-2.0f)) == 1.5f);
}

TEST_CASE("integer divide and mod follow XLA where C++ is undefined", "[graph][scalar_ops]") {
  // x / 0 == -1 and x % 0 == x, for every x.
  STATIC_REQUIRE(op::divide::apply(7, 0) == -1);
  STATIC_REQUIRE(op::divide::apply(-7, 0) == -1);
  STATIC_REQUIRE(op::divide::apply(0, 0) == -1);
  STATIC_REQUIRE(op::divide::apply(i64_max, int64_t{0}) == -1);
  STATIC_REQUIRE(op::mod::apply(7, 0) == 7);
  STATIC_REQUIRE(op::mod::apply(-7, 0) == -7);
  STATIC_REQUIRE(op::mod::apply(i32_min, 0) == i32_min);
  // INT_MIN / -1 == INT_MIN and INT_MIN % -1 == 0.
  STATIC_REQUIRE(op::divide::apply(i32_min, -1) == i32_min);
  STATIC_REQUIRE(op::divide::apply(i64_min, int64_t{-1}) == i64_min);
  STATIC_REQUIRE(op::mod::apply(i32_min, -1) == 0);
  STATIC_REQUIRE(op::mod::apply(i64_min, int64_t{-1}) == 0);
  // Neighbours of the special cases are ordinary.
  STATIC_REQUIRE(op::divide::apply(i32_min + 1, -1) == i32_max);
  STATIC_REQUIRE(op::divide::apply(i32_min, 1) == i32_min);
  STATIC_REQUIRE(op::mod::apply(i32_min, 2) == 0);

  CHECK(op::divide::apply(opaque(5), opaque(0)) == -1);
  CHECK(op::mod::apply(opaque(5), opaque(0)) == 5);
  CHECK(op::divide::apply(opaque(i32_min), opaque(-1)) == i32_min);
  CHECK(op::mod::apply(opaque(i32_min), opaque(-1)) == 0);
  CHECK(op::divide::apply(opaque(i64_min), opaque(int64_t{-1})) == i64_min);
  CHECK(op::mod::apply(opaque(i64_min), opaque(int64_t{-1})) == 0);
}

TEST_CASE("floordiv and floormod have Python's semantics for integers", "[graph][scalar_ops]") {
  // -7 // 2 == -4, 7 // -2 == -4, -7 // -2 == 3, 7 // 2 == 3; exact quotients are not adjusted.
  STATIC_REQUIRE(op::floordiv::apply(-7, 2) == -4);
  STATIC_REQUIRE(op::floordiv::apply(7, -2) == -4);
  STATIC_REQUIRE(op::floordiv::apply(-7, -2) == 3);
  STATIC_REQUIRE(op::floordiv::apply(7, 2) == 3);
  STATIC_REQUIRE(op::floordiv::apply(-6, 2) == -3);
  STATIC_REQUIRE(op::floordiv::apply(6, -3) == -2);
  STATIC_REQUIRE(op::floordiv::apply(-1, 3) == -1);
  STATIC_REQUIRE(op::floordiv::apply(0, -3) == 0);
  STATIC_REQUIRE(op::floordiv::apply(int64_t{-7}, int64_t{2}) == -4);
  // -7 % 2 == 1, 7 % -2 == -1, -7 % -2 == -1, 7 % 2 == 1.
  STATIC_REQUIRE(op::floormod::apply(-7, 2) == 1);
  STATIC_REQUIRE(op::floormod::apply(7, -2) == -1);
  STATIC_REQUIRE(op::floormod::apply(-7, -2) == -1);
  STATIC_REQUIRE(op::floormod::apply(7, 2) == 1);
  STATIC_REQUIRE(op::floormod::apply(-6, 2) == 0);
  STATIC_REQUIRE(op::floormod::apply(-1, 3) == 2);
  STATIC_REQUIRE(op::floormod::apply(int64_t{-7}, int64_t{3}) == 2);
  // The XLA cases carry over: x // 0 == -1, x % 0 == x, INT_MIN // -1 == INT_MIN, INT_MIN % -1 == 0.
  STATIC_REQUIRE(op::floordiv::apply(-7, 0) == -1);
  STATIC_REQUIRE(op::floordiv::apply(7, 0) == -1);
  STATIC_REQUIRE(op::floormod::apply(-7, 0) == -7);
  STATIC_REQUIRE(op::floormod::apply(7, 0) == 7);
  STATIC_REQUIRE(op::floordiv::apply(i32_min, -1) == i32_min);
  STATIC_REQUIRE(op::floormod::apply(i32_min, -1) == 0);
  STATIC_REQUIRE(op::floordiv::apply(i64_min, int64_t{-1}) == i64_min);
  // Extremes that do not overflow.
  STATIC_REQUIRE(op::floordiv::apply(i32_min, 2) == i32_min / 2);
  STATIC_REQUIRE(op::floordiv::apply(i32_max, -2) == -1073741824);
  STATIC_REQUIRE(op::floormod::apply(i32_max, -2) == -1);
  STATIC_REQUIRE(op::floormod::apply(i32_min, i32_max) == i32_max - 1);

  CHECK(op::floordiv::apply(opaque(-7), opaque(2)) == -4);
  CHECK(op::floormod::apply(opaque(-7), opaque(2)) == 1);
  CHECK(op::floormod::apply(opaque(7), opaque(-2)) == -1);
  CHECK(op::floordiv::apply(opaque(i32_min), opaque(-1)) == i32_min);
  CHECK(op::floormod::apply(opaque(i32_min), opaque(-1)) == 0);
  CHECK(op::floormod::apply(opaque(9), opaque(0)) == 9);
}

TEST_CASE("floordiv and floormod have Python's semantics for floats", "[graph][scalar_ops]") {
  CHECK(op::floordiv::apply(opaque(-7.0), opaque(2.0)) == -4.0);
  CHECK(op::floordiv::apply(opaque(7.0), opaque(-2.0)) == -4.0);
  CHECK(op::floordiv::apply(opaque(-7.5f), opaque(2.0f)) == -4.0f);
  CHECK(op::floordiv::apply(opaque(7.5), opaque(2.0)) == 3.0);
  CHECK(op::floordiv::apply(opaque(-6.0), opaque(2.0)) == -3.0);

  CHECK(op::floormod::apply(opaque(-7.5), opaque(2.0)) == 0.5);
  CHECK(op::floormod::apply(opaque(-7.5f), opaque(2.0f)) == 0.5f);
  CHECK(op::floormod::apply(opaque(7.5), opaque(-2.0)) == -0.5);
  CHECK(op::floormod::apply(opaque(-7.5), opaque(-2.0)) == -1.5);
  CHECK(op::floormod::apply(opaque(7.5), opaque(2.0)) == 1.5);
  CHECK(op::floormod::apply(opaque(-7.0), opaque(2.0)) == 1.0);
  CHECK(op::floormod::apply(opaque(-6.0), opaque(3.0)) == 0.0);
  // floormod(a, b) + b * floordiv(a, b) == a for these exactly representable values.
  for (double a : {-7.5, -1.25, 0.0, 3.75, 9.0})
    for (double b : {-2.0, -0.5, 0.25, 4.0})
      CHECK(op::floormod::apply(a, b) + b * op::floordiv::apply(a, b) == a);
  // Division by zero: inf and NaN, as in IEEE arithmetic.
  CHECK(op::floordiv::apply(opaque(1.0), opaque(0.0)) == d_inf);
  CHECK(std::isnan(op::floormod::apply(opaque(1.0), opaque(0.0))));
}

TEST_CASE("integer pow: exact, wrapping, and negative exponents", "[graph][scalar_ops]") {
  STATIC_REQUIRE(op::pow::apply(2, 10) == 1024);
  STATIC_REQUIRE(op::pow::apply(3, 0) == 1);
  STATIC_REQUIRE(op::pow::apply(0, 0) == 1);
  STATIC_REQUIRE(op::pow::apply(0, 5) == 0);
  STATIC_REQUIRE(op::pow::apply(-2, 3) == -8);
  STATIC_REQUIRE(op::pow::apply(-3, 4) == 81);
  STATIC_REQUIRE(op::pow::apply(7, 1) == 7);
  STATIC_REQUIRE(op::pow::apply(10, 9) == 1000000000);
  // Wraps instead of overflowing.
  STATIC_REQUIRE(op::pow::apply(2, 31) == i32_min);
  STATIC_REQUIRE(op::pow::apply(2, 32) == 0);
  STATIC_REQUIRE(op::pow::apply(3, 21) == 1870418611);  // 3^21 = 10460353203 = 2 * 2^32 + 1870418611
  STATIC_REQUIRE(op::pow::apply(int64_t{2}, int64_t{62}) == int64_t{1} << 62);
  STATIC_REQUIRE(op::pow::apply(int64_t{2}, int64_t{63}) == i64_min);
  STATIC_REQUIRE(op::pow::apply(int64_t{10}, int64_t{18}) == 1000000000000000000);
  // Negative exponents: 1 and -1 have integer reciprocals, everything else truncates to 0.
  STATIC_REQUIRE(op::pow::apply(2, -1) == 0);
  STATIC_REQUIRE(op::pow::apply(-2, -1) == 0);
  STATIC_REQUIRE(op::pow::apply(5, -3) == 0);
  STATIC_REQUIRE(op::pow::apply(1, -5) == 1);
  STATIC_REQUIRE(op::pow::apply(-1, -3) == -1);
  STATIC_REQUIRE(op::pow::apply(-1, -2) == 1);
  STATIC_REQUIRE(op::pow::apply(-1, i32_min) == 1);
  STATIC_REQUIRE(op::pow::apply(int64_t{-1}, int64_t{-7}) == -1);

  CHECK(op::pow::apply(opaque(3), opaque(5)) == 243);
  CHECK(op::pow::apply(opaque(2), opaque(31)) == i32_min);
  CHECK(op::pow::apply(opaque(-1), opaque(-3)) == -1);
  CHECK(op::pow::apply(opaque(2), opaque(-2)) == 0);

  // Floats use std::pow.
  CHECK(op::pow::apply(opaque(2.0f), opaque(-1.0f)) == 0.5f);
  CHECK(op::pow::apply(opaque(9.0), opaque(0.5)) == 3.0);
  CHECK(std::isnan(op::pow::apply(opaque(-8.0), opaque(1.0 / 3.0))));
}

TEST_CASE("maximum and minimum propagate NaN from either side", "[graph][scalar_ops]") {
  STATIC_REQUIRE(op::maximum::apply(i32_min, 3) == 3);
  STATIC_REQUIRE(op::minimum::apply(i32_min, 3) == i32_min);
  STATIC_REQUIRE(op::maximum::apply(int64_t{-4}, int64_t{-9}) == -4);
  CHECK(op::maximum::apply(opaque(1.5f), opaque(-2.0f)) == 1.5f);
  CHECK(op::minimum::apply(opaque(1.5f), opaque(-2.0f)) == -2.0f);
  CHECK(op::maximum::apply(opaque(-d_inf), opaque(-1e300)) == -1e300);

  CHECK(std::isnan(op::maximum::apply(opaque(f_nan), opaque(1.0f))));
  CHECK(std::isnan(op::maximum::apply(opaque(1.0f), opaque(f_nan))));
  CHECK(std::isnan(op::minimum::apply(opaque(f_nan), opaque(1.0f))));
  CHECK(std::isnan(op::minimum::apply(opaque(1.0f), opaque(f_nan))));
  CHECK(std::isnan(op::maximum::apply(opaque(d_nan), opaque(d_inf))));
  CHECK(std::isnan(op::maximum::apply(opaque(d_inf), opaque(d_nan))));
  CHECK(std::isnan(op::minimum::apply(opaque(-d_inf), opaque(d_nan))));
  CHECK(std::isnan(op::minimum::apply(opaque(d_nan), opaque(-d_inf))));
}

TEST_CASE("relu and sigmoid", "[graph][scalar_ops]") {
  STATIC_REQUIRE(op::relu::apply(-3) == 0);
  STATIC_REQUIRE(op::relu::apply(3) == 3);
  STATIC_REQUIRE(op::relu::apply(i32_min) == 0);
  STATIC_REQUIRE(op::relu::apply(int64_t{0}) == 0);
  CHECK(op::relu::apply(opaque(-0.5f)) == 0.0f);
  CHECK(op::relu::apply(opaque(2.25)) == 2.25);

  CHECK(op::sigmoid::apply(opaque(0.0f)) == 0.5f);
  CHECK(op::sigmoid::apply(opaque(0.0)) == 0.5);
  CHECK(op::sigmoid::apply(opaque(-1000.0)) == 0.0);
  CHECK(op::sigmoid::apply(opaque(1000.0)) == 1.0);
  CHECK(op::sigmoid::apply(opaque(1.0)) == Approx(0.7310585786300049).epsilon(1e-15));
  CHECK(op::sigmoid::apply(opaque(-2.0f)) == Approx(0.11920292f).epsilon(1e-6));
  // sigmoid(-x) == 1 - sigmoid(x)
  CHECK(op::sigmoid::apply(opaque(-0.75)) == Approx(1.0 - op::sigmoid::apply(0.75)).epsilon(1e-15));

  CHECK(op::sqrt::apply(opaque(2.25f)) == 1.5f);
  CHECK(std::isnan(op::sqrt::apply(opaque(-1.0))));
  CHECK(op::exp::apply(opaque(0.0)) == 1.0);
  CHECK(op::log::apply(opaque(1.0f)) == 0.0f);
  CHECK(op::log::apply(opaque(0.0)) == -d_inf);
  CHECK(op::tanh::apply(opaque(0.0)) == 0.0);
  CHECK(op::tanh::apply(opaque(50.0)) == 1.0);
}

TEST_CASE("comparisons and logic", "[graph][scalar_ops]") {
  STATIC_REQUIRE(op::less::apply(1, 2));
  STATIC_REQUIRE_FALSE(op::less::apply(2, 2));
  STATIC_REQUIRE(op::less_equal::apply(2, 2));
  STATIC_REQUIRE_FALSE(op::less_equal::apply(3, 2));
  STATIC_REQUIRE(op::greater::apply(3, 2));
  STATIC_REQUIRE_FALSE(op::greater::apply(2, 2));
  STATIC_REQUIRE(op::greater_equal::apply(2, 2));
  STATIC_REQUIRE_FALSE(op::greater_equal::apply(1, 2));
  STATIC_REQUIRE(op::equal::apply(i64_min, i64_min));
  STATIC_REQUIRE_FALSE(op::equal::apply(1, 2));
  STATIC_REQUIRE(op::not_equal::apply(1, 2));
  STATIC_REQUIRE(op::equal::apply(true, true));
  STATIC_REQUIRE(op::less::apply(i32_min, i32_max));

  // Every ordered comparison with NaN is false; != is true.
  CHECK_FALSE(op::less::apply(opaque(f_nan), opaque(1.0f)));
  CHECK_FALSE(op::less_equal::apply(opaque(f_nan), opaque(f_nan)));
  CHECK_FALSE(op::greater::apply(opaque(1.0), opaque(d_nan)));
  CHECK_FALSE(op::greater_equal::apply(opaque(d_nan), opaque(d_nan)));
  CHECK_FALSE(op::equal::apply(opaque(d_nan), opaque(d_nan)));
  CHECK(op::not_equal::apply(opaque(d_nan), opaque(d_nan)));
  CHECK(op::equal::apply(opaque(0.0), opaque(-0.0)));

  STATIC_REQUIRE(op::logical_and::apply(true, true));
  STATIC_REQUIRE_FALSE(op::logical_and::apply(true, false));
  STATIC_REQUIRE_FALSE(op::logical_and::apply(false, false));
  STATIC_REQUIRE(op::logical_or::apply(false, true));
  STATIC_REQUIRE_FALSE(op::logical_or::apply(false, false));
  STATIC_REQUIRE(op::logical_not::apply(false));
  STATIC_REQUIRE_FALSE(op::logical_not::apply(true));
}

TEST_CASE("bitwise ops and shifts: XLA's rule out of range, no undefined behaviour", "[graph][scalar_ops]") {
  STATIC_REQUIRE(op::left_shift::apply(int32_t{1}, int32_t{31}) == i32_min);
  STATIC_REQUIRE(op::left_shift::apply(int32_t{-1}, int32_t{4}) == -16);
  STATIC_REQUIRE(op::left_shift::apply(i64_max, int64_t{1}) == -2);
  STATIC_REQUIRE(op::right_shift::apply(i32_min, int32_t{31}) == -1);
  STATIC_REQUIRE(op::invert::apply(int64_t{0}) == -1);
  for (const int32_t shift : {32, 33, -1, i32_min, i32_max}) {
    INFO("shift " << shift);
    CHECK(op::left_shift::apply(opaque(int32_t{5}), opaque(shift)) == 0);
    CHECK(op::right_shift::apply(opaque(int32_t{5}), opaque(shift)) == 0);
    CHECK(op::right_shift::apply(opaque(int32_t{-5}), opaque(shift)) == -1);
  }
  CHECK(op::left_shift::apply(opaque(i64_min), opaque(int64_t{64})) == 0);
  CHECK(op::right_shift::apply(opaque(i64_min), opaque(int64_t{63})) == -1);
  CHECK(op::bitwise_xor::apply(opaque(i32_min), opaque(i32_max)) == -1);
  CHECK(op::sign::apply(opaque(i64_min)) == -1);
  CHECK(op::reciprocal::apply(opaque(int32_t{0})) == -1);  // 1 / 0 as XLA's division
  CHECK(op::reciprocal::apply(opaque(int32_t{-1})) == -1);
  CHECK(op::round::apply(opaque(i32_max)) == i32_max);
}

TEST_CASE("math functions' scalar edges", "[graph][scalar_ops]") {
  CHECK(op::round::apply(opaque(2.5)) == 2.0);
  CHECK(op::round::apply(opaque(3.5)) == 4.0);
  CHECK(std::signbit(op::round::apply(opaque(-0.5))));
  CHECK(std::isnan(op::sign::apply(opaque(d_nan))));
  CHECK(std::signbit(op::sign::apply(opaque(-0.0))));
  CHECK(op::softplus::apply(opaque(1000.0)) == 1000.0);
  CHECK(op::softplus::apply(opaque(-d_inf)) == 0.0);
  CHECK(op::is_finite::apply(opaque(1.0f)));
  CHECK_FALSE(op::is_finite::apply(opaque(f_nan)));
  CHECK(op::is_inf::apply(opaque(-d_inf)));
  CHECK(op::atan2::apply(opaque(0.0), opaque(-1.0)) == Approx(3.14159265358979323846));
  CHECK(op::rsqrt::name == "rsqrt");
  CHECK(op::logical_xor::name == "xor");
}
