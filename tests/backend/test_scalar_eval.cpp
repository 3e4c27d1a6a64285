// Tests for backend/cpu/scalar_eval.hpp's exact-division form of `where(x % d == 0, x / d, other)`
// (a variable x, a power-of-two literal d): the first branch is an arithmetic shift. Every case
// is checked against C++'s own `%` and `/` (truncating), for negative x too, and the forms the
// shortcut must not take (d not a power of two, a different divisor, a nonzero remainder test).
#include <catch2/catch.hpp>

#include <cstdint>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

namespace {
using vec = xt::xtensor<std::int64_t, 1>;

vec values() {
  vec x = vec::from_shape({81});
  for (std::size_t i = 0; i < 81; ++i) x[i] = static_cast<std::int64_t>(i) - 40;  // -40 .. 40
  return x;
}

template <class F, class Want>
void check(F& f, Want want) {
  const vec x = values();
  const vec got = f(x);
  for (std::size_t i = 0; i < x.size(); ++i) {
    INFO("x = " << x[i]);
    REQUIRE(got[i] == want(x[i]));
  }
  for (const std::int64_t s : {std::int64_t{-64}, std::int64_t{-7}, std::int64_t{0}, std::int64_t{12}}) {  // scalars too
    INFO("scalar x = " << s);
    auto y = f(s);
    REQUIRE(y == want(s));
  }
}
}  // namespace

TEST_CASE("where(x % d == 0, x / d, ...) with a power-of-two d is exact for every sign", "[scalar_eval]") {
  auto f = sf::function([](auto x) { return sf::where(x % 4 == 0, x / 4, 3 * x + 1); });
  check(f, [](std::int64_t x) { return x % 4 == 0 ? x / 4 : 3 * x + 1; });
  using namespace sf::literals;
  auto g = sf::function([](auto x) { return sf::where(x % 8_c == 0_c, x / 8_c, x - 1_c); });
  check(g, [](std::int64_t x) { return x % 8 == 0 ? x / 8 : x - 1; });
}

TEST_CASE("where(x % d == ..., x / d2, ...) forms that are not exact divisions", "[scalar_eval]") {
  auto not_power = sf::function([](auto x) { return sf::where(x % 6 == 0, x / 6, x); });
  check(not_power, [](std::int64_t x) { return x % 6 == 0 ? x / 6 : x; });
  auto other_divisor = sf::function([](auto x) { return sf::where(x % 4 == 0, x / 8, x); });
  check(other_divisor, [](std::int64_t x) { return x % 4 == 0 ? x / 8 : x; });
  auto remainder_one = sf::function([](auto x) { return sf::where(x % 4 == 1, x / 4, x); });
  check(remainder_one, [](std::int64_t x) { return x % 4 == 1 ? x / 4 : x; });
  auto negative = sf::function([](auto x) { return sf::where(x % -4 == 0, x / -4, x); });
  check(negative, [](std::int64_t x) { return x % -4 == 0 ? x / -4 : x; });
}
