// Tests for plan/repeats.hpp: a materialized node a program reads in several places, whose type
// determines its values, is one node of the plan by construction (one slot, one kernel), traced
// or eager; an elementwise node read twice whose fused tree passes the budget is stored once; nodes
// of one type that may differ (a run-time literal, an eager result) keep a slot per read, and
// every value stays right.
#include <catch2/catch.hpp>

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include <staticflow/staticflow.hpp>

#include "reuse_chains.hpp"

namespace sf = staticflow;

namespace {
using staticflow_test::chain;
using staticflow_test::stored_chain;

template <class F, class... A>
using concrete_t = std::remove_cvref_t<decltype(std::declval<F&>().get_concrete_function(std::declval<const A&>()...))>;
}  // namespace

TEST_CASE("which nodes the planner marks: materialized, one type for one value, read twice", "[plan][repeats]") {
  using x = sf::graph::argument<0, float, sf::shape<sf::dyn>>;
  using y = sf::graph::argument<1, float, sf::shape<sf::dyn>>;
  using s = decltype(sf::reduce_sum(x{}));
  using twice = decltype(x{} * std::declval<s>() + std::declval<s>());
  using outputs = std::tuple<twice>;
  STATIC_REQUIRE(sf::plan::detail::paths_from_outputs<s, outputs>::value == 2);
  STATIC_REQUIRE(sf::plan::detail::holds_inner_repeats<outputs>::value);
  STATIC_REQUIRE(sf::plan::detail::counted_paths<s, outputs>::value == 2);
  STATIC_REQUIRE(sf::plan::detail::local_repeats_in_outputs<outputs>::value);
  // leaves read by several ops count paths but are no inner repeat: such a graph walks no tree
  using plain = std::tuple<decltype((x{} + y{}) * x{} - y{})>;
  STATIC_REQUIRE(sf::plan::detail::paths_from_outputs<x, plain>::value == 2);
  STATIC_REQUIRE(sf::plan::detail::paths_from_outputs<decltype(x{} + y{}), plain>::value == 1);
  STATIC_REQUIRE(sf::plan::detail::paths_from_outputs<s, plain>::value == 0);
  STATIC_REQUIRE_FALSE(sf::plan::detail::holds_inner_repeats<plain>::value);
  STATIC_REQUIRE_FALSE(sf::plan::detail::local_repeats_in_outputs<plain>::value);
  STATIC_REQUIRE(sf::plan::detail::counted_paths<x, plain>::value == 2);
  // a node read by a node and by a child of it (v * v + v), or twice by one node, is found; a node
  // read by two children of one node (a * b + a * c) is not, as far repeats are not
  using ab = decltype(x{} + y{});
  STATIC_REQUIRE(sf::plan::detail::local_repeats_in_outputs<std::tuple<decltype(std::declval<ab>() * x{} + std::declval<ab>())>>::value);
  STATIC_REQUIRE(sf::plan::detail::local_repeats_in_outputs<std::tuple<decltype(sf::maximum(std::declval<ab>(), std::declval<ab>()))>>::value);
  STATIC_REQUIRE_FALSE(sf::plan::detail::local_repeats_in_outputs<std::tuple<decltype(std::declval<ab>() * x{} + std::declval<ab>() * y{})>>::value);
  STATIC_REQUIRE(sf::plan::detail::repeated<outputs, s>::value);
  STATIC_REQUIRE_FALSE(sf::plan::detail::repeated<outputs, x>::value);  // not materialized
  // read once: the outputs are planned as they are (the same type, no rebuild)
  using once = std::tuple<decltype(x{} * std::declval<s>())>;
  STATIC_REQUIRE_FALSE(sf::plan::detail::repeated<once, s>::value);
  STATIC_REQUIRE(std::is_same_v<sf::plan::detail::marked_outputs_t<once>, once>);
  // once in each of two outputs is twice
  STATIC_REQUIRE(sf::plan::detail::repeated<std::tuple<s, decltype(x{} / std::declval<s>())>, s>::value);
  // the same shape over another argument is another node
  using other = decltype(sf::reduce_sum(y{}));
  STATIC_REQUIRE_FALSE(sf::plan::detail::repeated<std::tuple<decltype(std::declval<s>() + std::declval<other>())>, s>::value);
  // a run-time literal below: two nodes of this type may differ, so they are not marked
  using scaled = decltype(sf::reduce_sum(x{} * 2.f));
  STATIC_REQUIRE_FALSE(sf::graph::value_free_v<scaled>);
  STATIC_REQUIRE_FALSE(sf::plan::detail::repeated<std::tuple<decltype(sf::reduce_sum(x{} * 2.f) * sf::reduce_sum(x{} * 2.f))>, scaled>::value);
  // an eager call's argument is one value per call (its kind names the argument); a value computed
  // on the spot in an eager call (eager_kind) is not
  using eager_x = sf::graph::eager_argument_value<float, sf::shape<sf::dyn>, 0>;
  using eager_s = decltype(sf::reduce_sum(eager_x{nullptr}));
  STATIC_REQUIRE(sf::plan::detail::repeated<std::tuple<decltype(std::declval<eager_s>() * std::declval<eager_s>())>, eager_s>::value);
  using result = sf::graph::eager_value<float, sf::shape<sf::dyn>>;
  using result_s = decltype(sf::reduce_sum(result{nullptr}));
  STATIC_REQUIRE_FALSE(sf::plan::detail::repeated<std::tuple<decltype(std::declval<result_s>() * std::declval<result_s>())>, result_s>::value);
  // a marked node is a prelude node: every read lowers to its one slot
  using marked = std::tuple_element_t<0, sf::plan::detail::marked_outputs_t<outputs>>;
  STATIC_REQUIRE(sf::plan::evaluation_plan<1, std::tuple<marked>>::slot_count == 1);
  STATIC_REQUIRE(sf::plan::evaluation_plan<1, outputs>::slot_count == 1);
}

