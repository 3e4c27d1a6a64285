// tests/plan/transposed_operands_test.hpp -- what test_transposed_operands*.cpp share: random
// operands of small integers (exact in float, so products of a transpose and of its copy are equal
// bit for bit) and the number of slots a function's plan materializes.
#pragma once

#include <array>
#include <cstddef>
#include <random>
#include <type_traits>

#include <xtensor/xtensor.hpp>

namespace transposed_operands_test {
template <class T, std::size_t R>
xt::xtensor<T, R> random_tensor(std::mt19937& rng, const std::array<std::size_t, R>& shape) {
  xt::xtensor<T, R> t = xt::xtensor<T, R>::from_shape(shape);
  std::uniform_int_distribution<int> u(-40, 40);
  for (auto& e : t) e = static_cast<T>(u(rng)) / static_cast<T>(std::is_integral_v<T> ? 1 : 8);
  return t;
}

template <class F, class... A>
std::size_t slots_of(F& f, const A&... a) {
  return std::remove_cvref_t<decltype(f.get_concrete_function(a...))>::materialized_count;
}
}  // namespace transposed_operands_test
