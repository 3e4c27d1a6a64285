// Gradients through loops with run-time trip counts in the places a model has them
// (autodiff/loop_backprop.hpp): a recurrent layer with a matmul in its body against central
// differences in float64, and a traced sgd step whose loss runs an sf::variable through a loop.
#include <cmath>
#include <cstdint>
#include <tuple>

#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("while_loop: a recurrent layer, h <- tanh(h @ W + b), with a matmul in the body") {
  const auto fn = [](auto h0, auto W, auto b, auto n) {
    return sf::fori_loop(0, n, [&](auto, auto h) { return sf::tanh(sf::matmul(h, W) + b); }, h0);
  };
  for (std::int32_t n : {1, 3}) {
    INFO("trip count " << n);
    xt::xtensor_fixed<double, xt::xshape<2, 3>> h0;
    xt::xtensor_fixed<double, xt::xshape<3, 3>> W;
    xt::xtensor_fixed<double, xt::xshape<3>> b;
    fill(h0, -1, 1);
    fill(W, -0.8, 0.8);
    fill(b, -0.5, 0.5);
    CHECK(check_gradients_of(std::index_sequence<0, 1, 2>{}, fn, h0, W, b, n) == 18);
  }
}

TEST_CASE("while_loop: a variable read in the body of a traced training step gets its gradient") {
  // one sgd step on w, where the loss runs w through a loop with a run-time trip count; the step's
  // update equals -learning_rate times sf::grad of the same loss with w as an argument
  const auto loss = [](const auto& w, auto x, auto n) {
    const auto y = sf::fori_loop(0, n, [&](auto, auto v) { return sf::tanh(v * w + x); }, x);
    return sf::reduce_sum(sf::square(y - 0.25));
  };
  const xt::xtensor_fixed<double, xt::xshape<4>> w0 = {0.5, -0.25, 1.0, 0.75};
  const xt::xtensor_fixed<double, xt::xshape<4>> x = {0.1, -0.4, 0.3, 0.8};
  sf::variable<double, 4> w{w0};
  sf::sgd<double> opt{0.5};
  auto step = sf::function([&](auto x_, auto n) {
    sf::gradient_tape tape;
    const auto l = loss(w, x_, n);
    opt.apply_gradients(tape.gradient(l, w), w);
    return l;
  });
  const auto expected = sf::grad<0>(loss)(w0, x, 3);
  const double l = step(x, 3);
  CHECK(l == Approx(sf::function(loss)(w0, x, 3)).epsilon(1e-14));
  const auto w1 = w.value();
  for (std::size_t i = 0; i < 4; ++i) CHECK(w1(i) == Approx(w0(i) - 0.5 * expected(i)).epsilon(1e-14));
  // a second call with zero trips: the loss no longer depends on w, and w stays put
  const double l0 = step(x, 0);
  CHECK(l0 == Approx(0.0225 + 0.4225 + 0.0025 + 0.3025).epsilon(1e-14));
  const auto w2 = w.value();
  for (std::size_t i = 0; i < 4; ++i) CHECK(w2(i) == w1(i));
}
