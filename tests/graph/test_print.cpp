// Text forms of traced graphs: the jaxpr-like listing (graph_string) and Graphviz (to_dot).
// Sub-graphs, to_code and names: test_listing.cpp.
#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <tuple>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

TEST_CASE("graph_string lists a repeated subexpression once", "[graph][print]") {
  auto f = sf::function([](auto x) {
    auto a = x * x;
    return a + a;
  });
  const auto& c = f.get_concrete_function(sf::spec<float, 3>{});
  CHECK(c.graph_string() ==
        "{ lambda ; a:float32[3]. let\n"
        "    b:float32[3] = Mul a a\n"
        "    c:float32[3] = AddV2 b b\n"
        "  in (c) }\n");
  CHECK(c.to_dot() ==
        "digraph staticflow {\n"
        "  rankdir=TB;\n"
        "  node [shape=box, style=\"rounded,filled\", fillcolor=\"#e9ecef\", fontname=\"sans-serif\"];\n"
        "  a [label=\"arg0\\nfloat32[3]\", shape=ellipse, fillcolor=\"#74c0fc\"];\n"
        "  b [label=\"Mul\\nfloat32[3]\\nfused into output 0\", fillcolor=\"#a5d8ff\"];\n"
        "  a -> b;\n"
        "  a -> b;\n"
        "  c [label=\"AddV2\\nfloat32[3]\\nfused into output 0\", fillcolor=\"#a5d8ff\"];\n"
        "  b -> c;\n"
        "  b -> c;\n"
        "  out0 [label=\"output 0\", shape=ellipse, fillcolor=\"#ffec99\"];\n"
        "  c -> out0;\n"
        "}\n");
}

TEST_CASE("graph_string: structurally equal subexpressions built twice are merged", "[graph][print]") {
  auto f = sf::function([](auto x) { return (x * 2 + 1) * (x * 2 + 1); });
  CHECK(f.get_concrete_function(sf::spec<std::int64_t, 5>{}).graph_string() ==
        "{ lambda ; a:int64[5]. let\n"
        "    b:int64[5] = Mul a 2:int64[]\n"
        "    c:int64[5] = AddV2 b 1:int64[]\n"
        "    d:int64[5] = Mul c c\n"
        "  in (d) }\n");
  // Different literals are different values.
  auto g = sf::function([](auto x) { return x * 2 + x * 3; });
  CHECK(g.get_concrete_function(sf::spec<float, 2>{}).graph_string() ==
        "{ lambda ; a:float32[2]. let\n"
        "    b:float32[2] = Mul a 2.0:float32[]\n"
        "    c:float32[2] = Mul a 3.0:float32[]\n"
        "    d:float32[2] = AddV2 b c\n"
        "  in (d) }\n");
}

TEST_CASE("graph_string writes literals inline with their spec", "[graph][print]") {
  auto f = sf::function([](auto x, auto y) { return x * 2 + y; });
  const auto& c = f.get_concrete_function(sf::spec<float, 2, 3>{}, sf::spec<float, 3>{});
  CHECK(c.graph_string() ==
        "{ lambda ; a:float32[2,3] b:float32[3]. let\n"
        "    c:float32[2,3] = Mul a 2.0:float32[]\n"
        "    d:float32[2,3] = AddV2 c b\n"
        "  in (d) }\n");
  // In dot, a literal is a plaintext node of its own.
  const std::string dot = c.to_dot();
  CHECK_THAT(dot, StartsWith("digraph staticflow {\n"));
  CHECK_THAT(dot, Contains("  a [label=\"arg0\\nfloat32[2,3]\", shape=ellipse, fillcolor=\"#74c0fc\"];\n"
                           "  b [label=\"arg1\\nfloat32[3]\", shape=ellipse, fillcolor=\"#74c0fc\"];\n"));
  CHECK_THAT(dot, Contains("  c [label=\"Mul\\nfloat32[2,3]\\nfused into output 0\", fillcolor=\"#a5d8ff\"];\n"
                           "  a -> c;\n"
                           "  lit0 [label=\"2.0:float32[]\", shape=plaintext, style=\"\"];\n"
                           "  lit0 -> c;\n"));
  CHECK_THAT(dot, Contains("  c -> d;\n  b -> d;\n"));
  CHECK_THAT(dot, Contains("  d -> out0;\n}\n"));
}

