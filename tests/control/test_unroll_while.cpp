// Tests for a while_loop inside an unrolled sf::fori_loop (control/while_loop.hpp's
// with_plans(reader), plan/plan.hpp's read_prelude): the loop's condition and body capture the
// step's value, a shared node of the plan's prelude computed once per call, and read it from
// there. Before, they planned every earlier step again: 3 steps computed 343 slots a call, 5 steps
// 12,439 (6x per step).
#include <catch2/catch.hpp>

#include <cstddef>
#include <vector>

#include <staticflow/staticflow.hpp>

#include "../autodiff/gradient_check.hpp"

namespace sf = staticflow;

namespace {
// for _ in range(steps): v = x; while sum(v) < 2 sum(x): v = 1.5 v + 0.01 x + 0.5; x = v
constexpr auto grow_step = [](auto, auto x) {
  return sf::while_loop([=](auto v) { return sf::reduce_sum(v) < sf::reduce_sum(x) * 2.0; },
                        [=](auto v) { return v * 1.5 + x * 0.01 + 0.5; }, x);
};
template <int Steps>
constexpr auto grow = [](auto x) { return sf::fori_loop(sf::static_value<0>{}, sf::static_value<Steps>{}, grow_step, x); };

std::vector<double> hand_grow(std::vector<double> x, int steps) {
  for (int s = 0; s < steps; ++s) {
    double target = 0;
    for (double e : x) target += 2 * e;
    std::vector<double> v = x;
    for (;;) {
      double sum = 0;
      for (double e : v) sum += e;
      if (!(sum < target)) break;
      for (std::size_t i = 0; i < v.size(); ++i) v[i] = v[i] * 1.5 + x[i] * 0.01 + 0.5;
    }
    x = v;
  }
  return x;
}
}  // namespace

TEST_CASE("a while_loop over an unrolled loop's state computes each step once per call", "[fori_loop][unroll][while_loop]") {
  auto f = sf::function(grow<3>);
  for (const auto& start : {std::vector<double>{1.0, 2.0, 3.0}, std::vector<double>{0.5}, std::vector<double>{-4.0, 1.0}}) {
    const xt::xtensor<double, 1> x = xt::adapt(start, {start.size()});
    const std::vector<double> hand = hand_grow(start, 3);
    const xt::xtensor<double, 1> y = f(x);
    REQUIRE(y.size() == hand.size());
    for (std::size_t i = 0; i < hand.size(); ++i) CHECK(y[i] == Approx(hand[i]).epsilon(1e-12));
  }
  // per step: the loop, its condition's two sums an iteration and the step's value kept for the
  // next one; the condition's sum of x is still computed every iteration (no hoisting)
  const xt::xtensor<double, 1> x = {1.0, 2.0, 3.0};
  sf::plan::materialization_counter() = 0;
  (void)f(x);
  CHECK(sf::plan::materialization_counter() == 23);
  CHECK(f.tracing_count() == 1);
}

TEST_CASE("the gradient of a while_loop over an unrolled loop's state", "[fori_loop][unroll][while_loop][autodiff]") {
  // away from the iteration counts' switch points: each sum well above 0
  const std::size_t n = gradient_check::extent();
  CHECK(gradient_check::check_gradients(grow<2>, gradient_check::random_tensor<1>({n}, 0.5, 2.0)) == n);
}
