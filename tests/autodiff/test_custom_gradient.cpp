// sf::custom_gradient (autodiff/custom_gradient.hpp): the value is the forward graph's, the
// gradient is the one given; checked against central differences where the given gradient is the
// true one, and against exact values where it is not (clipping) or where the derived one fails
// (log1pexp at 100).
#include <cmath>
#include <limits>
#include <tuple>
#include <utility>

#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

namespace {
// TensorFlow's tf.custom_gradient example: log(1 + e^x) with a gradient that stays finite.
const auto log1pexp = sf::custom_gradient([](auto x) { return sf::log(1. + sf::exp(x)); },
                                          [](auto g, auto x) { return g * (1. - 1. / (1. + sf::exp(x))); });

// Forward identity, backward clipped to [-1, 1] (a gradient that is not the function's).
const auto clip_gradient = sf::custom_gradient([](auto x) { return x * 1.; },
                                               [](auto g, auto) { return sf::minimum(sf::maximum(g, -1.), 1.); });

// Two inputs, tf.custom_gradient's spelling: the gradient function captures what it needs.
const auto scaled_product = sf::custom_gradient([](auto a, auto b) {
  const auto y = a * b * 2.;
  auto grad = [=](auto g) { return std::tuple{g * b * 2., g * a * 2.}; };
  return std::pair{y, grad};
});
}  // namespace

TEST_CASE("custom_gradient: the value is the forward function's, the gradient the one given") {
  for (std::size_t n : {std::size_t{1}, std::size_t{7}, extent(9, 37)}) {
    INFO("extent " << n);
    // log1pexp's given gradient is the true one: central differences agree
    CHECK(check_gradients([](auto x) { return log1pexp(x * 0.5) * x; }, random_tensor<1>({n})) == n);
    // two inputs, each gradient given
    CHECK(check_gradients([](auto a, auto b) { return sf::tanh(scaled_product(a, b + 1.)); }, random_tensor<1>({n}),
                          random_tensor<1>({n})) == 2 * n);
  }
}

TEST_CASE("custom_gradient: log1pexp stays finite where the derived gradient is NaN (tf.custom_gradient's example)") {
  xt::xtensor_fixed<float, xt::xshape<3>> x = {100.f, 0.f, -100.f};
  const auto naive = [](auto v) { return sf::reduce_sum(sf::log(1.f + sf::exp(v))); };
  const auto custom = [](auto v) {
    const auto f = sf::custom_gradient([](auto u) { return sf::log(1.f + sf::exp(u)); },
                                       [](auto g, auto u) { return g * (1.f - 1.f / (1.f + sf::exp(u))); });
    return sf::reduce_sum(f(v));
  };
  const auto derived = sf::grad(naive)(x);
  CHECK(std::isnan(derived(0)));  // inf / inf
  const auto [value, dx] = sf::value_and_grad(custom)(x);
  CHECK(std::isinf(value));                 // the forward value is the same: log(1 + e^100) overflows
  CHECK(dx(0) == 1.f);
  CHECK(dx(1) == 0.5f);
  CHECK(dx(2) == 0.f);
}

TEST_CASE("custom_gradient: a given gradient that is not the function's is the one used") {
  auto x = random_tensor<1>({5}, -1, 1);
  // d/dx sum(clip_gradient(x) * 3) is clip(3) = 1, not 3; the value is unchanged
  const auto [value, dx] = sf::value_and_grad([](auto v) { return sf::reduce_sum(clip_gradient(v) * 3.); })(x);
  CHECK(value == Approx(3 * xt::sum(x)()).epsilon(1e-12));
  for (double d : dx) CHECK(d == 1.);
  // below the clip it is the identity's gradient
  const auto small = sf::grad([](auto v) { return sf::reduce_sum(clip_gradient(v) * 0.25); })(x);
  for (double d : small) CHECK(d == 0.25);
}

TEST_CASE("custom_gradient: gradients are summed back to a broadcast input's shape; numbers are constants") {
  // x (scalar) broadcast against v (vector) inside the forward function: the given gradient has v's
  // shape and is summed to x's
  const auto axpy = sf::custom_gradient([](auto a, auto v) { return a * v; },
                                        [](auto g, auto a, auto v) { return std::tuple{g * v, g * a}; });
  const auto fn = [axpy](auto a, auto v) { return axpy(a, v) * 2.0; };
  const xt::xtensor_fixed<double, xt::xshape<>> a = {0.75};
  const auto v = random_tensor<1>({extent(2, 20)});
  CHECK(check_gradients(fn, a, v) == 1 + v.size());
  // a number as input: a constant of the function, no gradient asked for it
  const auto with_number = [axpy](auto w) { return axpy(1.5, w); };
  CHECK(check_gradients(with_number, v) == v.size());
  // a gradient given as a number is broadcast to the input's shape
  const auto count = sf::custom_gradient([](auto w) { return w * w; }, [](auto, auto) { return 1.0; });
  const auto dw = sf::grad([count](auto w) { return sf::reduce_sum(count(w)); })(v);
  for (double d : dw) CHECK(d == 1.);
}

TEST_CASE("custom_gradient: works on variables, in gradient tapes, and lists as one op") {
  sf::variable<double, 3> w{xt::xtensor_fixed<double, xt::xshape<3>>{1., -2., 3.}};
  auto f = sf::function([&](auto x) {
    sf::gradient_tape tape;
    const auto y = sf::reduce_sum(clip_gradient(w) * x);
    return tape.gradient(y, w);
  });
  const xt::xtensor_fixed<double, xt::xshape<3>> x = {0.5, -4., 2.};
  const auto dw = f(x);
  CHECK(dw(0) == 0.5);
  CHECK(dw(1) == -1.);
  CHECK(dw(2) == 1.);
  // the listing shows the forward graph under one custom_gradient op
  auto g = sf::function([](auto v) { return clip_gradient(v); });
  const std::string listing = g.get_concrete_function(x).graph_string();
  INFO(listing);
  CHECK(listing.find("custom_gradient") != std::string::npos);
  CHECK(g(x)(1) == -4.);
}

TEST_CASE("README: the custom_gradient snippet") {
  xt::xtensor_fixed<float, xt::xshape<2>> x = {100.f, 0.f};
  auto log1pexp = sf::custom_gradient([](auto x) { return sf::log(1.f + sf::exp(x)); },
                                      [](auto g, auto x) { return g * (1.f - 1.f / (1.f + sf::exp(x))); });
  const auto dx = sf::grad([&](auto x) { return sf::reduce_sum(log1pexp(x)); })(x);   // 1 at x = 100, not NaN
  CHECK(dx(0) == 1.f);
  CHECK(dx(1) == 0.5f);
}
