// Tests for control/cond.hpp: sf::cond and sf::switch_case with the seeds' values, only the taken
// branch running (counted), trace-time predicates, tuples, nesting and run-time shapes.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;
using Catch::Matchers::Contains;

TEST_CASE("seed 000: conditional_function takes abs for a positive sum and square otherwise", "[cond][seed]") {
  auto conditional_function = sf::function([](auto x) {
    return sf::cond(sf::reduce_sum(x) > 0, [&] { return sf::abs(x); }, [&] { return sf::square(x); });
  });
  xt::xtensor_fixed<int, xt::xshape<3>> pos = {1, 2, -1}, neg = {-1, -2, 1};
  CHECK((conditional_function(pos) == xt::xtensor_fixed<int, xt::xshape<3>>{1, 2, 1}));
  CHECK((conditional_function(neg) == xt::xtensor_fixed<int, xt::xshape<3>>{1, 4, 1}));
  CHECK((conditional_function.tracing_count() == 1));
}

TEST_CASE("seed 000: func's picture: the cond with its abs and square branches, and to_code", "[cond][seed]") {
  // the seed draws func(x) as reduce_sum -> > 0 -> tf.cond with tf.abs and tf.square branches;
  // to_dot draws that graph (the branches as clusters) and to_code shows the converted program,
  // as tf.autograph.to_code does
  auto func = sf::function([](auto x) {
    return sf::cond(sf::reduce_sum(x) > 0, [&] { return sf::abs(x); }, [&] { return sf::square(x); });
  }, sf::arg_names("x"), sf::function_name("func"));
  const auto& c = func.get_concrete_function(sf::spec<int, 3>{});
  CHECK(c.graph_string() ==
        "func = { lambda ; x:int32[3]. let\n"
        "    a:int32[] = Sum[axes=(0,)] x\n"
        "    b:bool[] = Greater a 0:int32[]\n"
        "    c:(int32[3]) = If[\n"
        "      true_fn={ lambda ; . let\n"
        "          d:int32[3] = Abs x\n"
        "        in (d) }\n"
        "      false_fn={ lambda ; . let\n"
        "          e:int32[3] = Square x\n"
        "        in (e) }\n"
        "    ] b\n"
        "    f:int32[3] = get[0] c\n"
        "  in (f) }\n");
  const std::string dot = c.to_dot();
  CHECK_THAT(dot, Contains("  c [label=\"If\\n(int32[3])\\nmaterialized\", fillcolor=\"#ffc078\"];\n"
                           "  b -> c;\n"
                           "  subgraph cluster_c_0 {\n"
                           "    label=\"If true_fn\";\n"
                           "    style=dashed;\n"
                           "    d [label=\"Abs\\nint32[3]\\nfused into true_fn output 0\", fillcolor=\"#a5d8ff\"];\n"
                           "  }\n"
                           "  x -> d;\n"
                           "  d -> c [style=dashed];\n"
                           "  subgraph cluster_c_1 {\n"
                           "    label=\"If false_fn\";\n"
                           "    style=dashed;\n"
                           "    e [label=\"Square\\nint32[3]\\nfused into false_fn output 0\", fillcolor=\"#a5d8ff\"];\n"
                           "  }\n"
                           "  x -> e;\n"
                           "  e -> c [style=dashed];\n"));
  CHECK(c.to_code() ==
        "auto func(int32[3] x) {\n"
        "  auto a = sf::reduce_sum(x /* axes=(0,) */);  // int32[]: materialized\n"
        "  auto b = a > 0;  // bool[]: fused into c\n"
        "  auto c = sf::cond(b,\n"
        "      [&] {\n"
        "        auto d = sf::abs(x);  // int32[3]: fused into true_fn output 0\n"
        "        return d;\n"
        "      },\n"
        "      [&] {\n"
        "        auto e = sf::square(x);  // int32[3]: fused into false_fn output 0\n"
        "        return e;\n"
        "      });  // (int32[3]): materialized\n"
        "  auto f = std::get<0>(c);  // int32[3]: a view\n"
        "  return f;\n"
        "}\n");
  xt::xtensor_fixed<int, xt::xshape<3>> pos = {1, 2, -1};
  CHECK((func(pos) == xt::xtensor_fixed<int, xt::xshape<3>>{1, 2, 1}));
}

TEST_CASE("seed 001: f(-2) with x * x and -x // 2 gives 1", "[cond][seed]") {
  auto f = sf::function([](auto x) {
    return sf::cond(sf::reduce_sum(x) > 0, [&] { return x * x; }, [&] { return sf::floordiv(-x, 2); });
  });
  CHECK((f(-2) == 1));
  CHECK((f(3) == 9));
  CHECK((f(-3) == 1));  // 3 // 2
  CHECK((f(0) == 0));
}

TEST_CASE("only the taken branch runs: its materialized nodes are computed only then", "[cond]") {
  auto f = sf::function([](auto x) {
    return sf::cond(sf::reduce_sum(x) > 0.f, [&] { return x / sf::reduce_max(x); }, [&] { return x; });
  });
  xt::xtensor<float, 1> pos = {1, 2, 4}, neg = {-1, -2, 1};
  (void)f(pos);  // trace
  auto before = sf::plan::materialization_counter();
  CHECK((f(pos) == xt::xtensor<float, 1>{0.25f, 0.5f, 1.f}));
  CHECK((sf::plan::materialization_counter() - before == 3));  // reduce_sum, cond, reduce_max
  before = sf::plan::materialization_counter();
  CHECK((f(neg) == neg));
  CHECK((sf::plan::materialization_counter() - before == 2));  // reduce_sum, cond
}

