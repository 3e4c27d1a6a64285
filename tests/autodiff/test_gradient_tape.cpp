// Tests for autodiff/gradient_tape.hpp and gradients with respect to sf::variables: every read of
// a variable is gathered (reads before and after an assignment too), closed forms and central
// differences in float64, what the tape watches, persistent tapes, and the errors.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <random>
#include <string>
#include <tuple>

#include <xtensor/xfixed.hpp>
#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

TEST_CASE("the gradient with respect to a variable sums over every read of it", "[gradient_tape][variable]") {
  sf::variable<double> v{3.0};
  auto f = sf::function([&](auto x) {
    sf::gradient_tape tape;
    auto y = v * x + v * v;  // three reads of v
    return std::tuple{y, tape.gradient(y, v)};
  });
  auto [y, dv] = f(2.0);
  CHECK(y == 3.0 * 2.0 + 9.0);
  CHECK(dv == 2.0 + 2 * 3.0);
  v.assign(-1.5);  // the next call reads the new contents
  auto [y2, dv2] = f(2.0);
  CHECK(y2 == -3.0 + 2.25);
  CHECK(dv2 == 2.0 - 3.0);
  CHECK(f.tracing_count() == 1);
}

TEST_CASE("reads before and after an assignment both count, each with the value it saw", "[gradient_tape][variable]") {
  sf::variable<double> v{2.0};
  auto f = sf::function([&]() {
    sf::gradient_tape tape;
    auto before = v * v;         // 2 * 2
    v.assign_add(1.0);
    auto after = v * 10.0;       // 3 * 10
    auto y = before + after;
    return std::tuple{y, tape.gradient(y, v)};
  });
  auto [y, dv] = f();
  CHECK(y == 4.0 + 30.0);
  CHECK(dv == 2 * 2.0 + 10.0);  // d(v*v)/dv at the old value, plus 10 (TensorFlow gives the same)
  CHECK(v.value() == 3.0);
}

TEST_CASE("gradients with respect to variables equal sf::grad with respect to the same values as arguments",
          "[gradient_tape][variable]") {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int round = 0; round < 3; ++round) {
    xt::xtensor_fixed<double, xt::xshape<3, 4>> w0;
    xt::xtensor_fixed<double, xt::xshape<4>> b0;
    xt::xtensor_fixed<double, xt::xshape<5, 3>> x;
    xt::xtensor_fixed<double, xt::xshape<5, 4>> y;
    for (auto* c : {w0.data(), b0.data(), x.data(), y.data()}) (void)c;
    for (auto& e : w0) e = u(rng);
    for (auto& e : b0) e = u(rng);
    for (auto& e : x) e = u(rng);
    for (auto& e : y) e = u(rng);
    const auto loss = [](auto w, auto b, auto xs, auto ys) { return sf::reduce_mean(sf::square(sf::tanh(sf::matmul(xs, w) + b) - ys)); };

    sf::variable<double, 3, 4> w{w0};
    sf::variable<double, 4> b{b0};
    auto with_tape = sf::function([&](auto xs, auto ys) {
      sf::gradient_tape tape;
      auto l = loss(w.read(), b.read(), xs, ys);
      auto [dw, db] = tape.gradient(l, w, b);
      return std::tuple{l, dw, db};
    });
    auto [l, dw, db] = with_tape(x, y);
    auto [l_ref, dw_ref, db_ref] = sf::value_and_grad<0, 1>(loss)(w0, b0, x, y);
    CHECK(l == Approx(l_ref).epsilon(1e-14));
    CHECK(xt::allclose(dw, dw_ref, 1e-13, 1e-15));
    CHECK(xt::allclose(db, db_ref, 1e-13, 1e-15));

    // central differences of the loss in each element of w (float64)
    auto forward = sf::function([&](auto xs, auto ys) { return loss(w.read(), b.read(), xs, ys); });
    const double h = 1e-6;
    for (std::size_t i = 0; i < w0.size(); ++i) {
      auto plus = w0, minus = w0;
      plus.data()[i] += h;
      minus.data()[i] -= h;
      w.assign(plus);
      const double fp = forward(x, y);
      w.assign(minus);
      const double fm = forward(x, y);
      CHECK(dw.data()[i] == Approx((fp - fm) / (2 * h)).margin(1e-8));
    }
  }
}

