// Listings of what was traced (graph/listing.hpp): loop conditions and bodies and cond branches
// under their node (graph_string), as clusters (to_dot), and as C++-ish code (to_code, the analog
// of tf.autograph.to_code); each node marked fused, materialized or a view; sf::arg_names and
// sf::function_name in all three.
#include <catch2/catch.hpp>

#include <cstddef>
#include <string>
#include <tuple>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {
std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// A while_loop, then a cond over its result, then both results used again.
constexpr auto loop_then_branch = [](auto n, auto x) {
  const auto loop = sf::while_loop([](auto k, auto) { return k < 10; },
                                   [](auto k, auto v) { return std::tuple{k + 1, v * 2.f + 1.f}; }, n, x);
  const auto i = std::get<0>(loop), y = std::get<1>(loop);  // (clang 14 cannot capture structured bindings)
  auto z = sf::cond(sf::reduce_sum(y) > 0.f, [&] { return sf::exp(y); }, [&] { return y - 1.f; });
  return z + sf::cast<float>(i);
};
}  // namespace

TEST_CASE("graph_string lists a loop's condition and body and a cond's branches under their node",
          "[graph][listing]") {
  auto f = sf::function(loop_then_branch, sf::arg_names("n", "x"), sf::function_name("f"));
  const auto& c = f.get_concrete_function(sf::spec<int>{}, sf::spec<float, sf::dyn>{});
  // the loop is listed once although two results of it are read; the branches read `j` from
  // outside, as closures; `n` is an argument's name, so no equation takes it
  CHECK(c.graph_string() ==
        "f = { lambda ; n:int32[] x:float32[None]. let\n"
        "    a:(int32[], float32[None]) = While[\n"
        "      cond={ lambda ; b:int32[] c:float32[None]. let\n"
        "          d:bool[] = Less b 10:int32[]\n"
        "        in (d) }\n"
        "      body={ lambda ; e:int32[] f:float32[None]. let\n"
        "          g:int32[] = AddV2 e 1:int32[]\n"
        "          h:float32[None] = Mul f 2.0:float32[]\n"
        "          i:float32[None] = AddV2 h 1.0:float32[]\n"
        "        in (g, i) }\n"
        "    ] n x\n"
        "    j:float32[None] = get[1] a\n"
        "    k:float32[] = Sum[axes=(0,)] j\n"
        "    l:bool[] = Greater k 0.0:float32[]\n"
        "    m:(float32[None]) = If[\n"
        "      true_fn={ lambda ; . let\n"
        "          o:float32[None] = Exp j\n"
        "        in (o) }\n"
        "      false_fn={ lambda ; . let\n"
        "          p:float32[None] = Sub j 1.0:float32[]\n"
        "        in (p) }\n"
        "    ] l\n"
        "    q:float32[None] = get[0] m\n"
        "    r:int32[] = get[0] a\n"
        "    s:float32[] = Cast[new_dtype=float32] r\n"
        "    t:float32[None] = AddV2 q s\n"
        "  in (t) }\n");
  xt::xtensor<float, 1> x = {-1.f, -2.f, -3.f};
  CHECK((f(3, x) == xt::xtensor<float, 1>{8.f, -120.f, -248.f}));  // 7 steps of 2v+1, a negative sum: v-1, + 10
}

TEST_CASE("to_code writes the traced program as C++, each value's evaluation in a comment", "[graph][listing]") {
  auto f = sf::function(loop_then_branch, sf::arg_names("n", "x"), sf::function_name("f"));
  const auto& c = f.get_concrete_function(sf::spec<int>{}, sf::spec<float, sf::dyn>{});
  CHECK(c.to_code() ==
        "auto f(int32[] n, float32[None] x) {\n"
        "  auto a = sf::while_loop(\n"
        "      [&](auto b, auto c) {\n"
        "        auto d = b < 10;  // bool[]: fused into cond output 0\n"
        "        return d;\n"
        "      },\n"
        "      [&](auto e, auto f) {\n"
        "        auto g = e + 1;  // int32[]: fused into body output 0\n"
        "        auto h = f * 2.0f;  // float32[None]: fused into body output 1\n"
        "        auto i = h + 1.0f;  // float32[None]: fused into body output 1\n"
        "        return std::tuple{g, i};\n"
        "      },\n"
        "      n, x);  // (int32[], float32[None]): materialized\n"
        "  auto j = std::get<1>(a);  // float32[None]: a view\n"
        "  auto k = sf::reduce_sum(j /* axes=(0,) */);  // float32[]: materialized\n"
        "  auto l = k > 0.0f;  // bool[]: fused into m\n"
        "  auto m = sf::cond(l,\n"
        "      [&] {\n"
        "        auto o = sf::exp(j);  // float32[None]: fused into true_fn output 0\n"
        "        return o;\n"
        "      },\n"
        "      [&] {\n"
        "        auto p = j - 1.0f;  // float32[None]: fused into false_fn output 0\n"
        "        return p;\n"
        "      });  // (float32[None]): materialized\n"
        "  auto q = std::get<0>(m);  // float32[None]: a view\n"
        "  auto r = std::get<0>(a);  // int32[]: a view\n"
        "  auto s = sf::cast<float>(r);  // float32[]: fused into output 0\n"
        "  auto t = q + s;  // float32[None]: fused into output 0\n"
        "  return t;\n"
        "}\n");
}