TEST_CASE("a reduction read 3^4 times is one slot, computed once, traced and eager", "[plan][repeats]") {
  auto f = sf::function([](auto x) { return chain<4>(sf::reduce_sum(x, sf::axes<0>{}, sf::keepdims) * 0.25f); });
  const xt::xtensor<float, 1> x = {-0.5f, 0.25f};
  STATIC_REQUIRE(concrete_t<decltype(f), xt::xtensor<float, 1>>::materialized_count == 1);
  double v = (-0.5 + 0.25) * 0.25;
  for (int k = 0; k < 4; ++k) v = v * v + v;
  auto before = sf::plan::materialization_counter();
  const xt::xtensor<float, 1> traced = f(x);
  CHECK(sf::plan::materialization_counter() - before == 1);
  REQUIRE(traced.size() == 1);
  CHECK(traced(0) == Approx(v).epsilon(1e-6));
  sf::run_functions_eagerly_scope eager;
  before = sf::plan::materialization_counter();
  const xt::xtensor<float, 1> run_eagerly = f(x);
  // the eager graph reads the call's argument through a leaf of its own kind (a slot of its own,
  // which the counter counts): the leaf and the reduction
  CHECK(sf::plan::materialization_counter() - before == 2);
  REQUIRE(run_eagerly.size() == 1);
  CHECK(run_eagerly(0) == traced(0));
}

TEST_CASE("two arguments of one spec are two values, eager or traced", "[plan][repeats][eager]") {
  auto f = sf::function([](auto a, auto b) {
    const auto sa = sf::reduce_sum(a);
    const auto sb = sf::reduce_sum(b);
    return std::tuple{sa * sa - sb, sb * sb + sa};
  });
  const xt::xtensor<double, 1> a = {1, 2}, b = {10, 20};
  using C = concrete_t<decltype(f), xt::xtensor<double, 1>, xt::xtensor<double, 1>>;
  STATIC_REQUIRE(C::materialized_count == 2);
  const auto check = [&] {
    const auto [p, q] = f(a, b);
    CHECK(double(p) == 3.0 * 3.0 - 30.0);
    CHECK(double(q) == 30.0 * 30.0 + 3.0);
  };
  check();
  sf::run_functions_eagerly_scope eager;
  check();
  // one array passed as both arguments: equal values under two kinds of leaf, still right
  const auto [p, q] = f(a, a);
  CHECK(double(p) == 6.0);
  CHECK(double(q) == 12.0);
}