TEST_CASE("a variable with a run-time dimension gets a gradient of its current extents", "[gradient_tape][variable]") {
  sf::variable<double, sf::dyn> v{xt::xtensor<double, 1>{1.0, -2.0, 0.5}};
  auto f = sf::function([&]() {
    sf::gradient_tape tape;
    return tape.gradient(sf::reduce_sum(v * v * v), v);  // 3 v^2
  });
  CHECK((f() == xt::xtensor<double, 1>{3.0, 12.0, 0.75}));
  v.assign(xt::xtensor<double, 1>{2.0, 1.0});
  CHECK((f() == xt::xtensor<double, 1>{12.0, 3.0}));
}

TEST_CASE("a variable the target does not read gets zeros (UnconnectedGradients.ZERO)", "[gradient_tape][variable]") {
  sf::variable<double, 2> used{{1.0, 2.0}};
  sf::variable<double, 3> unused{{5.0, 6.0, 7.0}};
  auto f = sf::function([&]() {
    sf::gradient_tape tape;
    auto y = sf::reduce_sum(used * 4.0);
    return tape.gradient(y, used, unused);
  });
  auto [du, dn] = f();
  CHECK((du == xt::xtensor<double, 1>{4.0, 4.0}));
  CHECK((dn == xt::xtensor<double, 1>{0.0, 0.0, 0.0}));
}

TEST_CASE("a tape watches arguments when asked, variables unless told not to", "[gradient_tape]") {
  sf::variable<double> v{2.0};
  auto watched = sf::function([&](auto x) {
    sf::gradient_tape tape;
    tape.watch(x);
    CHECK(tape.watches(x));
    CHECK(tape.watches(v));
    auto y = x * x * v;
    return tape.gradient(y, x, v);
  });
  auto [dx, dv] = watched(3.0);
  CHECK(dx == 2 * 3.0 * 2.0);
  CHECK(dv == 9.0);

  auto unwatched = sf::function([&](auto x) {
    sf::gradient_tape tape;
    return tape.gradient(x * v, v, x);
  });
  CHECK_THROWS_AS(unwatched(3.0), sf::trace_error);
  CHECK_THROWS_WITH(unwatched(3.0),
                    "staticflow: sf::gradient_tape::gradient: source 1 (float64[]) is not watched by the tape: call "
                    "tape.watch(x) first (sf::variables are watched automatically)");

  auto variables_off = sf::function([&](auto x) {
    sf::gradient_tape tape(false, /*watch_accessed_variables=*/false);
    CHECK_FALSE(tape.watches(v));
    return tape.gradient(x * v, v);
  });
  CHECK_THROWS_WITH(variables_off(3.0),
                    "staticflow: sf::gradient_tape::gradient: source 0 (float64[]) is not watched by the tape: call "
                    "tape.watch(x) first (this tape was made with watch_accessed_variables = false)");

  auto watched_by_hand = sf::function([&](auto x) {
    sf::gradient_tape tape(false, false);
    tape.watch(v);
    return tape.gradient(x * v, v);
  });
  CHECK(watched_by_hand(3.0) == 3.0);
}

TEST_CASE("a tape answers once unless it is persistent", "[gradient_tape]") {
  sf::variable<double> v{2.0};
  auto twice = sf::function([&](auto x) {
    sf::gradient_tape tape;
    auto y = x * v;
    auto first = tape.gradient(y, v);
    return first + tape.gradient(y, v);
  });
  CHECK_THROWS_WITH(twice(3.0),
                    "staticflow: sf::gradient_tape::gradient: a tape that is not persistent computes one set of "
                    "gradients; make it with sf::gradient_tape{true} to ask it several times");

  auto persistent = sf::function([&](auto x) {
    sf::gradient_tape tape(true);
    CHECK(tape.persistent());
    tape.watch(x);
    auto y = x * x * v;
    auto dx = tape.gradient(y, x);
    auto dv = tape.gradient(y, v);
    return std::tuple{dx, dv};
  });
  auto [dx, dv] = persistent(3.0);
  CHECK(dx == 12.0);
  CHECK(dv == 9.0);
}
