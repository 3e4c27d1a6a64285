// Tests for effects/variable.hpp and effects/for_range.hpp: variables outside and inside traced
// functions, effects in program order, reads before and after writes, for_range, exception safety
// (a call that throws changes no variable) and concurrent calls.
#include <catch2/catch.hpp>

#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

TEST_CASE("the seed's loop of assign_add: f(3) leaves v at 4, and runs on every call", "[variable]") {
  sf::variable<int> v{1};
  auto f = sf::function([&](auto n) { sf::for_range(n, [&](auto i) { v.assign_add(i); }); });
  f(3);
  CHECK(v.value() == 4);
  f(3);  // the traced loop runs again: 4 + 0 + 1 + 2
  CHECK(v.value() == 7);
  f(0);
  CHECK(v.value() == 7);
  CHECK(f.tracing_count() == 1);
}

TEST_CASE("outside traced code assign, assign_add and assign_sub act at once", "[variable]") {
  sf::variable<int> s{5};
  s.assign_add(2);
  s.assign_sub(10);
  CHECK(s.value() == -3);
  s.assign(9);
  CHECK(s.value() == 9);

  sf::variable<float, 3> v{{1.f, 2.f, 3.f}};
  v.assign_add(xt::xtensor<float, 1>{10.f, 20.f, 30.f});
  CHECK((v.value() == xt::xtensor_fixed<float, xt::xshape<3>>{11.f, 22.f, 33.f}));
  v.assign_sub(1.f);  // a number is broadcast
  CHECK((v.value() == xt::xtensor_fixed<float, xt::xshape<3>>{10.f, 21.f, 32.f}));
  CHECK_THROWS_WITH(v.assign(xt::xtensor<float, 1>{1.f, 2.f}),
                    "staticflow: assign: the value has shape (2,), the variable has shape (3,)");
  CHECK_THROWS_WITH(v.assign_add(xt::xtensor<float, 1>{1.f, 2.f}), Catch::Contains("assign_add: the value has shape (2,)"));
  CHECK((v.value() == xt::xtensor_fixed<float, xt::xshape<3>>{10.f, 21.f, 32.f}));

  sf::variable<int, sf::dyn> d{xt::xtensor<int, 1>{1, 2}};
  d.assign(xt::xtensor<int, 1>{4, 5, 6});  // a dyn dim takes the new extent
  CHECK((d.value() == xt::xtensor<int, 1>{4, 5, 6}));
}

TEST_CASE("a variable read in a traced function sees the writes before the read, not those after", "[variable]") {
  sf::variable<float> v{1.f};
  auto f = sf::function([&](auto x) {
    auto before = v.read();
    v.assign_add(x);
    auto after = v * 1.f;  // an expression reads the variable at this point too
    return std::tuple{before, after};
  });
  auto [b, a] = f(2.f);
  CHECK(b == 1.f);
  CHECK(a == 3.f);
  auto [b2, a2] = f(10.f);
  CHECK(b2 == 3.f);
  CHECK(a2 == 13.f);

  // the seed pattern: old value and the new one in one expression
  sf::variable<float> s{1.f};
  auto h = sf::function([&](auto x) {
    auto old = s.read();
    s.assign(x);
    return old + s;
  });
  CHECK(h(5.f) == 6.f);
  CHECK(s.value() == 5.f);
  CHECK(h(7.f) == 12.f);
}

TEST_CASE("effects run in program order inside a for_range body, with per-iteration snapshots", "[variable][for_range]") {
  sf::variable<std::int64_t> v{0};
  sf::variable<std::int64_t> trail{0};
  auto f = sf::function([&](auto n) {
    sf::for_range(n, [&](auto i) {
      auto previous = v.read();
      v.assign_add(i);              // v_k = v_{k-1} + i
      trail.assign(trail * 10 + previous);  // uses v before this iteration's update
    });
    return v.read();
  });
  // v before each iteration: 0, 0, 1; after: 0, 1, 3
  CHECK(f(std::int64_t{3}) == 3);
  CHECK(trail.value() == 1);  // ((0 * 10 + 0) * 10 + 0) * 10 + 1
  CHECK(f(std::int64_t{2}) == 4);
  CHECK(trail.value() == 1 * 100 + 3 * 10 + 3);
}

