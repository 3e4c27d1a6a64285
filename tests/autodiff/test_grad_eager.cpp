// The eager backend (op by op, the reference) computes the fused gradients, and gradient functions
// keep working under sf::run_functions_eagerly(true) (they run their traced graph).
#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("the eager backend (the reference) gives the fused gradients; eager mode runs them traced") {
  const auto loss = [](auto w, auto v, auto x) {
    return sf::reduce_sum(sf::softmax(sf::matmul(x, w)) * v) + sf::reduce_max(w * v);
  };
  auto traced = sf::value_and_grad<0, 1>(loss);
  auto reference = sf::value_and_grad<0, 1>(loss, sf::backend::eager);
  xt::xtensor_fixed<double, xt::xshape<3, 3>> w, v, x;
  fill(w), fill(v), fill(x);
  const auto [l, dw, dv] = traced(w, v, x);
  const auto [le, dwe, dve] = reference(w, v, x);
  CHECK(le == Approx(l).epsilon(1e-12));
  for (std::size_t i = 0; i < 9; ++i) {
    CHECK(dwe.data()[i] == Approx(dw.data()[i]).epsilon(1e-12).margin(1e-14));
    CHECK(dve.data()[i] == Approx(dv.data()[i]).epsilon(1e-12).margin(1e-14));
  }
  sf::run_functions_eagerly(true);
  const auto [l2, dw2, dv2] = traced(w, v, x);
  sf::run_functions_eagerly(false);
  CHECK(l2 == l);
  CHECK((dw2 == dw));
  CHECK((dv2 == dv));
  CHECK(traced.tracing_count() == 1);
  CHECK(check_gradients(loss, w, v, x) == 27);
}

TEST_CASE("the eager backend's gradients along plain int axes, and of reduce_prod, equal the fused ones") {
  // reductions, expand_dims and squeeze at axes the trace keeps as numbers (rules.hpp's
  // runtime_axis_adjoint): the eager backend evaluates the same adjoint graph op by op
  const auto loss = [](auto x) {
    const auto centred = x - sf::reduce_mean(x, -1, sf::keepdims);
    return sf::reduce_sum(sf::square(centred) * sf::reduce_max(x, 0, sf::keepdims)) +
           sf::reduce_sum(sf::squeeze(sf::expand_dims(sf::reduce_min(x, 1), -1), 1) * 0.5) + sf::reduce_sum(sf::reduce_prod(x, 0));
  };
  auto traced = sf::grad<0>(loss);
  auto reference = sf::grad<0>(loss, sf::backend::eager);
  xt::xtensor<double, 2> x = xt::xtensor<double, 2>::from_shape({4, 5});
  fill(x);
  const auto g = traced(x);
  const auto ge = reference(x);
  REQUIRE(ge.shape() == g.shape());
  for (std::size_t i = 0; i < g.size(); ++i) CHECK(ge.data()[i] == Approx(g.data()[i]).epsilon(1e-12).margin(1e-14));
  CHECK(check_gradients(loss, x) == 20);
}