TEST_CASE("reads of one type that differ keep their own slots and values", "[plan][repeats]") {
  // reduce_sum(x * 2) and reduce_sum(x * 3) have one type: not marked, each its own value
  auto f = sf::function([](auto x) {
    const auto two = sf::reduce_sum(x * 2.0);
    const auto three = sf::reduce_sum(x * 3.0);
    return two * two + three;
  });
  const xt::xtensor<double, 1> x = {1, 2};
  STATIC_REQUIRE(concrete_t<decltype(f), xt::xtensor<double, 1>>::materialized_count == 3);
  const auto before = sf::plan::materialization_counter();
  CHECK(double(f(x)) == 6.0 * 6.0 + 9.0);
  CHECK(sf::plan::materialization_counter() - before == 2);  // the two equal reads of `two`: once
  // eager results (a cond's) are leaves whose values are known only when the call runs: never
  // one node by type
  auto g = sf::function([](auto y) {
    const auto picked = sf::cond(sf::reduce_sum(y) > 0, [&] { return y * 2.0; }, [&] { return y; });
    const auto s = sf::reduce_sum(picked);
    return s * s + sf::reduce_sum(picked * 0.0 + 1.0);
  });
  sf::run_functions_eagerly_scope eager;
  CHECK(double(g(x)) == 36.0 + 2.0);
  CHECK(double(g(xt::xtensor<double, 1>{-1.0, -2.0})) == 9.0 + 2.0);
}

TEST_CASE("size-0 and size-1 inputs through a marked node", "[plan][repeats]") {
  auto f = sf::function([](auto x) {
    const auto m = sf::reduce_max(x, sf::axes<0>{}, sf::keepdims);
    return x - m + m * m;
  });
  const xt::xtensor<float, 1> one = {3.f};
  const xt::xtensor<float, 1> r1 = f(one);
  CHECK((r1 == xt::xtensor<float, 1>{9.f}));
  const auto none = xt::xtensor<float, 1>::from_shape({0});
  const xt::xtensor<float, 1> r0 = f(none);
  CHECK(r0.size() == 0);
}

TEST_CASE("sf::materialize at each of 8 levels over static literals: nine nodes, not 3^8 reads", "[plan][repeats]") {
  // with a static literal every level's type says its values, so each level is one node; the
  // fused loops stay small (one v * v + v each)
  auto f = sf::function([](auto x) {
    return stored_chain<8>(sf::reduce_sum(x, sf::axes<0>{}, sf::keepdims) * sf::static_value<0.125>{});
  });
  const xt::xtensor<double, 1> x = {-0.5, 0.25};
  STATIC_REQUIRE(concrete_t<decltype(f), xt::xtensor<double, 1>>::materialized_count == 9);
  double v = (-0.5 + 0.25) * 0.125;
  for (int k = 0; k < 8; ++k) v = v * v + v;
  const auto before = sf::plan::materialization_counter();
  const xt::xtensor<double, 1> y = f(x);
  CHECK(sf::plan::materialization_counter() - before == 9);
  REQUIRE(y.size() == 1);
  CHECK(y(0) == Approx(v).epsilon(1e-12));
}

