// Tests for plan/plan.hpp and plan/arena.hpp: the cost rule as a type trait, every non-elementwise
// node computed once per call however often it is used (counted, not timed), slots evaluated in
// dependency order, equal slots shared, and an arena that stops growing.
#include <catch2/catch.hpp>

#include <staticflow/staticflow.hpp>
#include <thread>

namespace sf = staticflow;

namespace {
using vec = sf::graph::argument<0, float, sf::shape<sf::dyn>>;
using mat = sf::graph::argument<0, float, sf::shape<3, 4>>;
}  // namespace

TEST_CASE("the cost rule: non-elementwise nodes are materialized, elementwise ones fused", "[plan]") {
  STATIC_REQUIRE(sf::plan::materializes_v<decltype(sf::reduce_sum(vec{}))>);
  STATIC_REQUIRE(sf::plan::materializes_v<decltype(sf::argmax(mat{}, 1))>);
  STATIC_REQUIRE(sf::plan::materializes_v<decltype(sf::matmul(mat{}, sf::transpose(mat{})))>);
  STATIC_REQUIRE(sf::plan::materializes_v<decltype(sf::transpose(mat{}))>);
  STATIC_REQUIRE(sf::plan::materializes_v<decltype(sf::concat<0>(mat{}, mat{}))>);
  STATIC_REQUIRE_FALSE(sf::plan::materializes_v<decltype(vec{} * 2.f + vec{})>);
  STATIC_REQUIRE_FALSE(sf::plan::materializes_v<decltype(sf::exp(vec{}))>);
  STATIC_REQUIRE_FALSE(sf::plan::materializes_v<decltype(sf::broadcast_to<sf::shape<2, 3, 4>>(mat{}))>);
  STATIC_REQUIRE_FALSE(sf::plan::materializes_v<vec>);
  // a matmul over a transpose over a reduction: three slots, in post-order
  using g = decltype(sf::matmul(mat{} / sf::reduce_max(mat{}), sf::transpose(mat{})));
  STATIC_REQUIRE(sf::plan::materialized_count<g>::value == 3);
}

TEST_CASE("a reduction used many times is computed once per call", "[plan]") {
  auto f = sf::function([](auto x) {
    const auto s = sf::reduce_sum(x);
    return x * s + s * s - s;  // s appears four times
  });
  xt::xtensor<float, 1> x = {1, 2, 3};
  auto& c = f.get_concrete_function(x);
  // four occurrences of one node whose type says its values: one slot, by construction
  // (plan/repeats.hpp), not four slots of which the run-time rule computes one
  CHECK(std::remove_cvref_t<decltype(c)>::materialized_count == 1);
  auto before = sf::plan::materialization_counter();
  auto r = f(x);
  CHECK(sf::plan::materialization_counter() - before == 1);  // ...computed once
  CHECK((r == xt::xtensor<float, 1>{36, 42, 48}));
  before = sf::plan::materialization_counter();
  f(x);
  f(x);
  CHECK(sf::plan::materialization_counter() - before == 2);  // once per call
}

TEST_CASE("equal nodes across outputs are shared; different ones are not", "[plan]") {
  auto f = sf::function([](auto x) {
    return std::tuple{sf::reduce_sum(x), x / sf::reduce_sum(x), x - sf::reduce_max(x), sf::reduce_sum(x * 2.f),
                      sf::reduce_sum(x * 3.f)};
  });
  xt::xtensor<double, 1> x = {1, 3};
  const auto before = sf::plan::materialization_counter();
  auto [s, n, d, s2, s3] = f(x);
  // reduce_sum(x) twice (shared), reduce_max once, and the two sums whose literals differ
  CHECK(sf::plan::materialization_counter() - before == 4);
  CHECK(s == 4.0);
  CHECK((n == xt::xtensor<double, 1>{0.25, 0.75}));
  CHECK((d == xt::xtensor<double, 1>{-2, 0}));
  CHECK(s2 == 8.0);
  CHECK(s3 == 12.0);
}

TEST_CASE("slots run in dependency order: a reduction of an expression of a reduction", "[plan]") {
  auto f = sf::function([](auto x) { return sf::reduce_sum(x / sf::reduce_max(x)) * sf::reduce_max(x); });
  xt::xtensor<float, 2> x = {{1, 2}, {3, 4}};
  const auto before = sf::plan::materialization_counter();
  CHECK(f(x) == Approx(10.f));
  CHECK(sf::plan::materialization_counter() - before == 2);
  CHECK(f.get_concrete_function(x).graph_string() ==
        "{ lambda ; a:float32[None,None]. let\n"
        "    b:float32[] = Max[axes=(0,1)] a\n"
        "    c:float32[None,None] = RealDiv a b\n"
        "    d:float32[] = Sum[axes=(0,1)] c\n"
        "    e:float32[] = Mul d b\n"
        "  in (e) }\n");
}

TEST_CASE("the arena stops growing under a steady stream of calls", "[plan][arena]") {
  auto f = sf::function([](auto x) { return sf::softmax(sf::transpose(x)); });
  auto x = xt::xtensor<float, 2>::from_shape({64, 48});
  x.fill(0.5f);
  auto out = xt::xtensor<float, 2>::from_shape({48, 64});
  f.call_into(out, x);
  const auto capacity = sf::plan::arena::local().capacity();
  CHECK(capacity > 0);
  for (int i = 0; i < 50; ++i) f.call_into(out, x);
  CHECK(sf::plan::arena::local().capacity() == capacity);
  CHECK(out(3, 5) == Approx(1.f / 64));
}

