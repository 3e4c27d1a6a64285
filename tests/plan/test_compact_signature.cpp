// Tests for plan/compact_signature.hpp: a slot's kernel runs over the arguments its graph reads,
// renumbered in order, with the matching entries of the signature; graphs holding graphs of their
// own keep the whole signature; and the values are those of the whole-signature kernel.
#include <catch2/catch.hpp>

#include <staticflow/staticflow.hpp>

#include "reuse_chains.hpp"

namespace sf = staticflow;

namespace {
using a0 = sf::graph::argument<0, float, sf::shape<sf::dyn>>;
using a1 = sf::graph::argument<1, std::int32_t, sf::shape<4>>;
using a3 = sf::graph::argument<3, double, sf::shape<2, 4>>;
using staticflow_test::chain;
}  // namespace

TEST_CASE("the arguments a graph reads, renumbered in order", "[plan][compact]") {
  using g = decltype(sf::cast<double>(a1{}) * a3{} + sf::cast<double>(a1{}));
  STATIC_REQUIRE(std::is_same_v<sf::plan::read_arguments_t<g>, std::index_sequence<1, 3>>);
  STATIC_REQUIRE(sf::plan::compactable_v<g>);
  using renumbered = decltype(sf::plan::renumber_arguments<std::index_sequence<1, 3>>(std::declval<const g&>()));
  using expected = decltype(sf::cast<double>(sf::graph::argument<0, std::int32_t, sf::shape<4>>{}) *
                                sf::graph::argument<1, double, sf::shape<2, 4>>{} +
                            sf::cast<double>(sf::graph::argument<0, std::int32_t, sf::shape<4>>{}));
  STATIC_REQUIRE(std::is_same_v<renumbered, expected>);
  // the signature's entries 1 and 3, in that order
  using sig = std::tuple<sf::spec<float, sf::dyn>, sf::spec<std::int32_t, 4>, sf::spec<float, 7>, sf::spec<double, 2, 4>>;
  STATIC_REQUIRE(std::is_same_v<sf::plan::select_entries<sig, std::index_sequence<1, 3>>::type,
                                std::tuple<sf::spec<std::int32_t, 4>, sf::spec<double, 2, 4>>>);
  // a graph that reads no argument keeps none
  using constant = decltype(sf::graph::literal<float>(2.f) * sf::graph::literal<float>(3.f));
  STATIC_REQUIRE(std::is_same_v<sf::plan::read_arguments_t<constant>, std::index_sequence<>>);
  // a literal's value survives the renumbering
  const auto lit = sf::plan::renumber_arguments<std::index_sequence<0>>(a0{} * 2.5f);
  CHECK(sf::graph::child<1>(sf::graph::children(lit)).value == 2.5f);
}

TEST_CASE("graphs that hold graphs of their own keep the whole signature", "[plan][compact]") {
  auto f = sf::function([](auto x) {
    return sf::cond(sf::reduce_sum(x) > 0.f, [&] { return x * 2.f; }, [&] { return x - 1.f; });
  });
  xt::xtensor<float, 1> x = {1, 2};
  CHECK((f(x) == xt::xtensor<float, 1>{2, 4}));
  x = {-1, -2};
  CHECK((f(x) == xt::xtensor<float, 1>{-2, -3}));
  // a shared node (its slot is the prelude's) keeps the whole signature too
  using held = sf::graph::shared<struct some_tag, decltype(sf::reduce_sum(a0{}))>;
  STATIC_REQUIRE_FALSE(sf::plan::compactable_v<decltype(std::declval<const held&>() * 2.f)>);
  STATIC_REQUIRE(sf::plan::compactable_v<decltype(sf::reduce_sum(a0{}) * 2.f)>);
}

TEST_CASE("slots over a few of many arguments compute what the whole signature did", "[plan][compact]") {
  // the reduction reads argument 2 only, the transpose argument 0 only; the output reads 1, 3 and
  // both slots, mixing dtypes, a run-time shape and a broadcast
  auto f = sf::function([](auto a, auto b, auto c, auto d) {
    const auto s = sf::reduce_sum(sf::cast<float>(c) * 2.f);             // a scalar
    const auto t = sf::transpose(a);                                     // [3, 2]
    return t * s + sf::cast<float>(d) - b;                               // b: [dyn], d: int32 [2]
  });
  xt::xtensor_fixed<float, xt::xshape<2, 3>> a = {{1, 2, 3}, {4, 5, 6}};
  xt::xtensor<float, 1> b = {0.5f, 1.5f};
  xt::xtensor<std::int32_t, 1> c = {1, 2, 3};
  xt::xtensor_fixed<std::int32_t, xt::xshape<2>> d = {10, 20};
  const xt::xtensor<float, 2> r = f(a, b, c, d);
  // s = 12; r[i][j] = a[j][i] * 12 + d[j] - b[j]
  const xt::xtensor<float, 2> expected = {{1 * 12 + 10 - 0.5f, 4 * 12 + 20 - 1.5f},
                                          {2 * 12 + 10 - 0.5f, 5 * 12 + 20 - 1.5f},
                                          {3 * 12 + 10 - 0.5f, 6 * 12 + 20 - 1.5f}};
  CHECK((r == expected));
  // empty and one-element run-time extents are ordinary input
  xt::xtensor<std::int32_t, 1> none = xt::xtensor<std::int32_t, 1>::from_shape({0});
  const xt::xtensor<float, 2> r0 = f(a, b, none, d);
  CHECK((r0 == xt::xtensor<float, 2>{{10 - 0.5f, 20 - 1.5f}, {10 - 0.5f, 20 - 1.5f}, {10 - 0.5f, 20 - 1.5f}}));
  xt::xtensor<float, 1> one = {1.f};
  const xt::xtensor<float, 2> r1 = f(a, one, c, d);
  CHECK(r1(2, 1) == 6 * 12 + 20 - 1.f);
  CHECK_THROWS_AS(f(a, xt::xtensor<float, 1>{1, 2, 3}, c, d), sf::shape_error);
}

TEST_CASE("a materialized value reused at every level: one slot, computed once", "[plan][compact]") {
  auto f = sf::function([](auto x) { return chain<2>(sf::reduce_sum(x, sf::axes<0>{}, sf::keepdims) * 0.125f); });
  xt::xtensor<double, 1> x = {1, 3};
  auto& c = f.get_concrete_function(x);
  // the reduction is read nine times; its type says its values, so the plan makes it one node
  CHECK(std::remove_cvref_t<decltype(c)>::materialized_count == 1);
  const auto before = sf::plan::materialization_counter();
  const xt::xtensor<double, 1> y = f(x);
  CHECK(sf::plan::materialization_counter() - before == 1);
  const double m = 0.5, v1 = m * m + m, v2 = v1 * v1 + v1;
  REQUIRE(y.size() == 1);
  CHECK(y(0) == v2);
  // a run-time literal inside the reduction: two nodes of its type may differ, so each read is a
  // slot of its own, and the run-time rule finds the eight repeats (the compact signature's views)
  auto g = sf::function([](auto x) { return chain<2>(sf::reduce_sum(x * 0.125, sf::axes<0>{}, sf::keepdims)); });
  auto& cg = g.get_concrete_function(x);
  CHECK(std::remove_cvref_t<decltype(cg)>::materialized_count == 9);
  const auto before_g = sf::plan::materialization_counter();
  const xt::xtensor<double, 1> z = g(x);
  CHECK(sf::plan::materialization_counter() - before_g == 1);
  REQUIRE(z.size() == 1);
  CHECK(z(0) == v2);
}
