// Tests for a cond inside an unrolled sf::fori_loop (plan/plan.hpp's read_prelude, control/cond.hpp's
// with_plans): each step's value is a shared node of the plan's prelude, computed once per call;
// the branches of the next step's cond read it from there instead of planning it again. Before,
// each branch re-planned every earlier step: the plan grew 3x and a call 2x per step.
#include <catch2/catch.hpp>

#include <cstddef>
#include <vector>

#include <staticflow/staticflow.hpp>

#include "../autodiff/gradient_check.hpp"

namespace sf = staticflow;

namespace {
// The AutoGraph program `for _ in range(steps): x = f(x) if reduce_sum(x) > 0 else g(x)`.
constexpr auto branchy_step = [](auto, auto v) {
  return sf::cond(sf::reduce_sum(v) > 0.0, [=] { return sf::tanh(v) * 1.5 + v * 0.5; }, [=] { return v * v * 0.25 + 0.5; });
};
template <int Steps>
constexpr auto branchy = [](auto x) { return sf::fori_loop(sf::static_value<0>{}, sf::static_value<Steps>{}, branchy_step, x); };

std::vector<double> hand_branchy(std::vector<double> v, int steps) {
  for (int s = 0; s < steps; ++s) {
    double sum = 0;
    for (double e : v) sum += e;
    for (double& e : v) e = sum > 0 ? std::tanh(e) * 1.5 + e * 0.5 : e * e * 0.25 + 0.5;
  }
  return v;
}
}  // namespace

TEST_CASE("a cond over an unrolled loop's state computes each step once per call", "[fori_loop][unroll][cond]") {
  auto f = sf::function(branchy<6>);
  // sums below 0 take the false branch first, then the true one
  for (const auto& start : {std::vector<double>{-3.0, -2.0, 0.5}, std::vector<double>{0.25, 1.0, -0.5},
                                          std::vector<double>{-0.1}, std::vector<double>{}}) {
    const xt::xtensor<double, 1> x = xt::adapt(start, {start.size()});
    const std::vector<double> hand = hand_branchy(start, 6);
    sf::plan::materialization_counter() = 0;
    const xt::xtensor<double, 1> y = f(x);
    // per step: its reduce_sum, its cond, and the step's value kept for the next one (the last
    // step's is the result): 6 + 6 + 5. Each branch planned the steps before it again: 188.
    CHECK(sf::plan::materialization_counter() == 17);
    REQUIRE(y.size() == hand.size());
    for (std::size_t i = 0; i < hand.size(); ++i) CHECK(y[i] == Approx(hand[i]).epsilon(1e-12));
  }
  CHECK(f.tracing_count() == 1);
}

TEST_CASE("the gradient of a cond over an unrolled loop's state", "[fori_loop][unroll][cond][autodiff]") {
  const std::size_t n = gradient_check::extent();
  CHECK(gradient_check::check_gradients(branchy<3>, gradient_check::random_tensor<1>({n})) == n);
  CHECK(gradient_check::check_gradients(branchy<3>, gradient_check::random_tensor<1>({1})) == 1);
}