TEST_CASE("eager reads: the call's arguments by index, computed values one argument each up to a limit", "[plan][repeats][eager]") {
  using arg = sf::graph::eager_argument_value<double, sf::shape<sf::dyn>, 0>;
  using computed = sf::graph::eager_value<double, sf::shape<sf::dyn>>;
  // 3^7 reads of an argument: no computed read, the arguments' path, the traced graph's type
  using over_arg = decltype(chain<7>(arg{nullptr}));
  STATIC_REQUIRE(sf::detail::eager_value_reads<over_arg>::value == 0);
  STATIC_REQUIRE(sf::detail::eager_elementwise_result<over_arg>());
  STATIC_REQUIRE(std::is_same_v<decltype(sf::detail::eager_values_as_arguments<1>(std::declval<const over_arg&>())),
                                decltype(chain<7>(sf::graph::argument<0, double, sf::shape<sf::dyn>>{}))>);
  // a computed value read 3^3 times: 27 arguments after the call's one; 3^4 = 81 reads pass the
  // limit (64) and repeat close by: the planned path
  using over_computed3 = decltype(chain<3>(computed{nullptr}));
  STATIC_REQUIRE(sf::detail::eager_value_reads<over_computed3>::value == 27);
  STATIC_REQUIRE(sf::detail::eager_elementwise_result<over_computed3>());
  STATIC_REQUIRE(std::tuple_size_v<sf::detail::eager_leaf_specs<over_computed3>::type> == 27);
  using over_computed4 = decltype(chain<4>(computed{nullptr}));
  STATIC_REQUIRE(sf::detail::eager_value_reads<over_computed4>::value == 81);
  STATIC_REQUIRE_FALSE(sf::detail::eager_elementwise_result<over_computed4>());

  // the arguments' path over a cond's result (a computed value) read 27 times, against the traced
  // call (where each read of the cond's result is a slot of its own, computed once: plan.hpp's
  // structurally_equal); the planned path over computed values: the cond tests below and
  // tests/trace/test_eager_mode.cpp
  const auto picked = [](auto x) { return sf::cond(sf::reduce_sum(x) > 0, [&] { return x * 0.5; }, [&] { return x * -0.25; }); };
  auto f = sf::function([&](auto x) { return chain<3>(picked(x)) + x; });
  for (const double sign : {1.0, -1.0}) {
    const xt::xtensor<double, 1> x = {0.25 * sign, 0.5 * sign, -0.125 * sign};
    const xt::xtensor<double, 1> traced = f(x);
    sf::run_functions_eagerly_scope eager;
    const xt::xtensor<double, 1> run_eagerly = f(x);
    REQUIRE(run_eagerly.size() == 3);
    for (std::size_t i = 0; i < 3; ++i) {
      double v = sign > 0 ? x(i) * 0.5 : x(i) * -0.25;
      for (int k = 0; k < 3; ++k) v = v * v + v;
      CHECK(traced(i) == Approx(v + x(i)).epsilon(1e-12));
      CHECK(run_eagerly(i) == Approx(traced(i)).epsilon(1e-12));
    }
  }
}

TEST_CASE("an elementwise tree over the fusion budget, read twice, is stored once", "[plan][repeats]") {
  using x = sf::graph::argument<0, double, sf::shape<sf::dyn>>;
  using level2 = decltype(chain<2>(x{}));
  using product3 = decltype(std::declval<level2>() * std::declval<level2>());
  using level3 = decltype(chain<3>(x{}));
  using level4 = decltype(chain<4>(x{}));
  using outputs = std::tuple<level4>;
  STATIC_REQUIRE(sf::plan::fused_tree_budget == 32);
  // the ops a fused loop evaluates per element: v * v + v over a tree of size s is 3s + 2
  STATIC_REQUIRE(sf::plan::detail::fused_tree_size<outputs, x>::value == 1);
  STATIC_REQUIRE(sf::plan::detail::fused_tree_size<outputs, decltype(chain<1>(x{}))>::value == 5);
  STATIC_REQUIRE(sf::plan::detail::fused_tree_size<outputs, level2>::value == 17);
  // level 3's product (35 ops, capped at the budget + 1) is read through each of level 4's three
  // reads of level 3: stored, and level 3 then costs its add, one read and level 2
  STATIC_REQUIRE(sf::plan::detail::fused_tree_size<outputs, product3>::value == 33);
  STATIC_REQUIRE(sf::plan::detail::stored_repeat_in<outputs, product3>::value);
  STATIC_REQUIRE(sf::plan::detail::fused_tree_size<outputs, level3>::value == 1 + 1 + 17);
  STATIC_REQUIRE_FALSE(sf::plan::detail::stored_repeat_in<outputs, level2>::value);  // within the budget
  STATIC_REQUIRE_FALSE(sf::plan::detail::stored_repeat_in<outputs, level3>::value);
  // level 4's product is over the budget too, but read once (level 4 is the output)
  using product4 = decltype(std::declval<level3>() * std::declval<level3>());
  STATIC_REQUIRE(sf::plan::detail::fused_tree_size<outputs, product4>::value == 33);
  STATIC_REQUIRE_FALSE(sf::plan::detail::stored_repeat_in<outputs, product4>::value);
  STATIC_REQUIRE(sf::plan::evaluation_plan<1, outputs>::slot_count == 1);
  // read once, it stays fused: the outputs are planned as they are
  using once = std::tuple<decltype(std::declval<level3>() * sf::static_value<2.0>{})>;
  STATIC_REQUIRE_FALSE(sf::plan::detail::stored_repeat_in<once, product3>::value);
  STATIC_REQUIRE(std::is_same_v<sf::plan::detail::marked_outputs_t<once>, once>);
  // a run-time literal below: two nodes of this type may hold different values, never stored
  using scaled = decltype(chain<3>(x{} * 0.5));
  using scaled_product = decltype(chain<2>(x{} * 0.5) * chain<2>(x{} * 0.5));
  STATIC_REQUIRE(sf::plan::detail::fused_tree_size<std::tuple<decltype(chain<1>(std::declval<scaled>()))>, scaled_product>::value == 33);
  STATIC_REQUIRE_FALSE(sf::plan::detail::stored_repeat_in<std::tuple<decltype(chain<1>(std::declval<scaled>()))>, scaled_product>::value);
  // a materialized node below counts as one read
  using over_sum = decltype(chain<1>(sf::reduce_sum(x{}) + x{}));
  STATIC_REQUIRE(sf::plan::detail::fused_tree_size<std::tuple<over_sum>, over_sum>::value == 3 * 3 + 2);
}