TEST_CASE("arena allocations are 64-byte aligned and released at scope end", "[plan][arena]") {
  auto& a = sf::plan::arena::local();
  const auto mark = a.top();
  {
    sf::plan::arena_scope scope;
    void* p = scope.get().allocate(3);
    void* q = scope.get().allocate(100);
    CHECK(reinterpret_cast<std::uintptr_t>(p) % 64 == 0);
    CHECK(reinterpret_cast<std::uintptr_t>(q) % 64 == 0);
    CHECK(static_cast<char*>(q) - static_cast<char*>(p) == 64);
  }
  CHECK(a.top().chunk == mark.chunk);
  CHECK(a.top().offset == mark.offset);
}

TEST_CASE("an op on constants only is folded while tracing", "[plan][fold]") {
  auto f = sf::function([](auto x) { return x + sf::square(sf::static_value<3>{}) * 2; });
  auto& c = f.get_concrete_function(sf::spec<int, 2>{});
  CHECK(c.graph_string() ==
        "{ lambda ; a:int32[2]. let\n"
        "    b:int32[2] = AddV2 a 18:int32[]\n"
        "  in (b) }\n");
  xt::xtensor_fixed<int, xt::xshape<2>> x = {1, 2};
  CHECK((f(x) == xt::xtensor_fixed<int, xt::xshape<2>>{19, 20}));
}

TEST_CASE("sf::materialize stores an expensive subexpression once for all its uses", "[plan]") {
  auto f = sf::function([](auto x) {
    const auto e = sf::materialize(sf::exp(x));
    return e / sf::reduce_sum(e) + e;
  });
  xt::xtensor<double, 1> x = {0, 1, 2};
  const auto before = sf::plan::materialization_counter();
  auto r = f(x);
  CHECK(sf::plan::materialization_counter() - before == 2);  // exp(x) once, its sum once
  const double total = 1 + std::exp(1.0) + std::exp(2.0);
  CHECK(r(2) == Approx(std::exp(2.0) / total + std::exp(2.0)));
  CHECK(f.get_concrete_function(x).graph_string() ==
        "{ lambda ; a:float64[None]. let\n"
        "    b:float64[None] = Exp a\n"
        "    c:float64[None] = materialize b\n"
        "    d:float64[] = Sum[axes=(0,)] c\n"
        "    e:float64[None] = RealDiv c d\n"
        "    f:float64[None] = AddV2 e c\n"
        "  in (f) }\n");
}

TEST_CASE("call_into computes a root softmax or matmul straight into the output", "[plan][direct]") {
  auto soft = sf::function([](auto x) { return sf::softmax(x); });
  auto mm = sf::function([](auto a, auto b) { return sf::matmul(a, b); });
  auto x = xt::xtensor<float, 2>::from_shape({3, 4});
  for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = 0.25f * static_cast<float>(i % 5);
  xt::xtensor<double, 2> a = {{1, 2}, {3, 4}};
  xt::xtensor<double, 2> b = {{5, 6}, {7, 8}};
  using soft_fn = std::remove_cvref_t<decltype(soft.get_concrete_function(x))>;
  using mm_fn = std::remove_cvref_t<decltype(mm.get_concrete_function(a, b))>;
  STATIC_REQUIRE(soft_fn::direct_slot == 0);
  STATIC_REQUIRE(mm_fn::direct_slot == 0);
  // a root that is elementwise over a slot still goes through the slot
  auto scaled = sf::function([](auto x) { return sf::softmax(x) * 2.f; });
  STATIC_REQUIRE(std::remove_cvref_t<decltype(scaled.get_concrete_function(x))>::direct_slot ==
                 std::remove_cvref_t<decltype(scaled.get_concrete_function(x))>::materialized_count);

  const auto expected = soft(x);  // by value: through a slot
  // A new thread starts with an empty arena: the run-time-shaped slot would have to take a chunk.
  std::size_t arena_after = 1;
  xt::xtensor<float, 2> out = xt::zeros<float>({3, 4});
  xt::xtensor<double, 2> product = xt::zeros<double>({2, 2});
  std::thread([&] {
    soft.call_into(out, x);
    mm.call_into(product, a, b);
    arena_after = sf::plan::arena::local().capacity();
  }).join();
  CHECK(arena_after == 0);
  CHECK((out == expected));
  CHECK((product == xt::xtensor<double, 2>{{19, 22}, {43, 50}}));

  // a wrong output shape throws before anything is written
  xt::xtensor<float, 2> wrong = xt::full_like(xt::xtensor<float, 2>::from_shape({4, 3}), 7.f);
  CHECK_THROWS_MATCHES(soft.call_into(wrong, x), sf::shape_error,
                       Catch::Message("staticflow: call_into: output 0 has shape (4, 3), the result has shape (3, 4)"));
  CHECK((wrong == xt::full_like(wrong, 7.f)));

  // an output that is an argument takes the staged path: in place gives the same values
  auto y = x;
  soft.call_into(y, y);
  CHECK((y == expected));
  mm.call_into(a, a, b);  // a = a @ b, not computed over a half-written a
  CHECK((a == xt::xtensor<double, 2>{{19, 22}, {43, 50}}));
}
