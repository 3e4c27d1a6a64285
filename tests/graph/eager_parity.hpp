// Test helper for tests/graph/test_eager_parity*.cpp: a function called traced, then eagerly.
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include <catch2/catch.hpp>
#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

namespace staticflow_test {
/// f(args...) traced, then eagerly: each output equal (exact, or close for float math).
template <class F, class... A>
void check_parity(F& f, bool exact, const A&... args) {
  const auto traced = f(args...);
  staticflow::run_functions_eagerly(true);
  const auto eager = f(args...);
  staticflow::run_functions_eagerly(false);
  const auto one = [&](auto k) {
    constexpr std::size_t K = decltype(k)::value;
    INFO("output " << K);
    if (exact) CHECK((std::get<K>(eager) == std::get<K>(traced)));
    else CHECK(xt::allclose(std::get<K>(eager), std::get<K>(traced), 1e-6, 1e-7));
  };
  [&]<std::size_t... K>(std::index_sequence<K...>) { (one(std::integral_constant<std::size_t, K>{}), ...); }(
      std::make_index_sequence<std::tuple_size_v<std::remove_cvref_t<decltype(traced)>>>{});
}
}  // namespace staticflow_test