TEST_CASE("a read used before a later write of the same iteration sees the current value", "[variable][for_range]") {
  sf::variable<int> v{0};
  sf::variable<int> w{-1};
  sf::variable<int> sum_of_reads{0};
  auto f = sf::function([&](auto n) {
    sf::for_range(n, [&](auto) {
      auto p = v.read();
      w.assign(p);                 // runs before the write below: reads v's storage
      sum_of_reads.assign_add(p);  // likewise
      v.assign_add(1);             // preserves p first (the copy is then stale next iteration)
    });
  });
  f(3);
  CHECK(v.value() == 3);
  CHECK(w.value() == 2);
  CHECK(sum_of_reads.value() == 0 + 1 + 2);
  f(2);
  CHECK(w.value() == 4);
  CHECK(sum_of_reads.value() == 3 + 3 + 4);
}

TEST_CASE("for_range takes symbolic bounds of either integer dtype and two-bound forms", "[for_range]") {
  sf::variable<std::int64_t> sum{0};
  auto f = sf::function([&](auto lo, auto hi) { sf::for_range(lo, hi, [&](auto i) { sum.assign_add(i * i); }); });
  f(std::int64_t{2}, std::int64_t{5});  // 4 + 9 + 16
  CHECK(sum.value() == 29);
  f(std::int64_t{5}, std::int64_t{2});  // empty
  CHECK(sum.value() == 29);

  sf::variable<int> count{0};
  auto g = sf::function([&](auto x) { sf::for_range(sf::size(x), [&](auto) { count.assign_add(1); }); });
  g(xt::xtensor<float, 1>{1.f, 2.f, 3.f, 4.f});
  CHECK(count.value() == 4);

  // outside traced code it is a C++ loop
  sf::variable<int> direct{0};
  sf::for_range(4, [&](int i) { direct.assign_add(i); });
  CHECK(direct.value() == 6);
}

TEST_CASE("vector variables: assign_add of a tensor, assign of a new shape to a dyn variable", "[variable]") {
  sf::variable<float, 3> acc{};
  auto step = sf::function([&](auto x) { acc.assign_add(x * 2.f); return acc.read(); });
  xt::xtensor_fixed<float, xt::xshape<3>> x{1.f, 2.f, 3.f};
  CHECK((step(x) == xt::xtensor_fixed<float, xt::xshape<3>>{2.f, 4.f, 6.f}));
  CHECK((step(x) == xt::xtensor_fixed<float, xt::xshape<3>>{4.f, 8.f, 12.f}));
  auto reset = sf::function([&](auto s) { acc.assign(s); });  // a scalar is broadcast
  reset(-1.f);
  CHECK((acc.value() == xt::xtensor_fixed<float, xt::xshape<3>>{-1.f, -1.f, -1.f}));

  sf::variable<int, sf::dyn> buffer{xt::xtensor<int, 1>{0}};
  auto keep = sf::function([&](auto y) { buffer.assign(y + 1); });
  keep(xt::xtensor<int, 1>{1, 2, 3});
  CHECK((buffer.value() == xt::xtensor<int, 1>{2, 3, 4}));
  auto grow = sf::function([&](auto y) { buffer.assign_add(y); });
  CHECK_THROWS_WITH(grow(xt::xtensor<int, 1>{1, 2}), Catch::Contains("shapes (3,) and (2,)"));
  CHECK((buffer.value() == xt::xtensor<int, 1>{2, 3, 4}));
}

TEST_CASE("a call that throws leaves every variable as it was", "[variable]") {
  sf::variable<int> first{10};
  sf::variable<int, sf::dyn> second{xt::xtensor<int, 1>{1, 2, 3}};
  auto f = sf::function([&](auto y) {
    first.assign_add(5);   // runs, then is undone
    second.assign_add(y);  // throws for a y of another length
    return first.read();
  });
  CHECK(f(xt::xtensor<int, 1>{1, 1, 1}) == 15);
  CHECK_THROWS_AS(f(xt::xtensor<int, 1>{1, 1}), sf::shape_error);
  CHECK(first.value() == 15);
  CHECK((second.value() == xt::xtensor<int, 1>{2, 3, 4}));

  // an error in a later output (after the effects ran) undoes them too
  sf::variable<int> counter{0};
  auto g = sf::function([&](auto a, auto b) {
    counter.assign_add(1);
    return a + b;
  });
  CHECK_THROWS_AS(g(xt::xtensor<int, 1>{1, 2}, xt::xtensor<int, 1>{1, 2, 3}), sf::shape_error);
  CHECK(counter.value() == 0);
}