TEST_CASE("to_dot draws sub-graphs as clusters and marks fused, materialized and view nodes", "[graph][listing]") {
  auto f = sf::function(loop_then_branch, sf::arg_names("n", "x"), sf::function_name("f"));
  const std::string dot = f.get_concrete_function(sf::spec<int>{}, sf::spec<float, sf::dyn>{}).to_dot();
  CHECK_THAT(dot, StartsWith("digraph staticflow {\n"
                             "  rankdir=TB;\n"
                             "  label=\"f\";\n"
                             "  labelloc=t;\n"));
  CHECK_THAT(dot, Contains("  n [label=\"n\\nint32[]\", shape=ellipse, fillcolor=\"#74c0fc\"];\n"
                           "  x [label=\"x\\nfloat32[None]\", shape=ellipse, fillcolor=\"#74c0fc\"];\n"
                           "  a [label=\"While\\n(int32[], float32[None])\\nmaterialized\", fillcolor=\"#ffc078\"];\n"
                           "  n -> a;\n"
                           "  x -> a;\n"));
  // the cluster holds its own nodes only; its edges follow it, so that an outer value a branch
  // reads stays outside
  CHECK_THAT(dot, Contains("  subgraph cluster_a_0 {\n"
                           "    label=\"While cond\";\n"
                           "    style=dashed;\n"
                           "    b [label=\"b\\nint32[]\", shape=ellipse, fillcolor=\"#74c0fc\"];\n"
                           "    c [label=\"c\\nfloat32[None]\", shape=ellipse, fillcolor=\"#74c0fc\"];\n"
                           "    d [label=\"Less\\nbool[]\\nfused into cond output 0\", fillcolor=\"#a5d8ff\"];\n"
                           "    lit0 [label=\"10:int32[]\", shape=plaintext, style=\"\"];\n"
                           "  }\n"
                           "  b -> d;\n"
                           "  lit0 -> d;\n"
                           "  d -> a [style=dashed];\n"
                           "  subgraph cluster_a_1 {\n"
                           "    label=\"While body\";\n"));
  CHECK_THAT(dot, Contains("  subgraph cluster_m_0 {\n"
                           "    label=\"If true_fn\";\n"
                           "    style=dashed;\n"
                           "    o [label=\"Exp\\nfloat32[None]\\nfused into true_fn output 0\", fillcolor=\"#a5d8ff\"];\n"
                           "  }\n"
                           "  j -> o;\n"
                           "  o -> m [style=dashed];\n"));
  CHECK_THAT(dot, Contains("  j [label=\"get[1]\\nfloat32[None]\\nview\", fillcolor=\"#e9ecef\"];\n"));
  CHECK_THAT(dot, Contains("  k [label=\"Sum[axes=(0,)]\\nfloat32[]\\nmaterialized\", fillcolor=\"#ffc078\"];\n"));
  CHECK_THAT(dot, Contains("  t [label=\"AddV2\\nfloat32[None]\\nfused into output 0\", fillcolor=\"#a5d8ff\"];\n"
                           "  q -> t;\n"
                           "  s -> t;\n"
                           "  out0 [label=\"output 0\", shape=ellipse, fillcolor=\"#ffec99\"];\n"
                           "  t -> out0;\n"
                           "}\n"));
  CHECK(occurrences(dot, "subgraph cluster_") == 4);
  CHECK(occurrences(dot, " -> a [style=dashed];\n") == 3);  // cond's result and body's two
}

TEST_CASE("without sf::arg_names and sf::function_name, listings use letters, arg0 and fn", "[graph][listing]") {
  auto f = sf::function(loop_then_branch);
  const auto& c = f.get_concrete_function(sf::spec<int>{}, sf::spec<float, sf::dyn>{});
  const std::string listing = c.graph_string();
  CHECK_THAT(listing, StartsWith("{ lambda ; a:int32[] b:float32[None]. let\n"
                                 "    c:(int32[], float32[None]) = While[\n"
                                 "      cond={ lambda ; d:int32[] e:float32[None]. let\n"));
  CHECK_THAT(listing, Contains("    n:bool[] = Greater m 0.0:float32[]\n"));  // n is free here
  CHECK_THAT(c.to_dot(), Contains("  a [label=\"arg0\\nint32[]\", shape=ellipse, fillcolor=\"#74c0fc\"];\n"));
  CHECK_THAT(c.to_dot(), !Contains("labelloc"));
  CHECK_THAT(c.to_code(), StartsWith("auto fn(int32[] a, float32[None] b) {\n"));
}

