// tests/backend/kernel_test_inputs.hpp -- what test_cpu_kernel*.cpp share: a vector of n values
// drawn uniformly from [lo, hi) with a fixed seed.
#pragma once

#include <cstddef>
#include <random>

#include <xtensor/xtensor.hpp>

namespace kernel_test {
template <class T>
xt::xtensor<T, 1> random_vector(std::size_t n, double lo, double hi, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  auto v = xt::xtensor<T, 1>::from_shape({n});
  for (auto& e : v) e = static_cast<T>(dist(rng));
  return v;
}
}  // namespace kernel_test