TEST_CASE("a branch that would throw throws only when taken", "[cond]") {
  auto f = sf::function([](auto x, auto i) { return sf::cond(i >= 0, [&] { return x[i]; }, [&] { return x[0] * 0.f; }); });
  xt::xtensor<float, 1> x = {1, 2, 3};
  CHECK((f(x, 2) == 3.f));
  CHECK((f(x, -5) == 0.f));  // the false branch: x[-5] is never evaluated
  CHECK_THROWS_WITH(f(x, 7), "staticflow: x[i]: index 7 is out of range for an axis of size 3");
}

TEST_CASE("a cond used several times is computed once per call", "[cond]") {
  auto f = sf::function([](auto x) {
    auto c = sf::cond(sf::reduce_sum(x) > 0, [&] { return x * 2; }, [&] { return x * 3; });
    return c + c * c;
  });
  xt::xtensor_fixed<int, xt::xshape<2>> x = {1, 2};
  (void)f(x);
  const auto before = sf::plan::materialization_counter();
  CHECK((f(x) == xt::xtensor_fixed<int, xt::xshape<2>>{2 + 4, 4 + 16}));
  CHECK((sf::plan::materialization_counter() - before == 2));  // reduce_sum and one cond
}

TEST_CASE("branches may return tuples; the results come back as a tuple", "[cond]") {
  auto f = sf::function([](auto x, auto y) {
    auto [a, b] = sf::cond(x > y, [&] { return std::tuple{x, y}; }, [&] { return std::tuple{y, x}; });
    return std::tuple{a, b - 1.0};
  });
  auto [hi, lo] = f(2.0, 5.0);
  CHECK((hi == 5.0));
  CHECK((lo == 1.0));
  auto [hi2, lo2] = f(7.0, 5.0);
  CHECK((hi2 == 7.0));
  CHECK((lo2 == 4.0));
}

TEST_CASE("a C++ number returned by a branch is a literal of the other branch's dtype", "[cond]") {
  auto f = sf::function([](auto x) { return sf::cond(x > 0.f, [&] { return x; }, [&] { return 0.f; }); });
  CHECK((f(2.5f) == 2.5f));
  CHECK((f(-2.5f) == 0.f));
}

TEST_CASE("a std::bool_constant predicate traces only the branch it picks", "[cond]") {
  int true_traces = 0, false_traces = 0;
  auto f = sf::function([&](auto x, auto flag) {
    return sf::cond(flag, [&] { ++true_traces; return x * 2; }, [&] { ++false_traces; return sf::cast<float>(x); });
  });
  CHECK((f(3, sf::static_value<true>{}) == 6));  // an int result: the branches need not agree
  CHECK((f(3, sf::static_value<false>{}) == 3.f));
  CHECK((true_traces == 1));
  CHECK((false_traces == 1));
  (void)f(4, sf::static_value<true>{});
  CHECK((true_traces == 1));  // no retrace
}

TEST_CASE("a C++ bool predicate is a trace-time if", "[cond]") {
  bool double_it = true;
  int traces = 0;
  auto f = sf::function([&](auto x) {
    ++traces;
    return sf::cond(double_it, [&] { return x * 2; }, [&] { return x * 3; });
  });
  CHECK((f(5) == 10));
  double_it = false;
  CHECK((f(5) == 10));  // the graph was traced with the true branch: the C++ value is not re-read
  CHECK((traces == 1));
}

TEST_CASE("nested conds and conds over run-time shapes", "[cond]") {
  auto sign = sf::function([](auto x) {
    return sf::cond(x > 0, [&] { return 1; },
                    [&] { return sf::cond(x < 0, [&] { return -1; }, [&] { return x * 0; }); });
  });
  CHECK((sign(7) == 1));
  CHECK((sign(-7) == -1));
  CHECK((sign(0) == 0));
  auto f = sf::function([](auto x) {
    return sf::cond(sf::reduce_any(x > 10.f), [&] { return x - 10.f; }, [&] { return x + 10.f; });
  });
  xt::xtensor<float, 2> small = {{1, 2}, {3, 4}}, big = {{1, 20}, {3, 4}, {5, 6}};
  CHECK((f(small) == xt::xtensor<float, 2>{{11, 12}, {13, 14}}));
  CHECK((f(big) == xt::xtensor<float, 2>{{-9, 10}, {-7, -6}, {-5, -4}}));
  CHECK((f.tracing_count() == 1));
}

TEST_CASE("switch_case runs the indexed branch, the last one when out of range", "[cond][switch_case]") {
  auto f = sf::function([](auto i, auto x) {
    return sf::switch_case(i, [&] { return x + 1; }, [&] { return x * 10; }, [&] { return -x; });
  });
  CHECK((f(0, 5) == 6));
  CHECK((f(1, 5) == 50));
  CHECK((f(2, 5) == -5));
  CHECK((f(3, 5) == -5));   // out of range: the last branch (tf.switch_case)
  CHECK((f(-1, 5) == -5));
  CHECK((f(std::int64_t{1}, 5) == 50));
  // a static index traces only its branch
  int traces = 0;
  auto g = sf::function([&](auto x) {
    return sf::switch_case(sf::static_value<1>{}, [&] { ++traces; return x; }, [&] { return x * 2.f; });
  });
  CHECK((g(2.f) == 4.f));
  CHECK((traces == 0));
}

TEST_CASE("the listing shows the cond node", "[cond][print]") {
  auto f = sf::function([](auto x) { return sf::cond(x > 0, [&] { return x; }, [&] { return -x; }); });
  const std::string s = f.get_concrete_function(1).graph_string();
  CHECK(s.find(" = If[\n") != std::string::npos);  // TF's name for the op
  CHECK(s.find(" = Greater a 0:int32[]\n") != std::string::npos);
}