TEST_CASE("a call's first write of a variable swaps in a spare buffer: nothing is copied, a throw swaps back",
          "[variable][spare]") {
  sf::variable<float, 4> w{{1.f, 2.f, 3.f, 4.f}};
  sf::variable<float, sf::dyn> d{xt::xtensor<float, 1>{1.f, 2.f}};
  const auto& contents = w.value();  // a reference to the contents stays valid across calls
  const float* const first_buffer = w.value().data();
  // (the call returns a tensor, which it allocates after the write: see the next test)
  auto scale = sf::function([&](auto k) {
    w.assign(w * k);
    return k * w.read();
  });
  scale(2.f);
  CHECK((contents == xt::xtensor<float, 1>{2.f, 4.f, 6.f, 8.f}));
  const float* const second_buffer = w.value().data();
  CHECK(second_buffer != first_buffer);  // the new values went to the spare, now the contents
  scale(0.5f);
  CHECK(w.value().data() == first_buffer);  // and back: two buffers, no copy between them
  CHECK((contents == xt::xtensor<float, 1>{1.f, 2.f, 3.f, 4.f}));

  // a read before the write keeps the old values (it stays in the old buffer), after a second
  // write of the same call too (that one goes in place); a later read sees the last write
  auto twice = sf::function([&](auto x) {
    auto before = w.read();
    w.assign_add(x);
    w.assign(w * 10.f);
    auto after = w.read();
    d.assign(x);  // new extents, through d's spare
    return std::tuple{before * 1.f, after * 1.f};
  });
  const auto [before, after] = twice(xt::xtensor<float, 1>{1.f, 1.f, 1.f, 1.f});
  CHECK((before == xt::xtensor<float, 1>{1.f, 2.f, 3.f, 4.f}));
  CHECK((after == xt::xtensor<float, 1>{20.f, 30.f, 40.f, 50.f}));
  CHECK((w.value() == xt::xtensor<float, 1>{20.f, 30.f, 40.f, 50.f}));
  CHECK((d.value() == xt::xtensor<float, 1>{1.f, 1.f, 1.f, 1.f}));

  // the output throws after both writes of w and d's resize: each goes back, w to the buffer it
  // was in, d to its extents
  const float* const held = w.value().data();
  auto failing = sf::function([&](auto x, auto y) {
    w.assign_add(x);
    w.assign(w * 10.f);
    d.assign(x);
    return x + y;  // throws for y of another length, after every effect ran
  });
  CHECK_THROWS_AS(failing(xt::xtensor<float, 1>{1.f, 1.f, 1.f, 1.f}, xt::xtensor<float, 1>{1.f, 2.f}), sf::shape_error);
  CHECK(w.value().data() == held);
  CHECK((w.value() == xt::xtensor<float, 1>{20.f, 30.f, 40.f, 50.f}));
  CHECK((d.value() == xt::xtensor<float, 1>{1.f, 1.f, 1.f, 1.f}));
  // the next call swaps as usual
  CHECK((std::get<1>(twice(xt::xtensor<float, 1>{0.f, 0.f, 0.f, 0.f})) == xt::xtensor<float, 1>{200.f, 300.f, 400.f, 500.f}));

  // a loop writes the first iteration into the spare, the others in place
  sf::variable<float, 4> acc{};
  auto sum = sf::function([&](auto n, auto x) { sf::for_range(n, [&](auto) { acc.assign_add(x); }); });
  sum(3, xt::xtensor<float, 1>{1.f, 2.f, 3.f, 4.f});
  CHECK((acc.value() == xt::xtensor<float, 1>{3.f, 6.f, 9.f, 12.f}));
  sum(0, xt::xtensor<float, 1>{1.f, 2.f, 3.f, 4.f});  // no write: the contents stay
  CHECK((acc.value() == xt::xtensor<float, 1>{3.f, 6.f, 9.f, 12.f}));

  // size 0
  sf::variable<float, sf::dyn> empty{};
  auto keep_empty = sf::function([&](auto x) { empty.assign(x + 1.f); });
  keep_empty(xt::xtensor<float, 1>::from_shape({0}));
  CHECK(empty.value().size() == 0);
  keep_empty(xt::xtensor<float, 1>{1.f});
  CHECK((empty.value() == xt::xtensor<float, 1>{2.f}));
}

