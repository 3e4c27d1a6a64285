// Tests for control/fori_loop.hpp's unrolling with shared steps (issue 25): the issue's purely
// elementwise float body, v * 0.5 + tanh(-maximum(v, v)), over broadcast_to(reduce_min(a)). Each
// step reads the previous one three times; unrolled 4 times it took more than 5 GB of g++ before
// the steps were shared (a tree of 3^4 copies of the first step, fused into one loop).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <string>

#include <staticflow/staticflow.hpp>

#include "listing_count.hpp"

namespace sf = staticflow;

namespace {
using staticflow_test::count_of;

constexpr auto issue_body = [](auto, auto v) { return (v * 0.5f) + sf::tanh(-sf::maximum(v, v)); };

// the start value: a [3, 5] array of a's minimum (an elementwise broadcast of a reduction)
constexpr auto start = [](auto a) { return sf::broadcast_to<sf::shape<3, 5>>(sf::reduce_min(a)); };

template <int Steps>
auto unrolled_issue_loop() {
  return sf::function([](auto a) { return sf::fori_loop(sf::static_value<0>{}, sf::static_value<Steps>{}, issue_body, start(a)); });
}

// the recurrence by hand, in float as the graph computes it
float by_hand(float v, int steps) {
  for (int i = 0; i < steps; ++i) v = v * 0.5f + std::tanh(-std::fmax(v, v));
  return v;
}
}  // namespace

TEST_CASE("the issue's elementwise body unrolled 4 and 16 times equals the run-time loop", "[fori_loop][unroll]") {
  auto four = unrolled_issue_loop<4>();
  auto sixteen = unrolled_issue_loop<16>();
  auto looped = sf::function([](auto a, auto steps) { return sf::fori_loop(0, steps, issue_body, start(a)); });
  const xt::xtensor_fixed<float, xt::xshape<3, 5>> a = {{0.5f, -1.25f, 2.f, 0.f, 3.f},
                                                        {1.f, 1.5f, -0.75f, 4.f, 0.25f},
                                                        {-1.f, 2.5f, 0.125f, 1.f, 0.5f}};
  const auto y4 = four(a);
  const auto y16 = sixteen(a);
  const xt::xtensor<float, 2> r4 = looped(a, 4);
  const xt::xtensor<float, 2> r16 = looped(a, 16);
  for (std::size_t i = 0; i < 3; ++i) {
    for (std::size_t j = 0; j < 5; ++j) {
      CHECK(y4(i, j) == Approx(r4(i, j)).epsilon(1e-6));
      CHECK(y16(i, j) == Approx(r16(i, j)).epsilon(1e-6));
      CHECK(y4(i, j) == Approx(by_hand(-1.25f, 4)).epsilon(1e-6));
      CHECK(y16(i, j) == Approx(by_hand(-1.25f, 16)).epsilon(1e-6));
    }
  }
  // every value a step reads three times is computed once into a buffer: the start (a broadcast
  // of the reduction) and the first 15 steps; one equation per op of each step, no loop left
  const std::string listing = sixteen.get_concrete_function(a).graph_string();
  CHECK(count_of(listing, " = Tanh ") == 16);
  CHECK(count_of(listing, " = Maximum ") == 16);
  CHECK(count_of(listing, " = materialize ") == 16);
  CHECK(count_of(listing, "While") == 0);
  // the reduction's slot and the 16 buffers, each once per call
  sf::plan::materialization_counter() = 0;
  (void)sixteen(a);
  CHECK(sf::plan::materialization_counter() == 17);
}

TEST_CASE("the issue's elementwise loop over size-0 and size-1 inputs", "[fori_loop][unroll]") {
  auto f = sf::function([](auto a) {
    return sf::fori_loop(sf::static_value<0>{}, sf::static_value<8>{}, issue_body, a + sf::reduce_min(a));
  });
  const xt::xtensor<float, 1> empty = xt::zeros<float>({std::size_t{0}});
  CHECK(xt::xtensor<float, 1>(f(empty)).size() == 0);
  const xt::xtensor<float, 1> one = {0.75f};
  const xt::xtensor<float, 1> y = f(one);
  REQUIRE(y.size() == 1);
  CHECK(y[0] == Approx(by_hand(1.5f, 8)).epsilon(1e-6));
}