TEST_CASE("graph_string formats literals of every dtype", "[graph][print]") {
  auto f = sf::function([](auto x) { return x * 0.1f + x * 1e20f + x * 1e-7; });
  CHECK(f.get_concrete_function(sf::spec<float, 2>{}).graph_string() ==
        "{ lambda ; a:float32[2]. let\n"
        "    b:float32[2] = Mul a 0.1:float32[]\n"
        "    c:float32[2] = Mul a 1e+20:float32[]\n"
        "    d:float32[2] = AddV2 b c\n"
        "    e:float32[2] = Mul a 1e-07:float32[]\n"
        "    f:float32[2] = AddV2 d e\n"
        "  in (f) }\n");

  using sf::graph::detail::format_scalar;
  CHECK(format_scalar(2.0f) == "2.0");
  CHECK(format_scalar(-0.5) == "-0.5");
  CHECK(format_scalar(0.1f) == "0.1");
  CHECK(format_scalar(100.0) == "100.0");
  CHECK(format_scalar(std::numeric_limits<double>::infinity()) == "inf");
  CHECK(format_scalar(std::numeric_limits<float>::quiet_NaN()) == "nan");
  CHECK(format_scalar(std::int32_t{-3}) == "-3");
  CHECK(format_scalar(std::int64_t{10000000000}) == "10000000000");
  CHECK(format_scalar(true) == "True");
  CHECK(format_scalar(false) == "False");
}

TEST_CASE("graph_string: cast is TF's Cast[new_dtype=...]", "[graph][print]") {
  auto f = sf::function([](auto i) { return sf::cast<float>(i) * 0.5; });
  CHECK(f.get_concrete_function(sf::spec<int, sf::dyn>{}).graph_string() ==
        "{ lambda ; a:int32[None]. let\n"
        "    b:float32[None] = Cast[new_dtype=float32] a\n"
        "    c:float32[None] = Mul b 0.5:float32[]\n"
        "  in (c) }\n");
}

TEST_CASE("graph_string: where is TF's SelectV2", "[graph][print]") {
  auto f = sf::function([](auto x) { return sf::where(x > 0, x, 0); });
  const auto& c = f.get_concrete_function(sf::spec<double, 4>{});
  CHECK(c.graph_string() ==
        "{ lambda ; a:float64[4]. let\n"
        "    b:bool[4] = Greater a 0.0:float64[]\n"
        "    c:float64[4] = SelectV2 b a 0.0:float64[]\n"
        "  in (c) }\n");
  // Each inline literal gets its own dot node.
  const std::string dot = c.to_dot();
  CHECK_THAT(dot, Contains("  b [label=\"Greater\\nbool[4]\\nfused into output 0\", fillcolor=\"#a5d8ff\"];\n"
                           "  a -> b;\n"
                           "  lit0 [label=\"0.0:float64[]\", shape=plaintext, style=\"\"];\n"
                           "  lit0 -> b;\n"));
  CHECK_THAT(dot, Contains("  c [label=\"SelectV2\\nfloat64[4]\\nfused into output 0\", fillcolor=\"#a5d8ff\"];\n"
                           "  b -> c;\n"
                           "  a -> c;\n"
                           "  lit1 [label=\"0.0:float64[]\", shape=plaintext, style=\"\"];\n"
                           "  lit1 -> c;\n"));

  auto g = sf::function([](auto x, auto y) { return sf::where(x > y, x - y, y - x) + sf::sqrt(x); });
  CHECK(g.get_concrete_function(sf::spec<float, 2>{}, sf::spec<float, 2>{}).graph_string() ==
        "{ lambda ; a:float32[2] b:float32[2]. let\n"
        "    c:bool[2] = Greater a b\n"
        "    d:float32[2] = Sub a b\n"
        "    e:float32[2] = Sub b a\n"
        "    f:float32[2] = SelectV2 c d e\n"
        "    g:float32[2] = Sqrt a\n"
        "    h:float32[2] = AddV2 f g\n"
        "  in (h) }\n");
}