TEST_CASE("a chain read 3^7 times by hand: a slot per level, values right, traced and eager", "[plan][repeats]") {
  // the products of levels 3 to 6 pass the budget and are read three times each (through their
  // level); level 7's product is read once, by the output
  auto f = sf::function([](auto x) { return chain<7>(x); });
  using C = concrete_t<decltype(f), xt::xtensor<double, 1>>;
  STATIC_REQUIRE(C::materialized_count == 4);
  const auto expected = [](double v) {
    for (int k = 0; k < 7; ++k) v = v * v + v;
    return v;
  };
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{37}}) {
    xt::xtensor<double, 1> x = xt::xtensor<double, 1>::from_shape({n});
    for (std::size_t i = 0; i < n; ++i) x(i) = -0.9 + 0.8 * double(i) / 37.0;  // where the chain stays bounded
    auto before = sf::plan::materialization_counter();
    const xt::xtensor<double, 1> traced = f(x);
    CHECK(sf::plan::materialization_counter() - before == 4);
    REQUIRE(traced.size() == n);
    for (std::size_t i = 0; i < n; ++i) CHECK(traced(i) == Approx(expected(x(i))).epsilon(1e-12));
    // eager: every read of the argument is the call's argument 0, so the eager graph is the traced
    // one, planned alike (its four stored levels), evaluated op by op
    sf::run_functions_eagerly_scope eager;
    before = sf::plan::materialization_counter();
    const xt::xtensor<double, 1> run_eagerly = f(x);
    CHECK(sf::plan::materialization_counter() - before == 4);
    REQUIRE(run_eagerly.size() == n);
    for (std::size_t i = 0; i < n; ++i) CHECK(run_eagerly(i) == Approx(traced(i)).epsilon(1e-12));
  }
  // the same chain over a run-time literal is never stored: one fused loop, every value right
  auto g = sf::function([](auto x) { return chain<4>(x * 0.5); });
  STATIC_REQUIRE(concrete_t<decltype(g), xt::xtensor<double, 1>>::materialized_count == 0);
  const xt::xtensor<double, 1> y = g(xt::xtensor<double, 1>{-0.5, 0.25});
  double a = -0.25, b = 0.125;
  for (int k = 0; k < 4; ++k) a = a * a + a, b = b * b + b;
  CHECK(y(0) == Approx(a).epsilon(1e-12));
  CHECK(y(1) == Approx(b).epsilon(1e-12));
}
