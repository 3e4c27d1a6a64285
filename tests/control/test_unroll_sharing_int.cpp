// Tests for control/fori_loop.hpp's unrolling with shared steps (issue 25): the issue's int32
// program, whose graph grew as 4^trips, unrolled 16 times.
#include <catch2/catch.hpp>

#include <cstdint>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

namespace {
// the issue's int32 body: ((v * 3) + where(reduce_all(v <= -1, axis 0, keepdims), v, v)) % 1000
constexpr auto issue_body = [](auto, auto v) {
  return ((v * 3) + sf::where(sf::reduce_all(v <= -1, sf::axes<0>{}, sf::keepdims), v, v)) % 1000;
};
}  // namespace

TEST_CASE("the issue's int32 program unrolled 16 times equals the run-time loop", "[fori_loop][unroll]") {
  auto unrolled = sf::function([](auto x) { return sf::fori_loop(sf::static_value<0>{}, sf::static_value<16>{}, issue_body, x); });
  auto looped = sf::function([](auto x) { return sf::fori_loop(0, 16, issue_body, x); });
  xt::xtensor_fixed<std::int32_t, xt::xshape<1, 8>> x = {{-7, -1, 0, 1, 2, 999, -1000, 12345}};
  const auto a = unrolled(x);
  const auto b = looped(x);
  CHECK(a == b);
  CHECK(a(0, 3) == 296);  // 1 -> 4 v mod 1000 each step: 4^16 mod 1000
}