TEST_CASE("a first write that nothing after it can undo goes in place, with the same values", "[variable][spare]") {
  sf::variable<float, 4> w{{1.f, 2.f, 3.f, 4.f}};
  sf::variable<float, 4> m{{1.f, 1.f, 1.f, 1.f}};
  sf::variable<std::int64_t> steps{0};
  const float* const w_buffer = w.value().data();
  const float* const m_buffer = m.value().data();
  // elementwise assignments of static shape, then a scalar one, then a scalar result from a
  // scalar: nothing after the first write can throw, so no spare is needed for a rollback
  auto step = sf::function([&](auto k) {
    w.assign(w * k + m);  // reads m before m's write
    m.assign(m * 2.f);
    steps.assign_add(std::int64_t{1});
    return steps.read() * std::int64_t{10};
  });
  CHECK(step(2.f) == 10);
  CHECK((w.value() == xt::xtensor<float, 1>{3.f, 5.f, 7.f, 9.f}));
  CHECK((m.value() == xt::xtensor<float, 1>{2.f, 2.f, 2.f, 2.f}));
  CHECK(w.value().data() == w_buffer);
  CHECK(m.value().data() == m_buffer);
  CHECK(step.get_concrete_function(2.f).effects()->in_place_write_count() == 3);

  // a read from before a write that a later effect reads keeps the old values: that write goes to
  // the spare (w), the other in place (m, whose old values only w's assignment reads)
  auto exchange = sf::function([&]() {
    auto old_w = w.read();
    w.assign(m * 1.f);
    m.assign(old_w * 1.f);
  });
  exchange();
  CHECK((w.value() == xt::xtensor<float, 1>{2.f, 2.f, 2.f, 2.f}));
  CHECK((m.value() == xt::xtensor<float, 1>{3.f, 5.f, 7.f, 9.f}));
  CHECK(w.value().data() != w_buffer);
  CHECK(m.value().data() == m_buffer);
  CHECK(exchange.get_concrete_function().effects()->in_place_write_count() == 1);

  // an effect after the write that can throw (a variable of run-time shape): the write goes to
  // the spare, and a throw puts the old contents back
  sf::variable<float, sf::dyn> d{xt::xtensor<float, 1>{1.f, 2.f, 3.f}};
  const float* const held = w.value().data();
  auto failing = sf::function([&](auto y) {
    w.assign(w * 2.f);
    d.assign_add(y);
  });
  CHECK_THROWS_AS(failing(xt::xtensor<float, 1>{1.f, 2.f}), sf::shape_error);
  CHECK((w.value() == xt::xtensor<float, 1>{2.f, 2.f, 2.f, 2.f}));
  CHECK(w.value().data() == held);
  CHECK((d.value() == xt::xtensor<float, 1>{1.f, 2.f, 3.f}));
  CHECK(failing.get_concrete_function(xt::xtensor<float, 1>{1.f, 2.f}).effects()->in_place_write_count() == 0);

  // a result that can throw (a tensor, allocated after the effects, or call_into's container,
  // checked after them): spare buffers, the same values
  auto returning = sf::function([&](auto k) {
    w.assign(w * k);
    return k * 2.f;
  });
  float out = 0.f;
  returning.call_into(out, 0.5f);
  CHECK(out == 1.f);
  CHECK((w.value() == xt::xtensor<float, 1>{1.f, 1.f, 1.f, 1.f}));
  CHECK(returning(2.f) == 4.f);  // by value: a scalar, so in place
  CHECK((w.value() == xt::xtensor<float, 1>{2.f, 2.f, 2.f, 2.f}));
}

