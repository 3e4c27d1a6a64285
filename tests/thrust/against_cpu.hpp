// tests/thrust/against_cpu.hpp -- the backend suite's comparison with the CPU backend in the same
// build (layers_suite.cpp, layers_gradient_suite.cpp, ops_contractions_suite.cpp,
// ops_statistics_suite.cpp, views_suite.cpp): a function, or its gradient, made for the suite's
// backend and for the CPU backend, called on the same arguments, each output of the same shape
// and close values (exact for integers). The CPU backend's values are themselves checked against
// definitions written out (tests/graph, tests/autodiff).
#pragma once

#include <catch2/catch.hpp>

#include <array>
#include <cstddef>
#include <random>
#include <tuple>
#include <type_traits>
#include <utility>

#include <xtensor/xtensor.hpp>

#include "suite_backend.hpp"

namespace against_cpu {
inline std::mt19937& rng() {
  static std::mt19937 g(20261201);
  return g;
}
template <std::size_t R>
xt::xtensor<double, R> random(std::array<std::size_t, R> shape) {
  auto x = xt::xtensor<double, R>::from_shape(shape);
  std::uniform_real_distribution<double> u(-1, 1);
  for (auto& v : x) v = u(rng());
  return x;
}
/// A CPU result as the host xtensor suite::host gives for the other backend.
template <class R>
auto cpu_host(const R& r) {
  if constexpr (std::is_arithmetic_v<R>) {
    xt::xtensor<R, 0> t = r;
    return t;
  } else {
    return xt::xtensor<typename R::value_type, R::rank>(r);
  }
}
/// f on the suite's backend and on the CPU backend: each output of the same shape and close
/// values (exact for integers).
template <class OnBackend, class OnCpu, class... A>
void check_functions(OnBackend& on_backend, OnCpu& on_cpu, const A&... args) {
  const auto got = suite::host(on_backend(suite::in(args)...));
  const auto want = on_cpu(args...);
  const auto one = [](const auto& g, const auto& w) {
    const auto wh = cpu_host(w);
    REQUIRE(suite::shape(g) == suite::shape(wh));
    if constexpr (std::is_integral_v<typename std::remove_cvref_t<decltype(wh)>::value_type>) CHECK((g == wh));
    else CHECK(xt::allclose(g, wh, 1e-9, 1e-12));
  };
  if constexpr (sf::detail::is_tuple<std::remove_cvref_t<decltype(want)>>::value) {
    [&]<std::size_t... K>(std::index_sequence<K...>) { (one(std::get<K>(got), std::get<K>(want)), ...); }(
        std::make_index_sequence<std::tuple_size_v<std::remove_cvref_t<decltype(want)>>>{});
  } else {
    one(got, want);
  }
}
template <class F, class... A>
void check_against_cpu(F f, const A&... args) {
  auto on_backend = sf::function(f, suite::backend);
  auto on_cpu = sf::function(f);
  check_functions(on_backend, on_cpu, args...);
}
/// The gradient of f with respect to arguments I..., on both backends.
template <std::size_t... I, class F, class... A>
void check_gradient_against_cpu(F f, const A&... args) {
  auto on_backend = sf::grad<I...>(f, suite::backend);
  auto on_cpu = sf::grad<I...>(f);
  check_functions(on_backend, on_cpu, args...);
}
}  // namespace against_cpu