TEST_CASE("equations skip the letters sf::arg_names gives", "[graph][listing]") {
  auto f = sf::function([](auto x, auto y) { return x * y + x; }, sf::arg_names("c", "b"));
  const auto& c = f.get_concrete_function(sf::spec<float, 2>{}, sf::spec<float, 2>{});
  CHECK(c.graph_string() ==
        "{ lambda ; c:float32[2] b:float32[2]. let\n"
        "    a:float32[2] = Mul c b\n"
        "    d:float32[2] = AddV2 a c\n"
        "  in (d) }\n");
  CHECK(c.to_code() ==
        "auto fn(float32[2] c, float32[2] b) {\n"
        "  auto a = c * b;  // float32[2]: fused into output 0\n"
        "  auto d = a + c;  // float32[2]: fused into output 0\n"
        "  return d;\n"
        "}\n");
}

TEST_CASE("a value read by a materialized node and by an output is fused into both loops", "[graph][listing]") {
  auto f = sf::function([](auto x) {
    auto y = x * 2.f;
    return std::tuple{sf::reduce_sum(y) + y, sf::maximum(x, 0.f)};
  });
  const auto& c = f.get_concrete_function(sf::spec<float, 4>{});
  CHECK(c.to_code() ==
        "auto fn(float32[4] a) {\n"
        "  auto b = a * 2.0f;  // float32[4]: fused into c, output 0\n"
        "  auto c = sf::reduce_sum(b /* axes=(0,) */);  // float32[]: materialized\n"
        "  auto d = c + b;  // float32[4]: fused into output 0\n"
        "  auto e = sf::maximum(a, 0.0f);  // float32[4]: fused into output 1\n"
        "  return std::tuple{d, e};\n"
        "}\n");
}

TEST_CASE("switch_case lists its branches by index; nested loops nest their blocks", "[graph][listing]") {
  auto f = sf::function([](auto i, auto x) {
    return sf::switch_case(
        i, [&] { return x + 1.f; }, [&] { return x * 2.f; },
        [&] { return sf::while_loop([](auto v) { return sf::reduce_max(v) < 100.f; }, [](auto v) { return v * v; }, x); });
  });
  const auto& c = f.get_concrete_function(sf::spec<int>{}, sf::spec<float, 3>{});
  CHECK(c.graph_string() ==
        "{ lambda ; a:int32[] b:float32[3]. let\n"
        "    c:(float32[3]) = Case[\n"
        "      branch0={ lambda ; . let\n"
        "          d:float32[3] = AddV2 b 1.0:float32[]\n"
        "        in (d) }\n"
        "      branch1={ lambda ; . let\n"
        "          e:float32[3] = Mul b 2.0:float32[]\n"
        "        in (e) }\n"
        "      branch2={ lambda ; . let\n"
        "          f:(float32[3]) = While[\n"
        "            cond={ lambda ; g:float32[3]. let\n"
        "                h:float32[] = Max[axes=(0,)] g\n"
        "                i:bool[] = Less h 100.0:float32[]\n"
        "              in (i) }\n"
        "            body={ lambda ; j:float32[3]. let\n"
        "                k:float32[3] = Mul j j\n"
        "              in (k) }\n"
        "          ] b\n"
        "          l:float32[3] = get[0] f\n"
        "        in (l) }\n"
        "    ] a\n"
        "    m:float32[3] = get[0] c\n"
        "  in (m) }\n");
  xt::xtensor_fixed<float, xt::xshape<3>> x = {1.5f, 2.f, 3.f};
  CHECK((f(2, x) == xt::xtensor_fixed<float, xt::xshape<3>>{25.62890625f, 256.f, 6561.f}));
  CHECK((f(7, x) == f(2, x)));  // an index out of range runs the last branch, as TF's
  CHECK((f(1, x) == xt::xtensor_fixed<float, xt::xshape<3>>{3.f, 4.f, 6.f}));
}