TEST_CASE("an initial value of another shape than the variable's is a shape_error", "[variable]") {
  CHECK_THROWS_WITH((sf::variable<float, 3>{xt::xtensor<float, 1>{1.f, 2.f}}),
                    "staticflow: sf::variable: the initial value has shape (2,), the variable is TensorSpec(shape=(3,), dtype=tf.float32, name=None)");
  CHECK_THROWS_AS((sf::variable<float, 2, sf::dyn>{xt::xtensor<float, 2>::from_shape({3, 5})}), sf::shape_error);
  sf::variable<float, 2, sf::dyn> fits{xt::xtensor<float, 2>::from_shape({2, 5})};
  CHECK(fits.current_extents() == sf::extents<2>{2, 5});
  sf::variable<double, 2, 3> zeros;
  CHECK((zeros.value() == xt::zeros<double>({2, 3})));
}

TEST_CASE("misuse of variables is a trace_error with a message", "[variable]") {
  auto make = sf::function([](auto x) {
    sf::variable<int> inside{1};
    return x + inside;
  });
  CHECK_THROWS_AS(make(1), sf::trace_error);
  CHECK_THROWS_WITH(make(1), Catch::StartsWith("staticflow: an sf::variable was created while a function was traced"));

  sf::variable<int> v{1};
  CHECK_THROWS_WITH(v.read(), Catch::Contains("reading an sf::variable as a symbolic tensor (use value() outside) is only "
                                              "possible inside a traced function"));

  // (effects in cond branches and loop bodies: tests/effects/test_cond_effects.cpp, test_loop_effects.cpp)
  // This test is built without loop effects (tests/CMakeLists.txt): an effect in a loop body says so.
  auto in_loop = sf::function([&](auto x) {
    return sf::while_loop([](auto k) { return k < 3; }, [&](auto k) { v.assign_add(1); return k + 1; }, x);
  });
  CHECK_THROWS_WITH(in_loop(0), "staticflow: effects in sf::while_loop / fori_loop / scan / map_fn bodies are compiled out "
                                "(STATICFLOW_LOOP_EFFECTS=0): define STATICFLOW_LOOP_EFFECTS=1, the default, or loop "
                                "over the effects with sf::for_range");
  CHECK(v.value() == 1);
}

TEST_CASE("concurrent calls that update one variable are serialized", "[variable][threads]") {
  sf::variable<std::int64_t> hits{0};
  auto f = sf::function([&](auto k) { hits.assign_add(k); });
  f(std::int64_t{0});  // trace once
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 500; ++i) f(std::int64_t{1});
    });
  for (auto& t : threads) t.join();
  CHECK(hits.value() == 4000);
  CHECK(f.tracing_count() == 1);
}

TEST_CASE("a function with no arguments and only effects", "[variable]") {
  sf::variable<double> x{1.0};
  auto twice = sf::function([&] { x.assign(x * 2.0); });
  twice();
  twice();
  CHECK(x.value() == 4.0);
  CHECK(twice.get_concrete_function().effects()->effect_count() == 1);
}

TEST_CASE("sf::cond with branches that return nothing runs the effects of one branch", "[variable][cond]") {
  sf::variable<int> positive{0}, negative{0};
  std::ostringstream printed;
  auto f = sf::function([&](auto x) {
    sf::for_range(sf::size(x), [&](auto i) {
      sf::cond(
          x[i] > 0, [&] { positive.assign_add(x[i]); },
          [&] {
            negative.assign_sub(x[i]);
            sf::print(sf::output_stream(printed), "negative at", i, ":", x[i]);
          });
    });
  });
  f(xt::xtensor<int, 1>{3, -1, 4, -5});
  CHECK(positive.value() == 7);
  CHECK(negative.value() == 6);
  CHECK(printed.str() == "negative at 1 : -1\nnegative at 3 : -5\n");
  // at the top level of a function, with a reduction as the predicate
  auto g = sf::function([&](auto y) { sf::cond(sf::reduce_sum(y) > 0, [&] { positive.assign(0); }, [] {}); });
  g(xt::xtensor<int, 1>{-1});
  CHECK(positive.value() == 7);
  g(xt::xtensor<int, 1>{1});
  CHECK(positive.value() == 0);
  CHECK_THROWS_WITH(sf::cond(sf::variable<int>{1} > 0, [] {}, [] {}), Catch::Contains("only possible inside a traced function"));
}

