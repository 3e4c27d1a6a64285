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

TEST_CASE("broadcasting along a run-time extent of 1: an error, or the static extent 1 that sums it") {
  // Found by the differential graph fuzzer (tests/fuzz): a [4, 1, 5] argument of run-time extents
  // broadcast against [4, 4, 5] got a [4, 4, 5] gradient. The sums are planned at compile time, so
  // such a call throws before it has any effect; declaring the extent 1 statically gives the sum.
  const auto f = [](auto x, auto w) { return sf::tanh(x) * w; };
  auto x = random_tensor<3>({4, 4, 5});
  auto w = random_tensor<3>({4, 1, 5});
  auto plain = sf::value_and_grad<0, 1>(f);
  CHECK_THROWS_WITH(plain(x, w),
                    "staticflow: gradient: a value of shape (4, 1, 5) was broadcast to (4, 4, 5) along a dimension of run-time "
                    "extent 1, which a gradient cannot sum over; declare that dimension's extent 1 statically (an input "
                    "signature such as sf::spec<float, sf::dyn, 1>)");
  const xt::xtensor<double, 3> zeros = xt::zeros<double>({4, 4, 5}), zeros_w = xt::zeros<double>({4, 1, 5});
  xt::xtensor<double, 3> out_value = zeros, out_x = zeros, out_w = zeros_w;
  CHECK_THROWS_AS(plain.call_into(std::tie(out_value, out_x, out_w), x, w), sf::shape_error);
  CHECK((out_value == zeros && out_x == zeros && out_w == zeros_w));  // nothing written
  // the same extents where they agree at run time are fine
  CHECK(check_gradients(f, x, random_tensor<3>({4, 4, 5})) == 80 + 80);
  // with the extent 1 in the input signature, w's gradient is summed over the broadcast axis
  auto declared = sf::function<sf::spec<double, sf::dyn, sf::dyn, sf::dyn>, sf::spec<double, sf::dyn, 1, sf::dyn>>(
      sf::value_and_grad_fn<0, 1>(f));
  const auto [value, dx, dw] = declared(x, w);
  REQUIRE(dw.shape(1) == 1);
  for (std::size_t a = 0; a < 4; ++a)
    for (std::size_t c = 0; c < 5; ++c) {
      double expected = 0;
      for (std::size_t b = 0; b < 4; ++b) expected += std::tanh(x(a, b, c));
      CHECK(dw(a, 0, c) == Approx(expected).epsilon(1e-12));
    }
  CHECK(total(value) == Approx(total(sf::function(f)(x, w))).epsilon(1e-12));
  CHECK(dx(1, 2, 3) == Approx((1 - std::tanh(x(1, 2, 3)) * std::tanh(x(1, 2, 3))) * w(1, 0, 3)).epsilon(1e-12));
}
