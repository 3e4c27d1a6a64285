// tests/plan/epilogue_checks.hpp -- what the epilogue tests (test_epilogues.cpp,
// test_epilogue_producers.cpp) ask of a plan: which of its slots are epilogues
// (plan/epilogues.hpp), and random tensors of values exact in binary (sixteenths in [-2.5, 2.5]),
// so that a fused and an unfused evaluation can be compared bit for bit where the function is
// exact.
#pragma once

#include <array>
#include <cstddef>
#include <random>
#include <tuple>
#include <type_traits>
#include <utility>

#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

namespace epilogue_checks {
namespace sf = staticflow;

template <class N>
inline constexpr bool is_epilogue_v = false;
template <class P, class Fn, class... Q>
inline constexpr bool is_epilogue_v<sf::graph::epilogue<P, Fn, Q...>> = true;

/// The plan of outputs O... over (at most) five arguments.
template <class... O>
using plan_of = sf::plan::evaluation_plan<5, std::tuple<std::remove_cv_t<O>...>>;
template <class Plan, std::size_t K = 0>
using slot_t = std::tuple_element_t<K, typename Plan::slots_type>;
/// How many of the plan's slots are epilogues.
template <class Plan>
inline constexpr std::size_t epilogues_v = []<std::size_t... K>(std::index_sequence<K...>) {
  return (std::size_t{0} + ... + std::size_t{is_epilogue_v<slot_t<Plan, K>>});
}(std::make_index_sequence<Plan::slot_count>{});
/// How many slots of function F's plan for arguments A... are epilogues.
template <class F, class... A>
inline constexpr std::size_t function_epilogues_v =
    epilogues_v<typename std::remove_cvref_t<decltype(std::declval<F&>().get_concrete_function(std::declval<const A&>()...))>::plan_type>;

template <class T, std::size_t R>
xt::xtensor<T, R> random_tensor(std::mt19937& rng, const std::array<std::size_t, R>& shape) {
  xt::xtensor<T, R> t = xt::xtensor<T, R>::from_shape(shape);
  std::uniform_int_distribution<int> u(-40, 40);
  for (auto& e : t) e = static_cast<T>(u(rng)) / T(16);
  return t;
}
}  // namespace epilogue_checks