TEST_CASE("a variable is an operand of matmul, reductions and argmax, read where it is used", "[variable]") {
  sf::variable<float, 2, 2> w{{{1.f, 2.f}, {3.f, 4.f}}};
  sf::variable<float, 3> v{{5.f, -1.f, 7.f}};
  auto f = sf::function([&](auto x) {
    auto product = sf::matmul(x, w);        // (1, 2) @ (2, 2)
    auto total = sf::reduce_sum(v);
    auto largest = sf::reduce_max(v, sf::axes<0>{}, sf::keepdims);
    auto where_largest = sf::argmax(v, sf::axes<0>{});
    auto row_sums = sf::reduce_sum(w, 1);  // a run-time axis
    return std::tuple{product, total, largest, where_largest, row_sums};
  });
  xt::xtensor_fixed<float, xt::xshape<1, 2>> x = {{1.f, 1.f}};
  auto [product, total, largest, where_largest, row_sums] = f(x);
  CHECK((product == xt::xtensor<float, 2>{{4.f, 6.f}}));
  CHECK(total == 11.f);
  CHECK((largest == xt::xtensor<float, 1>{7.f}));
  CHECK(where_largest == 2);
  CHECK((row_sums == xt::xtensor<float, 1>{3.f, 7.f}));
  v.assign(xt::xtensor<float, 1>{9.f, 0.f, 1.f});  // the next call reads the new contents
  CHECK(std::get<3>(f(x)) == 0);
}

TEST_CASE("a product assigned to a variable is computed into its next buffer; later writes of the call go through a slot",
          "[variable][spare]") {
  // (backend/cpu/effect_graph.hpp's direct outputs: the value of `v.assign(matmul(...))` is the
  // product's slot, computed straight into v's spare buffer, which the call swaps in at its end)
  sf::variable<float, 2, 2> v{{{1.f, 2.f}, {3.f, 4.f}}};
  sf::variable<float, 2, 2> w{{{0.f, 1.f}, {1.f, 1.f}}};
  auto f = sf::function([&](auto x) {
    v.assign(sf::matmul(x, w));  // the call's first write of v: its spare
    v.assign(sf::matmul(v, w));  // reads v as just written, writes v in place: through a slot
    return v.read() * 1.f;
  });
  const xt::xtensor<float, 2> x{{1.f, 0.f}, {2.f, 1.f}};
  // x·w = [[0, 1], [1, 3]]; (x·w)·w = [[1, 1], [3, 4]]
  CHECK((f(x) == xt::xtensor<float, 2>{{1.f, 1.f}, {3.f, 4.f}}));
  CHECK((v.value() == xt::xtensor<float, 2>{{1.f, 1.f}, {3.f, 4.f}}));
  // a product that reads the variable it replaces reads the contents before the call
  auto g = sf::function([&]() { v.assign(sf::matmul(v, w)); });
  g();
  CHECK((v.value() == xt::xtensor<float, 2>{{1.f, 2.f}, {4.f, 7.f}}));
  // a call that throws after the product was written leaves v as it was
  auto failing = sf::function([&](auto a, auto b) {
    v.assign(sf::matmul(a, w));
    return a + b;
  });
  CHECK_THROWS_AS(failing(x, xt::xtensor<float, 2>{{1.f, 2.f, 3.f}}), sf::shape_error);
  CHECK((v.value() == xt::xtensor<float, 2>{{1.f, 2.f}, {4.f, 7.f}}));
  // new extents of a variable with a run-time dim: the product goes to a staging buffer
  sf::variable<float, sf::dyn, 2> d{xt::xtensor<float, 2>{{1.f, 1.f}}};
  auto resize = sf::function([&](auto a) { d.assign(sf::matmul(a, w)); });
  resize(x);
  CHECK((d.value() == xt::xtensor<float, 2>{{0.f, 1.f}, {1.f, 3.f}}));
}