TEST_CASE("loops that differ only in their bodies are listed apart; equal ones once", "[graph][listing]") {
  auto f = sf::function([](auto x) {
    auto step = [](auto k, auto v) { return std::tuple{k + 1, v + 1.f}; };
    auto other_step = [](auto k, auto v) { return std::tuple{k + 1, v + 2.f}; };
    auto below = [](auto k, auto) { return k < 3; };
    auto a = std::get<1>(sf::while_loop(below, step, 0, x));
    auto b = std::get<1>(sf::while_loop(below, other_step, 0, x));
    auto same = std::get<1>(sf::while_loop(below, step, 0, x));  // the same loop traced again
    return a + b + same;
  });
  const auto& c = f.get_concrete_function(sf::spec<float, 2>{});
  CHECK(c.graph_string() ==
        "{ lambda ; a:float32[2]. let\n"
        "    b:(int32[], float32[2]) = While[\n"
        "      cond={ lambda ; c:int32[] d:float32[2]. let\n"
        "          e:bool[] = Less c 3:int32[]\n"
        "        in (e) }\n"
        "      body={ lambda ; f:int32[] g:float32[2]. let\n"
        "          h:int32[] = AddV2 f 1:int32[]\n"
        "          i:float32[2] = AddV2 g 1.0:float32[]\n"
        "        in (h, i) }\n"
        "    ] 0:int32[] a\n"
        "    j:float32[2] = get[1] b\n"
        "    k:(int32[], float32[2]) = While[\n"
        "      cond={ lambda ; l:int32[] m:float32[2]. let\n"
        "          n:bool[] = Less l 3:int32[]\n"
        "        in (n) }\n"
        "      body={ lambda ; o:int32[] p:float32[2]. let\n"
        "          q:int32[] = AddV2 o 1:int32[]\n"
        "          r:float32[2] = AddV2 p 2.0:float32[]\n"
        "        in (q, r) }\n"
        "    ] 0:int32[] a\n"
        "    s:float32[2] = get[1] k\n"
        "    t:float32[2] = AddV2 j s\n"
        "    u:float32[2] = AddV2 t j\n"  // the third loop is the first
        "  in (u) }\n");
  xt::xtensor_fixed<float, xt::xshape<2>> x = {0.f, 1.f};
  CHECK((f(x) == xt::xtensor_fixed<float, xt::xshape<2>>{12.f, 15.f}));
}

TEST_CASE("a concrete function chosen at run time gives the same listings", "[graph][listing]") {
  auto f = sf::function<sf::ranks<0, 1>>([](auto x) { return sf::fori_loop(0, 3, [](auto, auto v) { return v * 2.f; }, x); },
                                         sf::arg_names("x"));
  auto ref = f.get_concrete_function(xt::xarray<float>{1.f, 2.f});
  const auto& direct = f.get_concrete_function(xt::xtensor<float, 1>{1.f, 2.f});
  CHECK(ref.graph_string() == direct.graph_string());
  CHECK(ref.to_code() == direct.to_code());
  CHECK(ref.to_dot() == direct.to_dot());
  CHECK_THAT(ref.graph_string(), StartsWith("{ lambda ; x:float32[None]. let\n"));
  CHECK_THAT(ref.to_code(), Contains("sf::while_loop(\n"));
}

TEST_CASE("a branch that returns an outer value is still drawn, as what it returns", "[graph][listing]") {
  auto f = sf::function([](auto x) { return sf::cond(sf::reduce_sum(x) > 0.f, [&] { return x; }, [&] { return -x; }); });
  const auto& c = f.get_concrete_function(sf::spec<float, 2>{});
  CHECK(c.graph_string() ==
        "{ lambda ; a:float32[2]. let\n"
        "    b:float32[] = Sum[axes=(0,)] a\n"
        "    c:bool[] = Greater b 0.0:float32[]\n"
        "    d:(float32[2]) = If[\n"
        "      true_fn={ lambda ; . let\n"
        "        in (a) }\n"
        "      false_fn={ lambda ; . let\n"
        "          e:float32[2] = Neg a\n"
        "        in (e) }\n"
        "    ] c\n"
        "    f:float32[2] = get[0] d\n"
        "  in (f) }\n");
  CHECK_THAT(c.to_dot(), Contains("  subgraph cluster_d_0 {\n"
                                  "    label=\"If true_fn\";\n"
                                  "    style=dashed;\n"
                                  "    d_0 [label=\"returns a\", shape=plaintext, style=\"\"];\n"
                                  "  }\n"
                                  "  a -> d [style=dashed];\n"));
  CHECK_THAT(c.to_code(), Contains("  auto d = sf::cond(c,\n"
                                   "      [&] {\n"
                                   "        return a;\n"
                                   "      },\n"));
}

TEST_CASE("a function that returns nothing lists no results and no return", "[graph][listing]") {
  sf::variable<float, 3> total{{0.f, 0.f, 0.f}};
  auto f = sf::function([&](auto x) { total.assign_add(x * 2.f); });
  const auto& c = f.get_concrete_function(sf::spec<float, 3>{});
  CHECK(c.graph_string() ==
        "{ lambda ; a:float32[3]. let\n"
        "  in () }\n");
  CHECK(c.to_code() ==
        "auto fn(float32[3] a) {\n"
        "}\n");
}