TEST_CASE("graph_string and to_dot: tuple outputs", "[graph][print]") {
  auto f = sf::function([](auto x, auto y) {
    auto c = x + y;
    auto d = c * x;
    return std::tuple{c, d};
  });
  const auto& c = f.get_concrete_function(sf::spec<float, 2>{}, sf::spec<float, 2>{});
  CHECK(c.graph_string() ==
        "{ lambda ; a:float32[2] b:float32[2]. let\n"
        "    c:float32[2] = AddV2 a b\n"
        "    d:float32[2] = Mul c a\n"
        "  in (c, d) }\n");
  CHECK_THAT(c.to_dot(), Contains("  out0 [label=\"output 0\", shape=ellipse, fillcolor=\"#ffec99\"];\n"
                                  "  c -> out0;\n"
                                  "  out1 [label=\"output 1\", shape=ellipse, fillcolor=\"#ffec99\"];\n"
                                  "  d -> out1;\n"
                                  "}\n"));

  // Equal outputs share one value; an argument may be an output.
  auto g = sf::function([](auto x) { return std::tuple{x > 1, x > 1.0, x + 1, x + 1, x}; });
  CHECK(g.get_concrete_function(sf::spec<int, 2>{}).graph_string() ==
        "{ lambda ; a:int32[2]. let\n"
        "    b:bool[2] = Greater a 1:int32[]\n"
        "    c:bool[2] = Greater a 1.0:float32[]\n"
        "    d:int32[2] = AddV2 a 1:int32[]\n"
        "  in (b, c, d, d, a) }\n");

  auto h = sf::function([](auto x) { return std::tuple{x, x}; });
  const auto& ch = h.get_concrete_function(sf::spec<float, sf::dyn, 2>{});
  CHECK(ch.graph_string() ==
        "{ lambda ; a:float32[None,2]. let\n"
        "  in (a, a) }\n");
  CHECK_THAT(ch.to_dot(), Contains("  a -> out0;\n"));
  CHECK_THAT(ch.to_dot(), Contains("  a -> out1;\n"));
}

TEST_CASE("graph_string: the identity", "[graph][print]") {
  auto f = sf::function([](auto x) { return x; });
  const auto& c = f.get_concrete_function(sf::spec<bool, 2>{});
  CHECK(c.graph_string() ==
        "{ lambda ; a:bool[2]. let\n"
        "  in (a) }\n");
  CHECK(c.to_dot() ==
        "digraph staticflow {\n"
        "  rankdir=TB;\n"
        "  node [shape=box, style=\"rounded,filled\", fillcolor=\"#e9ecef\", fontname=\"sans-serif\"];\n"
        "  a [label=\"arg0\\nbool[2]\", shape=ellipse, fillcolor=\"#74c0fc\"];\n"
        "  out0 [label=\"output 0\", shape=ellipse, fillcolor=\"#ffec99\"];\n"
        "  a -> out0;\n"
        "}\n");
}

TEST_CASE("graph_string: scalar arguments, bool literals and mixed dtypes", "[graph][print]") {
  auto f = sf::function([](auto b, auto s) { return std::tuple{b && true, sf::cast<long long>(s) * 3}; });
  CHECK(f.get_concrete_function(sf::spec<bool, 2>{}, 1.5).graph_string() ==
        "{ lambda ; a:bool[2] b:float64[]. let\n"
        "    c:bool[2] = LogicalAnd a True:bool[]\n"
        "    d:int64[] = Cast[new_dtype=int64] b\n"
        "    e:int64[] = Mul d 3:int64[]\n"
        "  in (c, e) }\n");

  auto g = sf::function([](auto a, auto b, auto c) { return -(a + b) * c + 1e-3; });
  CHECK(g.get_concrete_function(sf::spec<float>{}, sf::spec<float>{}, sf::spec<double>{}).graph_string() ==
        "{ lambda ; a:float32[] b:float32[] c:float64[]. let\n"
        "    d:float32[] = AddV2 a b\n"
        "    e:float32[] = Neg d\n"
        "    f:float64[] = Mul e c\n"
        "    g:float64[] = AddV2 f 0.001:float64[]\n"
        "  in (g) }\n");
}

