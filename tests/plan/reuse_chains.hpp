// Test helpers for tests/plan: values reused by hand at every level (plan/repeats.hpp).
#pragma once

#include <staticflow/staticflow.hpp>

namespace staticflow_test {
// v * v + v, K times: every level reads the one below three times
template <int K, class V>
auto chain(const V& v) {
  if constexpr (K == 0) return v;
  else return chain<K - 1>(v * v + v);
}

// the same, each level stored (sf::materialize): every level is a materialized node read three times
template <int K, class V>
auto stored_chain(const V& v) {
  if constexpr (K == 0) return v;
  else return stored_chain<K - 1>(staticflow::materialize(v * v + v));
}
}  // namespace staticflow_test
