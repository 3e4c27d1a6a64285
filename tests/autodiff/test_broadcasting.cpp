// Gradients through where, cast and broadcasting, and the exact values at kinks and ties.
#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("where and cast: the adjoint goes to the chosen operand, through float casts") {
  const auto chosen = [](auto a, auto b) { return sf::where(a > b, a * a, b * 3.0) + sf::where(a < 0, 1.0, b); };
  const auto casts = [](auto a) {
    return sf::cast<double>(sf::tanh(sf::cast<float>(a))) * 2.0 + sf::cast<double>(sf::cast<int>(a * 10.0));
  };
  const std::size_t n = extent(2, 30);
  check_gradients(chosen, random_tensor<1>({n}), random_tensor<1>({n}));
  // float32 in the middle: finite differences see float32 rounding, so a looser check
  auto vg = sf::value_and_grad(casts);
  auto x = random_tensor<1>({n});
  auto [v, dx] = vg(x);
  (void)v;
  for (std::size_t i = 0; i < n; ++i) {
    const double t = std::tanh(x(i));
    CHECK(dx(i) == Approx(2.0 * (1 - t * t)).epsilon(1e-5));  // the int path contributes nothing
  }
}

TEST_CASE("broadcasting: adjoints are summed back to each operand's shape") {
  // static shapes: bias over rows, column vector, scalar, leading axes
  xt::xtensor_fixed<double, xt::xshape<4, 3>> m;
  xt::xtensor_fixed<double, xt::xshape<3>> row;
  xt::xtensor_fixed<double, xt::xshape<4, 1>> column;
  xt::xtensor_fixed<double, xt::xshape<2, 4, 3>> batch;
  fill(m), fill(row), fill(column), fill(batch);
  const double s = uniform();
  const auto f = [](auto a, auto b, auto c, auto d, auto k) { return sf::tanh(a * b + c) * k + d * b - a; };
  CHECK(check_gradients(f, m, row, column, batch, s) == 12 + 3 + 4 + 24 + 1);
  // run-time shapes: the rank says which axes broadcast ([rows, cols] against [cols] and a scalar)
  const std::size_t r = extent(1, 7), c = extent(1, 19);
  const auto g = [](auto a, auto b, auto k) { return sf::sigmoid(a * b - k) * b; };
  CHECK(check_gradients(g, random_tensor<2>({r, c}), random_tensor<1>({c}), uniform()) == r * c + c + 1);
}

TEST_CASE("exact values at the documented kinks and ties") {
  auto at_zero = sf::grad([](auto x) { return sf::abs(x) + sf::relu(x); });
  xt::xtensor_fixed<double, xt::xshape<3>> x = {-1.0, 0.0, 2.0};
  const auto dx = at_zero(x);
  CHECK(dx(0) == -1.0);
  CHECK(dx(1) == 0.0);  // abs and relu have slope 0 at 0
  CHECK(dx(2) == 2.0);
  auto ties = sf::grad<0, 1>([](auto a, auto b) { return sf::maximum(a, b) + sf::minimum(a, b) * 10.0; });
  xt::xtensor_fixed<double, xt::xshape<2>> a = {1.0, 2.0}, b = {1.0, 3.0};
  const auto [da, db] = ties(a, b);
  CHECK(da(0) == 11.0);  // a tie: maximum and minimum both choose a (TensorFlow's rule)
  CHECK(db(0) == 0.0);
  CHECK(da(1) == 10.0);
  CHECK(db(1) == 1.0);
}

TEST_CASE("broadcasting: one operand broadcast to different shapes, and used as it is") {
  // b's contributions have shapes [2, 3], [5, 1, 3] and [3]: each is summed to [3] before they are
  // added (added first, b * b's would count twice and c's ten times)
  xt::xtensor_fixed<double, xt::xshape<2, 3>> x;
  xt::xtensor_fixed<double, xt::xshape<5, 1, 3>> c;
  xt::xtensor_fixed<double, xt::xshape<3>> b;
  fill(x), fill(c), fill(b);
  const auto shared_bias = [](auto xs, auto cs, auto bias) {
    return sf::reduce_sum(sf::tanh(xs + bias)) + sf::reduce_sum(cs * bias) + sf::reduce_sum(bias * bias);
  };
  CHECK(check_gradients(shared_bias, x, c, b) == 6 + 15 + 3);
  auto exact = sf::grad<1>([](auto xs, auto bias) { return sf::reduce_sum(xs + bias) + sf::reduce_sum(sf::square(bias)); });
  const xt::xtensor_fixed<double, xt::xshape<3>> ones = {1.0, 1.0, 1.0};
  const auto db = exact(x, ones);
  CHECK(db(0) == 4.0);  // 2 rows of x + b, plus 2 * b
  CHECK(db(2) == 4.0);
}

TEST_CASE("broadcasting: one bias added to batches of different run-time sizes") {
  const std::size_t features = extent(1, 9);
  const auto train = random_tensor<2>({extent(1, 6), features}), validation = random_tensor<2>({extent(7, 12), features});
  const auto bias = random_tensor<1>({features});
  const auto two_batches = [](auto a, auto v, auto b) {
    return sf::reduce_mean(sf::square(a + b)) + sf::reduce_sum(sf::sigmoid(v * b));
  };
  CHECK(check_gradients(two_batches, train, validation, bias) == train.size() + validation.size() + features);
}
