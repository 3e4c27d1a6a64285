// optimizer::minimize (optimizers/optimizer.hpp): the same step as apply_gradients, and the loss it
// returns is computed with the gradients, so the forward pass runs once per step instead of twice.
#include <catch2/catch.hpp>

#include <cstddef>

#include <xtensor/xfixed.hpp>
#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

namespace {
using matrix = xt::xtensor_fixed<double, xt::xshape<3, 2>>;
const xt::xtensor_fixed<double, xt::xshape<4, 3>> x_in{{0.5, -1., 2.}, {1.5, 0.25, -0.5}, {-2., 1., 0.}, {0.75, 0.5, 1.}};
const xt::xtensor_fixed<double, xt::xshape<4, 2>> y_in{{1., 0.}, {-2., 3.}, {0.5, 0.5}, {0., -1.}};
const matrix w_start{{0.3, -0.2}, {0.1, 0.7}, {-0.4, 0.2}};

struct model {
  sf::variable<double, 3, 2> w{w_start};
  sf::variable<double, 2> b{xt::xtensor_fixed<double, xt::xshape<2>>{0.1, -0.3}};
  sf::adam<double> opt{0.05};
};
template <class W, class B, class X, class Y>
auto loss_of(const W& w, const B& b, const X& x, const Y& y) {
  return sf::reduce_sum(sf::square(sf::matmul(x, w) + b - y));
}
}  // namespace

TEST_CASE("minimize: the same updates as apply_gradients, the loss before the step, one forward pass") {
  model a, m;
  auto with_apply = sf::function([&](auto x, auto y) {
    sf::gradient_tape tape;
    const auto loss = loss_of(a.w, a.b, x, y);
    a.opt.apply_gradients(tape.gradient(loss, a.w, a.b), a.w, a.b);
    return loss;
  });
  auto with_minimize = sf::function([&](auto x, auto y) { return m.opt.minimize(loss_of(m.w, m.b, x, y), m.w, m.b); });
  auto forward = sf::function([](auto w, auto b, auto x, auto y) { return loss_of(w, b, x, y); });
  const double* const m_weights = m.w.value().data();
  for (int step = 0; step < 5; ++step) {
    INFO("step " << step);
    auto& count = sf::plan::materialization_counter();
    const std::size_t f0 = count;
    const double before = forward(m.w.value(), m.b.value(), x_in, y_in);
    const std::size_t forward_pass = count - f0;  // the matmul and the sum
    const std::size_t c0 = count;
    const double la = with_apply(x_in, y_in);
    const std::size_t c1 = count;
    const double lm = with_minimize(x_in, y_in);
    const std::size_t c2 = count;
    CHECK(lm == la);  // bit for bit: the same plans
    CHECK(lm == before);
    // apply_gradients computes the loss again for its output, after the effects: one forward pass
    // more than minimize, which computes it with the gradients (sharing their forward matmul)
    CHECK(forward_pass == 2);
    CHECK(c1 - c0 == (c2 - c1) + forward_pass);
    for (std::size_t i = 0; i < 3; ++i)
      for (std::size_t j = 0; j < 2; ++j) CHECK(m.w.value()(i, j) == a.w.value()(i, j));
    CHECK(m.b.value()(0) == a.b.value()(0));
    CHECK(m.b.value()(1) == a.b.value()(1));
    // minimize's step returns a scalar it computed before the updates, which nothing after them can
    // undo: the weights are updated in place (apply_gradients's step computes its loss after them,
    // so its first writes go to spare buffers, swapped in)
    CHECK(m.w.value().data() == m_weights);
  }
  // in place: w, b and their slots m and v (Adam's updates), the step count, and the gradient and
  // loss slots (their effect's matmuls may throw, but before it writes anything)
  CHECK(with_minimize.get_concrete_function(x_in, y_in).effects()->in_place_write_count() == 10);
  CHECK(with_apply.get_concrete_function(x_in, y_in).effects()->in_place_write_count() == 0);
  CHECK(m.opt.iterations.value() == 5);
  CHECK(with_minimize.tracing_count() == 1);
  // the loss goes down, and the step's own slot holds the last loss
  const double last = forward(m.w.value(), m.b.value(), x_in, y_in);
  const double first = forward(w_start, xt::xtensor_fixed<double, xt::xshape<2>>{0.1, -0.3}, x_in, y_in);
  CHECK(last < first);
}
