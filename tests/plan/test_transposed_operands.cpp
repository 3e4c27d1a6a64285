// Transposed operands read in place (plan/transposed_operands.hpp, graph::transposed_operand,
// backend/cpu/linalg.hpp and matmul.hpp's operand_order): a matrix transpose that feeds a product
// is not a slot of its own. Tested: which transposes are folded (the last two axes swapped, batch
// axes kept) and which are not; the slot counts and the materializations per call; the values,
// bit for bit equal to the product of the transposed copy, for random shapes through every path
// of the kernel (few rows, narrow, blocked, integers, the unrolled static product, batches, two
// threads), size 0 and 1; a transpose read elsewhere too. Gradients, whose adjoints are such
// products, and products inside shared nodes: test_transposed_operands_gradients.cpp.
#include <catch2/catch.hpp>

#include <cstddef>
#include <random>
#include <tuple>

#include <xtensor/xmanipulation.hpp>
#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

#include "transposed_operands_test.hpp"

namespace sf = staticflow;

using namespace transposed_operands_test;

TEST_CASE("which transposes a product reads in place", "[plan][transposed]") {
  using sf::plan::detail::is_matrix_transpose_v;
  using mat = sf::graph::argument<0, float, sf::shape<3, 4>>;
  using cube = sf::graph::argument<0, float, sf::shape<2, 3, 4>>;
  STATIC_REQUIRE(is_matrix_transpose_v<decltype(sf::transpose(mat{}))>);
  STATIC_REQUIRE(is_matrix_transpose_v<decltype(sf::matrix_transpose(cube{}))>);
  STATIC_REQUIRE_FALSE(is_matrix_transpose_v<decltype(sf::transpose(cube{}, sf::axes<1, 0, 2>{}))>);
  STATIC_REQUIRE_FALSE(is_matrix_transpose_v<decltype(sf::transpose(cube{}, sf::axes<2, 1, 0>{}))>);
  STATIC_REQUIRE_FALSE(is_matrix_transpose_v<mat>);
  // a product of a transpose: one slot (the product), reading the argument transposed
  using product = decltype(sf::matmul(sf::transpose(mat{}), mat{}));
  using plan = sf::plan::evaluation_plan<1, std::tuple<product>>;
  STATIC_REQUIRE(plan::slot_count == 1);
  STATIC_REQUIRE(std::is_same_v<std::tuple_element_t<0, plan::slots_type>,
                                sf::graph::matmul<sf::graph::transposed_operand<mat>, mat>>);
  STATIC_REQUIRE(std::is_same_v<sf::graph::transposed_operand<cube>::shape_type, sf::shape<2, 4, 3>>);
  // not a matrix transpose: the copy stays a slot
  using permuted = decltype(sf::matmul(sf::transpose(cube{}, sf::axes<1, 0, 2>{}), sf::transpose(mat{})));
  STATIC_REQUIRE(sf::plan::evaluation_plan<1, std::tuple<permuted>>::slot_count == 2);
}

TEST_CASE("products of transposes: one slot each, the transposed copy's values bit for bit", "[plan][transposed]") {
  auto both = sf::function([](auto a, auto b, auto c) {
    return std::tuple{sf::matmul(a, b, sf::transpose_a), sf::matmul(a, a, sf::transpose_b),
                      sf::matmul(a * 2.0, c, sf::transpose_a, sf::transpose_b)};
  });
  auto plain = sf::function([](auto a, auto b) { return sf::matmul(a, b); });
  std::mt19937 rng(25);
  // (k, m, n): a is k x m, b is k x n for the first product; sizes that take every kernel path
  // (few rows, narrow, blocked with partial tiles), size 0 and 1
  const std::size_t shapes[][3] = {{5, 3, 7},  {40, 2, 4},   {9, 13, 3}, {300, 30, 70}, {1, 1, 1},
                                   {0, 4, 5},  {6, 0, 2},    {17, 5, 0}, {64, 100, 33}, {260, 12, 40}};
  for (const auto& s : shapes) {
    const std::size_t k = s[0], m = s[1], n = s[2];
    INFO("k " << k << " m " << m << " n " << n);
    const auto a = random_tensor<double, 2>(rng, {k, m});
    const auto b = random_tensor<double, 2>(rng, {k, n});
    const auto c = random_tensor<double, 2>(rng, {n, k});
    const xt::xtensor<double, 2> at = xt::transpose(a), ct = xt::transpose(c);
    const auto before = sf::plan::materialization_counter();
    const auto [atb, aat, both_t] = both(a, b, c);
    if (k * m * n > 0) CHECK(sf::plan::materialization_counter() - before == 3);  // the products only
    CHECK((atb == plain(at, b)));                                    // m x n: aᵀ b
    CHECK((aat == plain(a, at)));                                    // k x k: a aᵀ
    CHECK((both_t == plain(xt::xtensor<double, 2>(at * 2.0), ct)));  // m x n: (2a)ᵀ cᵀ
  }
  const auto sq = random_tensor<double, 2>(rng, {3, 3});
  CHECK(slots_of(both, sq, sq, sq) == 3);
}

