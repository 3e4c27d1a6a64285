// Tests for graph/shared.hpp and its planning (plan/plan.hpp): the gradient builder marks the
// materialized forward nodes that its adjoints copy, every copy plans to one slot computed once,
// the mark is invisible in listings, and two different values under one mark are refused with
// sf::trace_error before anything runs.
#include <catch2/catch.hpp>

#include <staticflow/staticflow.hpp>
#include <cmath>
#include <string>

namespace sf = staticflow;

namespace {
using mat = sf::graph::argument<0, double, sf::shape<2, 3>>;
struct tag_a {};
struct tag_b {};
}  // namespace

TEST_CASE("a shared node is planned once, whatever number of places hold it", "[shared]") {
  using reduction = decltype(sf::reduce_sum(mat{}, 1));
  using marked = sf::graph::shared<tag_a, reduction>;
  STATIC_REQUIRE(sf::plan::materialized_count<marked>::value == 0);  // its slot is in the prelude
  const marked s{sf::reduce_sum(mat{}, 1)};
  const auto three_uses = s * s + s;
  using plan = sf::plan::evaluation_plan<1, std::tuple<decltype(three_uses)>>;
  STATIC_REQUIRE(plan::slot_count == 1);
  // two different marks over equal nodes are two slots (the run-time rule then computes one)
  const auto two_marks = s + sf::graph::shared<tag_b, reduction>{sf::reduce_sum(mat{}, 1)};
  STATIC_REQUIRE(sf::plan::evaluation_plan<1, std::tuple<decltype(two_marks)>>::slot_count == 2);
}

TEST_CASE("a gradient reads each forward matmul from one slot, computed once per call", "[shared]") {
  // d/dw and d/dx of sum(tanh(x w)^2) both read tanh(x w), which needs the matmul x w
  auto g = sf::value_and_grad<0, 1>([](auto x, auto w) { return sf::reduce_sum(sf::square(sf::tanh(sf::matmul(x, w)))); });
  xt::xtensor<double, 2> x = {{0.5, -1.0, 2.0}, {1.5, 0.25, -0.5}};
  xt::xtensor<double, 2> w = {{0.1, 0.2}, {-0.3, 0.4}, {0.5, -0.6}};
  auto& concrete = g.get_concrete_function(x, w);
  using F = std::remove_cvref_t<decltype(concrete)>;
  // slots: x w (once, shared); the adjoint's two matmuls (with w^T and with x^T, each read
  // transposed where it lies: plan/transposed_operands.hpp); the value's reduce_sum; the
  // gradients' fit to their specs add none
  constexpr std::size_t slots = F::materialized_count; CHECK(slots == 4);
  const auto before = sf::plan::materialization_counter();
  const auto [value, dx, dw] = g(x, w);
  CHECK(sf::plan::materialization_counter() - before == 4);
  // against the formulas: y = x w, t = tanh y, dl/dy = 2 t (1 - t^2), dx = dl/dy w^T, dw = x^T dl/dy
  double y[2][2] = {}, gy[2][2] = {}, l = 0;
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t j = 0; j < 2; ++j) {
      for (std::size_t k = 0; k < 3; ++k) y[i][j] += x(i, k) * w(k, j);
      const double t = std::tanh(y[i][j]);
      l += t * t;
      gy[i][j] = 2 * t * (1 - t * t);
    }
  CHECK(value == Approx(l));
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t k = 0; k < 3; ++k) {
      CHECK(dx(i, k) == Approx(gy[i][0] * w(k, 0) + gy[i][1] * w(k, 1)));
      CHECK(dw(k, i) == Approx(x(0, k) * gy[0][i] + x(1, k) * gy[1][i]));
    }
}

TEST_CASE("the shared mark does not show in listings", "[shared]") {
  auto g = sf::grad<0>([](auto x) { return sf::reduce_sum(sf::softmax(x)); });
  xt::xtensor<float, 1> x = {1.f, 2.f, 3.f};
  const std::string listing = g.get_concrete_function(x).graph_string();
  CHECK(listing.find("Softmax") != std::string::npos);
  CHECK(listing.find("shared") == std::string::npos);
}

TEST_CASE("two gradients of graphs of one type and different values in one function are refused", "[shared]") {
  // the two roots differ only in a literal: their marks collide, and the plan would read one
  // softmax for both; the call throws before it computes or assigns anything
  sf::variable<double> untouched{5.0};
  auto both = sf::function([&](auto x) {
    untouched.assign(untouched + 1.0);
    return std::tuple{sf::gradients(sf::reduce_sum(sf::square(sf::softmax(x * 2.0))), x),
                      sf::gradients(sf::reduce_sum(sf::square(sf::softmax(x * 3.0))), x)};
  });
  xt::xtensor<double, 1> x = {0.5, -1.0, 2.0};
  CHECK_THROWS_WITH(both(x),
                    "staticflow: a graph holds two different values under one shared tag: two sf::gradients calls in one "
                    "function differentiate graphs of the same type whose values differ (literals or variable "
                    "reads), or one unrolled sf::fori_loop (the same body lambda) runs twice over values of the same "
                    "type that differ; compute the gradients with one sf::gradients call, give the loop run-time "
                    "bounds, or use separate functions");
  CHECK(untouched.value() == 5.0);
  // equal values under one mark are one value: asking twice for one root's gradient is fine
  auto twice = sf::function([](auto x) {
    const auto y = sf::reduce_sum(sf::square(sf::softmax(x * 2.0)));
    return std::tuple{sf::gradients(y, x), sf::gradients(y, x)};
  });
  const auto [a, b] = twice(x);
  CHECK((a == b));
  // and the refused pair, in separate functions, is two correct gradients
  auto one = sf::function([](auto x, auto k) { return sf::gradients(sf::reduce_sum(sf::square(sf::softmax(x * k))), x); });
  const auto g2 = one(x, 2.0);
  const auto g3 = one(x, 3.0);
  CHECK(xt::amax(xt::abs(g2 - g3))() > 1e-3);
}