TEST_CASE("graph_string: a static value is no parameter, it is inlined as a literal", "[graph][print]") {
  auto f = sf::function([](auto x, auto n) { return x * n; });
  const std::string s = f.get_concrete_function(sf::spec<int, 2>{}, sf::static_value<3>{}).graph_string();
  CHECK_THAT(s, StartsWith("{ lambda ; a:int32[2]. let\n"));
  CHECK_THAT(s, Contains(":int32[2] = Mul a 3:int32[]\n"));

  auto g = sf::function([](auto n, auto x) { return x + n; });
  const std::string t = g.get_concrete_function(sf::static_value<-4>{}, sf::spec<float, 2>{}).graph_string();
  CHECK_THAT(t, Contains(" = AddV2 "));
  CHECK_THAT(t, Contains(" -4.0:float32[]\n"));
  CHECK_THAT(t, !Contains("Literal"));
}

TEST_CASE("graph_string and to_dot name ops as TF does; to_code keeps the C++ API's names", "[graph][print]") {
  using sf::graph::detail::tf_op_text;
  CHECK(tf_op_text("div", "float32[3]") == "RealDiv");
  CHECK(tf_op_text("div", "int32[3]") == "Div");  // C++'s `/` on integers truncates, as TF's Div
  CHECK(tf_op_text("dot_general", "float32[2,3]") == "MatMul");
  CHECK(tf_op_text("dot_general", "float64[]") == "MatMul");
  CHECK(tf_op_text("dot_general", "float32[4,2,3]") == "BatchMatMulV2");
  CHECK(tf_op_text("reduce_sum[axes=(0,)]", "float32[]") == "Sum[axes=(0,)]");
  CHECK(tf_op_text("cond", "(int32[], float32[3])") == "If");
  CHECK(tf_op_text("Conv2D[strides=1,1, padding=VALID]", "float32[1,2,2,1]") == "Conv2D[strides=1,1, padding=VALID]");
  CHECK(tf_op_text("materialize", "float32[2]") == "materialize");  // staticflow's own
  CHECK(tf_op_text("addition", "float32[2]") == "addition");       // whole names only

  auto f = sf::function([](auto a, auto b, auto i) { return sf::matmul(a / b, b) + sf::cast<float>(i / 2); });
  const auto& c = f.get_concrete_function(sf::spec<float, 2, 2>{}, sf::spec<float, 2, 2>{}, sf::spec<int, 2, 2>{});
  CHECK(c.graph_string() ==
        "{ lambda ; a:float32[2,2] b:float32[2,2] c:int32[2,2]. let\n"
        "    d:float32[2,2] = RealDiv a b\n"
        "    e:float32[2,2] = MatMul d b\n"
        "    f:int32[2,2] = Div c 2:int32[]\n"
        "    g:float32[2,2] = Cast[new_dtype=float32] f\n"
        "    h:float32[2,2] = AddV2 e g\n"
        "  in (h) }\n");
  CHECK_THAT(c.to_dot(), Contains("  e [label=\"MatMul\\nfloat32[2,2]\\nmaterialized\""));
  const std::string code = c.to_code();
  CHECK_THAT(code, Contains("auto d = a / b;"));
  CHECK_THAT(code, Contains("auto e = sf::matmul(d, b);"));
  CHECK_THAT(code, Contains("auto g = sf::cast<float>(f);"));
}

TEST_CASE("ssa_name: lower-case letters, unique per id", "[graph][print]") {
  using sf::graph::detail::ssa_name;
  CHECK(ssa_name(0) == "a");
  CHECK(ssa_name(1) == "b");
  CHECK(ssa_name(25) == "z");
  std::set<std::string> seen;
  std::size_t bad = 0;
  for (std::size_t id = 0; id < 30000; ++id) {
    const std::string s = ssa_name(id);
    if (s.empty() || s.find_first_not_of("abcdefghijklmnopqrstuvwxyz") != std::string::npos) ++bad;
    seen.insert(s);
  }
  CHECK(bad == 0);
  CHECK(seen.size() == 30000);
  // Names are ordered by length: ids 0-25 have one letter, then two letters.
  CHECK(ssa_name(26).size() == 2);
  CHECK(ssa_name(26 + 26 * 26 - 1).size() == 2);
  CHECK(ssa_name(26 + 26 * 26).size() == 3);
}