TEST_CASE("transposed operands of integers, batches, static shapes, and across two threads", "[plan][transposed]") {
  std::mt19937 rng(18);
  auto f = sf::function([](auto a, auto b) { return sf::matmul(a, b, sf::transpose_a); });
  auto g = sf::function([](auto a, auto b) { return sf::matmul(a, b); });
  // integers (wrapping, the copying path)
  const auto ia = random_tensor<int, 2>(rng, {7, 5}), ib = random_tensor<int, 2>(rng, {7, 9});
  CHECK((f(ia, ib) == g(xt::xtensor<int, 2>(xt::transpose(ia)), ib)));
  // batched, with a broadcast batch axis
  const auto ba = random_tensor<float, 3>(rng, {3, 20, 14}), bb = random_tensor<float, 3>(rng, {1, 20, 6});
  const xt::xtensor<float, 3> ba_t = xt::transpose(ba, {0, 2, 1});
  CHECK((f(ba, bb) == g(ba_t, bb)));
  CHECK(slots_of(f, ba, bb) == 1);
  // static shapes small enough for the unrolled product (the transposed operand copied on the stack)
  xt::xtensor_fixed<float, xt::xshape<4, 3>> sa;
  xt::xtensor_fixed<float, xt::xshape<4, 4>> sb;
  for (auto& e : sa) e = static_cast<float>(rng() % 17) - 8.f;
  for (auto& e : sb) e = static_cast<float>(rng() % 17) - 8.f;
  const xt::xtensor_fixed<float, xt::xshape<3, 4>> sa_t = xt::transpose(sa);
  CHECK((f(sa, sb) == g(sa_t, sb)));
  auto h = sf::function([](auto a, auto b) { return sf::matmul(a, b, sf::transpose_b); });
  const xt::xtensor_fixed<float, xt::xshape<4, 4>> sb_t = xt::transpose(sb);
  CHECK((h(sb, sb) == g(sb, sb_t)));
  // two threads give the one-thread result bit for bit
  const auto big_a = random_tensor<float, 2>(rng, {300, 200}), big_b = random_tensor<float, 2>(rng, {300, 180});
  const auto one = f(big_a, big_b);
  sf::set_num_threads(2);
  const auto two = f(big_a, big_b);
  sf::set_num_threads(1);
  CHECK((one == two));
  CHECK((one == g(xt::xtensor<float, 2>(xt::transpose(big_a)), big_b)));
}

TEST_CASE("a transpose read elsewhere too keeps its slot there", "[plan][transposed]") {
  auto f = sf::function([](auto a, auto b) {
    const auto t = sf::matrix_transpose(a);
    return std::tuple{sf::matmul(t, b), t + 1.f};
  });
  xt::xtensor<float, 2> a = {{1, 2}, {3, 4}, {5, 6}}, b = {{1, 0}, {0, 1}, {1, 1}};
  CHECK(slots_of(f, a, b) == 2);  // the product, and the transpose that `t + 1` reads
  const auto [p, q] = f(a, b);
  CHECK((p == xt::xtensor<float, 2>{{6, 8}, {8, 10}}));
  CHECK((q == xt::xtensor<float, 2>{{2, 4, 6}, {3, 5, 7}}));
}
