// tests/autodiff/gradient_check.hpp -- gradients against central finite differences (float64).
//
// check_gradients(fn, args...) traces fn as an sf::function and sf::value_and_grad with respect
// to every argument, checks the value against the forward call, and each element of each gradient
// against (f(x + h) - f(x - h)) / 2h of the summed forward value (TensorFlow's rule for
// non-scalar targets). jvp_error / hvp_error check sf::jvp and sf::hessian_vector_product against
// central differences of the function and of its gradient.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <random>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include <catch2/catch.hpp>
#include <xtensor/xfixed.hpp>
#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

namespace gradient_check {
namespace sf = staticflow;

inline std::mt19937& rng() {
  static std::mt19937 g(20261124);
  return g;
}

/// A value in [lo, hi), away from 0 by at least `gap` (kinks of abs / relu sit at 0).
inline double uniform(double lo = -2, double hi = 2, double gap = 0.05) {
  std::uniform_real_distribution<double> d(lo, hi);
  for (;;) {
    const double v = d(rng());
    if (std::fabs(v) >= gap) return v;
  }
}
inline std::size_t extent(std::size_t lo = 1, std::size_t hi = 9) {
  return std::uniform_int_distribution<std::size_t>(lo, hi)(rng());
}

template <class C>
void fill(C& c, double lo = -2, double hi = 2) {
  for (auto& v : c) v = uniform(lo, hi);
}
/// An xt::xtensor<double, R> of the given extents filled with random values.
template <std::size_t R>
xt::xtensor<double, R> random_tensor(std::array<std::size_t, R> ext, double lo = -2, double hi = 2) {
  auto t = xt::xtensor<double, R>::from_shape(ext);
  fill(t, lo, hi);
  return t;
}

template <class X>
double total(const X& x) {
  if constexpr (std::is_arithmetic_v<X>) {
    return static_cast<double>(x);
  } else {
    double s = 0;
    for (auto v : x) s += static_cast<double>(v);
    return s;
  }
}
template <class X>
std::size_t element_count(const X& x) {
  if constexpr (std::is_arithmetic_v<X>) return 1;
  else return x.size();
}
template <class X>
double& element(X& x, std::size_t i) {
  if constexpr (std::is_arithmetic_v<X>) return (void)i, x;
  else return x.data()[i];
}
template <class X>
double element_of(const X& x, std::size_t i) {
  if constexpr (std::is_arithmetic_v<X>) return (void)i, static_cast<double>(x);
  else return static_cast<double>(x.data()[i]);
}

/// Checks the gradients of sum(fn(args...)) with respect to arguments I... against central
/// differences; returns how many elements were checked.
template <std::size_t... I, class Fn, class... Args>
std::size_t check_gradients_of(std::index_sequence<I...>, Fn fn, const Args&... args) {
  auto forward = sf::function(fn);
  auto vg = sf::value_and_grad<I...>(fn);
  const auto result = vg(args...);
  const double value = total(std::get<0>(result));
  CHECK(value == Approx(total(forward(args...))).epsilon(1e-12).margin(1e-12));
  std::size_t checked = 0;
  [&]<std::size_t... K>(std::index_sequence<K...>) {
    ([&] {
      constexpr std::size_t arg = std::get<K>(std::array<std::size_t, sizeof...(I)>{I...});
      const auto& grad = std::get<K + 1>(result);
      auto point = std::tuple<Args...>{args...};
      auto& x = std::get<arg>(point);
      REQUIRE(element_count(grad) == element_count(x));
      for (std::size_t e = 0; e < element_count(x); ++e) {
        const double x0 = element(x, e);
        const double h = 1e-6 * std::max(1.0, std::fabs(x0));
        element(x, e) = x0 + h;
        const double up = std::apply([&](const auto&... a) { return total(forward(a...)); }, point);
        element(x, e) = x0 - h;
        const double down = std::apply([&](const auto&... a) { return total(forward(a...)); }, point);
        element(x, e) = x0;
        const double numeric = (up - down) / (2 * h);
        INFO("argument " << arg << ", element " << e << " of " << element_count(x));
        CHECK(element_of(grad, e) == Approx(numeric).epsilon(1e-6).margin(1e-6));
        ++checked;
      }
    }(), ...);
  }(std::make_index_sequence<sizeof...(I)>{});
  return checked;
}

/// Every element of a equals b's, bit for bit (same extents).
template <class A, class B>
void check_same(const A& a, const B& b) {
  REQUIRE(a.shape().size() == b.shape().size());
  for (std::size_t d = 0; d < a.shape().size(); ++d) REQUIRE(a.shape()[d] == b.shape()[d]);
  for (std::size_t i = 0; i < a.size(); ++i) CHECK(a.data()[i] == b.data()[i]);
}

/// Checks every gradient of sum(fn(args...)) against central differences.
template <class Fn, class... Args>
std::size_t check_gradients(Fn fn, const Args&... args) {
  return check_gradients_of(std::index_sequence_for<Args...>{}, fn, args...);
}

/// The largest difference between J . v and the central difference (f(x + h v) - f(x - h v)) / 2h
/// of the first argument, relative to 1 + |difference|.
template <class Fn, class X, class... Rest>
double jvp_error(Fn fn, const X& x, const X& v, const Rest&... rest) {
  auto forward = sf::function(fn);
  const auto [value, product] = sf::jvp<0>(fn)(x, rest..., v);
  const auto direct = forward(x, rest...);
  REQUIRE(value.size() == direct.size());
  for (std::size_t i = 0; i < value.size(); ++i) CHECK(value.data()[i] == Approx(direct.data()[i]).epsilon(1e-12));
  const double h = 1e-6;
  const X up = x + h * v, down = x - h * v;
  const auto f_up = forward(up, rest...);
  const auto f_down = forward(down, rest...);
  REQUIRE(product.size() == f_up.size());
  double worst = 0;
  for (std::size_t i = 0; i < product.size(); ++i) {
    const double numeric = (f_up.data()[i] - f_down.data()[i]) / (2 * h);
    worst = std::max(worst, std::fabs(product.data()[i] - numeric) / (1 + std::fabs(numeric)));
  }
  return worst;
}

/// The largest difference between H . v (with respect to argument 0) and the central difference
/// (grad(x + h v) - grad(x - h v)) / 2h, relative to 1 + |difference|.
template <class Fn, class X, class... Rest>
double hvp_error(Fn fn, const X& x, const X& v, const Rest&... rest) {
  const auto product = sf::hessian_vector_product<0>(fn)(x, rest..., v);
  auto grad = sf::grad<0>(fn);
  const double h = 1e-6;
  const X up = x + h * v, down = x - h * v;
  const auto g_up = grad(up, rest...);
  const auto g_down = grad(down, rest...);
  REQUIRE(product.size() == x.size());
  double worst = 0;
  for (std::size_t i = 0; i < product.size(); ++i) {
    const double numeric = (g_up.data()[i] - g_down.data()[i]) / (2 * h);
    worst = std::max(worst, std::fabs(product.data()[i] - numeric) / (1 + std::fabs(numeric)));
  }
  return worst;
}

}  // namespace gradient_check

namespace gradient_check {
/// d/dx of sum(f^steps(x)), f(v) = v * v + v, elementwise by the chain rule: the closed form the
/// unrolled-loop tests of autodiff/backprop.hpp check against.
inline double unrolled_square_plus_derivative(double x, int steps) {
  double d = 1;
  for (int i = 0; i < steps; ++i) {
    d *= 2 * x + 1;
    x = x * x + x;
  }
  return d;
}
}  // namespace gradient_check
