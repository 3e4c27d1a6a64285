// Tests for the run-time dispatch map (trace/dispatch.hpp): xt::xarray arguments (run-time rank)
// and sf::tensor arguments (run-time dtype and rank) dispatched over the declared variants, the
// errors for combinations that were not compiled, call_into, get_concrete_function,
// pretty-printed signatures, explain_miss, the retracing warning, clear_cache and the capacity.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

namespace {
xt::xarray<float> iota(std::vector<std::size_t> shape) {
  xt::xarray<float> a = xt::xarray<float>::from_shape(shape);
  for (std::size_t i = 0; i < a.size(); ++i) a.data()[i] = static_cast<float>(i);
  return a;
}

/// Collects a function's warnings.
struct log_sink {
  std::vector<std::string> lines;
  sf::log_callback callback() {
    return [this](std::string_view s) { lines.emplace_back(s); };
  }
};
}  // namespace

TEST_CASE("xt::xarray arguments: one variant per rank serves every shape", "[dispatch]") {
  log_sink log;
  std::vector<std::size_t> traced_ranks;
  auto f = sf::function([&](auto x) {
    traced_ranks.push_back(decltype(x)::shape_type::rank);
    return x * 2.f + 1.f;
  });
  f.set_log_callback(log.callback());
  auto r1 = f(iota({3}));
  auto r2 = f(iota({2, 2}));
  auto r0 = f(xt::xarray<float>(5.f));
  auto r1b = f(iota({5}));  // another length: the rank-1 variant again
  STATIC_REQUIRE(std::is_same_v<decltype(r1), xt::xarray<float>>);
  CHECK((r1 == xt::xarray<float>{1.f, 3.f, 5.f}));
  CHECK((r2 == xt::xarray<float>{{1.f, 3.f}, {5.f, 7.f}}));
  CHECK(r0.dimension() == 0);
  CHECK(r0() == 11.f);
  CHECK(r1b.shape()[0] == 5);
  CHECK(r1b(4) == 9.f);
  CHECK(traced_ranks == std::vector<std::size_t>{1, 2, 0});
  CHECK(f.tracing_count() == 3);
  // the rank-1 variant is the concrete function of an xt::xtensor<float, 1> call: traced once
  xt::xtensor<float, 1> v = {1.f, 2.f};
  CHECK((f(v) == xt::xtensor<float, 1>{3.f, 5.f}));
  CHECK(f.tracing_count() == 3);
  CHECK(f.get_concrete_function(iota({7})) == f.get_concrete_function(v));
  CHECK(f.get_concrete_function(iota({7})) == f.get_concrete_function(sf::spec<float, sf::dyn>{}));
  CHECK_FALSE(f.get_concrete_function(iota({7})) == f.get_concrete_function(iota({7, 1})));
  CHECK(f.get_concrete_function(iota({2, 2})).graph_string() ==
        "{ lambda ; a:float32[None,None]. let\n"
        "    b:float32[None,None] = Mul a 2.0:float32[]\n"
        "    c:float32[None,None] = AddV2 b 1.0:float32[]\n"
        "  in (c) }\n");
  CHECK(log.lines.empty());
}

TEST_CASE("a rank that was not compiled throws, listing the variants", "[dispatch]") {
  auto f = sf::function<sf::ranks<1, 2>>([](auto x) { return -x; }, sf::arg_names("x"));
  CHECK((f(iota({2})) == xt::xarray<float>{-0.f, -1.f}));
  CHECK_THROWS_MATCHES(f(iota({1, 1, 1})), sf::signature_error,
                       Catch::Message("staticflow: argument 0 (x) has rank 3, and no variant compiled for this call "
                                      "(float32[1,1,1]) takes it: the variants take (float32[None]), "
                                      "(float32[None,None]); declare others with sf::ranks<...> or sf::dtypes<...>"));
  CHECK_THROWS_MATCHES(f(xt::xarray<float>(1.f)), sf::signature_error,
                       Catch::Message("staticflow: argument 0 (x) has rank 0, and no variant compiled for this call "
                                      "(float32[]) takes it: the variants take (float32[None]), "
                                      "(float32[None,None]); declare others with sf::ranks<...> or sf::dtypes<...>"));
  CHECK(f.tracing_count() == 1);
}

TEST_CASE("two run-time-rank arguments broadcast; shapes are checked before anything is written", "[dispatch]") {
  auto f = sf::function<sf::ranks<1, 2>>([](auto x, auto y) { return x - y; });
  auto m = iota({2, 3});
  xt::xarray<float> row = {1.f, 1.f, 1.f};
  CHECK((f(m, row) == xt::xarray<float>{{-1.f, 0.f, 1.f}, {2.f, 3.f, 4.f}}));
  CHECK((f(row, m) == xt::xarray<float>{{1.f, 0.f, -1.f}, {-2.f, -3.f, -4.f}}));
  CHECK(f.tracing_count() == 2);
  xt::xarray<float> bad = {1.f, 2.f};
  CHECK_THROWS_MATCHES(f(m, bad), sf::shape_error, Catch::Message("staticflow: shapes (2, 3) and (2,) do not broadcast"));
  // mixed with a static argument: the static one keeps its spec in every variant
  xt::xtensor_fixed<float, xt::xshape<3>> three = {1.f, 2.f, 3.f};
  CHECK((f(m, three) == xt::xarray<float>{{-1.f, -1.f, -1.f}, {2.f, 2.f, 2.f}}));
  CHECK(f.pretty_printed_concrete_signatures().find(
            "  arg0 (POSITIONAL_ONLY): TensorSpec(shape=(None, None), dtype=tf.float32, name=None)\n"
            "  arg1 (POSITIONAL_ONLY): TensorSpec(shape=(3,), dtype=tf.float32, name=None)\n") != std::string::npos);
}

TEST_CASE("several results come back as a tuple of xt::xarray; void bodies return nothing", "[dispatch]") {
  auto f = sf::function<sf::ranks<1>>([](auto x) { return std::tuple{x + x, x > 1.f}; });
  auto [twice, big] = f(iota({3}));
  STATIC_REQUIRE(std::is_same_v<decltype(twice), xt::xarray<float>>);
  STATIC_REQUIRE(std::is_same_v<decltype(big), xt::xarray<bool>>);
  CHECK((twice == xt::xarray<float>{0.f, 2.f, 4.f}));
  CHECK((big == xt::xarray<bool>{false, false, true}));

  int traces = 0;
  auto effect = sf::function<sf::ranks<0, 1>>([&](auto) { ++traces; });
  effect(iota({2}));
  effect(iota({4}));
  effect(xt::xarray<float>(1.f));
  STATIC_REQUIRE(std::is_void_v<decltype(effect(iota({2})))>);
  CHECK(traces == 2);
}

TEST_CASE("call_into an xt::xarray of the result's rank; a mismatch throws before writing", "[dispatch]") {
  auto f = sf::function<sf::ranks<1, 2>>([](auto x) { return x * x; });
  auto out = xt::xarray<float>::from_shape({3});
  f.call_into(out, iota({3}));
  CHECK((out == xt::xarray<float>{0.f, 1.f, 4.f}));
  auto wrong_rank = xt::xarray<float>::from_shape({3, 1});
  wrong_rank.fill(7.f);
  CHECK_THROWS_MATCHES(f.call_into(wrong_rank, iota({3})), sf::shape_error,
                       Catch::Message("staticflow: call_into: output 0 has rank 2, the result has rank 1"));
  auto wrong_shape = xt::xarray<float>::from_shape({4});
  CHECK_THROWS_MATCHES(f.call_into(wrong_shape, iota({3})), sf::shape_error,
                       Catch::Message("staticflow: call_into: output 0 has shape (4,), the result has shape (3,)"));
  CHECK(wrong_rank(0, 0) == 7.f);
  // a static-rank output serves the variant of its rank; the others throw
  auto fixed_rank = xt::xtensor<float, 2>::from_shape({2, 2});
  f.call_into(fixed_rank, iota({2, 2}));
  CHECK(fixed_rank(1, 1) == 9.f);
  CHECK_THROWS_MATCHES(f.call_into(fixed_rank, iota({4})), sf::shape_error,
                       Catch::Message("staticflow: call_into: output 0 has rank 2, the result has rank 1"));
  auto ints = xt::xarray<int>::from_shape({3});
  CHECK_THROWS_MATCHES(f.call_into(ints, iota({3})), sf::signature_error,
                       Catch::Message("staticflow: call_into: output 0 has dtype int32, the result has dtype float32"));
  // a C++ scalar output takes a rank-0 result only; a container of another dtype none
  float scalar_out = 0.f;
  CHECK_THROWS_MATCHES(f.call_into(scalar_out, iota({3})), sf::shape_error,
                       Catch::Message("staticflow: call_into: output 0 has rank 0, the result has rank 1"));
  auto int_vec = xt::xtensor<int, 1>::from_shape({3});
  CHECK_THROWS_MATCHES(f.call_into(int_vec, iota({3})), sf::signature_error,
                       Catch::Message("staticflow: call_into: output 0 has dtype int32, the result has dtype float32"));
  auto g = sf::function<sf::ranks<0, 1>>([](auto x) { return x - 1.f; });
  g.call_into(scalar_out, xt::xarray<float>(5.f));
  CHECK(scalar_out == 4.f);
  // several outputs: std::tie them
  auto two = sf::function<sf::ranks<1>>([](auto x) { return std::tuple{x + 1.f, x * x}; });
  auto o1 = xt::xarray<float>::from_shape({2});
  auto o2 = xt::xtensor<float, 1>::from_shape({2});
  two.call_into(std::tie(o1, o2), iota({2}));
  CHECK((o1 == xt::xarray<float>{1.f, 2.f}));
  CHECK((o2 == xt::xtensor<float, 1>{0.f, 1.f}));
  // in place, elementwise: allowed
  auto a = iota({4});
  f.call_into(a, a);
  CHECK((a == xt::xarray<float>{0.f, 1.f, 4.f, 9.f}));
}

TEST_CASE("sf::tensor arguments dispatch over the declared dtypes and ranks", "[dispatch][tensor]") {
  auto f = sf::function<sf::dtypes<float, std::int32_t>, sf::ranks<0, 1>>([](auto x) { return x * 3; });
  sf::tensor a = xt::xarray<float>{1.5f, 2.f};
  sf::tensor b = xt::xarray<int>{1, -2, 3};
  sf::tensor c = 4;
  sf::tensor ra = f(a);
  sf::tensor rb = f(b);
  sf::tensor rc = f(c);
  CHECK(ra.spec_string() == "float32[2]");
  CHECK(ra.data<float>()[0] == 4.5f);
  CHECK(rb.spec_string() == "int32[3]");
  CHECK((rb.to_xarray<int>() == xt::xarray<int>{3, -6, 9}));
  CHECK(rc.spec_string() == "int32[]");
  CHECK(rc.data<int>()[0] == 12);
  CHECK(f.tracing_count() == 3);
  sf::tensor d = xt::xarray<double>{1.0};
  CHECK_THROWS_MATCHES(f(d), sf::signature_error,
                       Catch::Message("staticflow: argument 0 has dtype float64, and no variant compiled for this call "
                                      "(float64[1]) takes it: the variants take (float32[]), (float32[None]), "
                                      "(int32[]), (int32[None]); declare others with sf::ranks<...> or sf::dtypes<...>"));
  sf::tensor m = xt::xarray<float>(xt::ones<float>({1, 1}));
  CHECK_THROWS_MATCHES(f(m), sf::signature_error,
                       Catch::Message("staticflow: argument 0 has rank 2, and no variant compiled for this call "
                                      "(float32[1,1]) takes it: the variants take (float32[]), (float32[None]), "
                                      "(int32[]), (int32[None]); declare others with sf::ranks<...> or sf::dtypes<...>"));
  // call_into an sf::tensor of the result's dtype and rank
  sf::tensor out = sf::tensor::zeros<float>({2});
  f.call_into(out, a);
  CHECK(out.data<float>()[1] == 6.f);
  sf::tensor out_int = sf::tensor::zeros<std::int32_t>({2});
  CHECK_THROWS_MATCHES(f.call_into(out_int, a), sf::signature_error,
                       Catch::Message("staticflow: call_into: output 0 has dtype int32, the result has dtype float32"));
  CHECK_THROWS_MATCHES(f.call_into(out, c), sf::signature_error,
                       Catch::Message("staticflow: call_into: output 0 has dtype float32, the result has dtype int32"));
  sf::tensor out0 = 0.f;
  CHECK_THROWS_MATCHES(f.call_into(out0, a), sf::shape_error,
                       Catch::Message("staticflow: call_into: output 0 has rank 0, the result has rank 1"));
}

TEST_CASE("sf::tensor and xt::xarray mixed with the default dtypes (float, double)", "[dispatch][tensor]") {
  auto f = sf::function<sf::ranks<1>>([](auto x, auto y) { return x + y; });
  sf::tensor d = xt::xarray<double>{0.5, 0.25};
  sf::tensor r = f(d, iota({2}));  // float64 + float32 -> float64
  CHECK(r.spec_string() == "float64[2]");
  CHECK(r.data<double>()[1] == 1.25);
  sf::tensor fl = xt::xarray<float>{1.f, 1.f};
  CHECK(f(fl, iota({2})).spec_string() == "float32[2]");
  CHECK(f.tracing_count() == 2);
}

TEST_CASE("explain_miss says why a call would trace, or why it would throw", "[dispatch]") {
  auto f = sf::function<sf::ranks<1, 2>>([](auto x, auto n) { return x * n; }, sf::arg_names("x", "n"));
  CHECK(f.explain_miss(iota({2}), 2.f) == "staticflow: nothing is traced yet: this call traces (float32[None], float32[])");
  f(iota({2}), 2.f);
  CHECK(f.explain_miss(iota({9}), 3.f).empty());
  CHECK(f.explain_miss(iota({2, 2}), 2.f) ==
        "staticflow: this call traces (float32[None,None], float32[]): none of the 1 traced signature matches; "
        "the closest, (float32[None], float32[]), differs in argument 0 (x): rank 2, not 1");
  CHECK(f.explain_miss(iota({2}), 2.0) ==
        "staticflow: this call traces (float32[None], float64[]): none of the 1 traced signature matches; "
        "the closest, (float32[None], float32[]), differs in argument 1 (n): dtype float64, not float32");
  xt::xtensor_fixed<float, xt::xshape<2>> fixed = {1.f, 2.f};
  CHECK(f.explain_miss(fixed, 2.f) ==
        "staticflow: this call traces (float32[2], float32[]): none of the 1 traced signature matches; "
        "the closest, (float32[None], float32[]), differs in argument 0 (x): shape (2,), not (None,)");
  CHECK(f.explain_miss(iota({2}), sf::static_value<2>{}) ==
        "staticflow: this call traces (float32[None], Literal[2]): none of the 1 traced signature matches; "
        "the closest, (float32[None], float32[]), differs in argument 1 (n): Literal[2], not float32[]");
  CHECK(f.explain_miss(iota({1, 1, 1}), 2.f) ==
        "staticflow: argument 0 (x) has rank 3, and no variant compiled for this call (float32[1,1,1], float32[]) "
        "takes it: the variants take (float32[None], float32[]), (float32[None,None], float32[]); declare others "
        "with sf::ranks<...> or sf::dtypes<...>");
  CHECK(f.tracing_count() == 1);  // explaining traces nothing

  auto variadic = sf::function([](auto... x) { return (x + ...); });
  variadic(iota({2}));
  CHECK(variadic.explain_miss(iota({2}), iota({2})) ==
        "staticflow: this call traces (float32[None], float32[None]): none of the 1 traced signature matches; the "
        "closest, (float32[None]), differs in its number of arguments: 2, not 1");
}

TEST_CASE("the retracing warning: most of the recent dispatched calls traced, once per function", "[dispatch][log]") {
  log_sink log;
  auto f = sf::function([](auto x) { return x + 1.f; }, sf::function_name("retracer"));
  f.set_log_callback(log.callback());
  std::vector<std::size_t> shape;
  for (int r = 0; r < 4; ++r, shape.push_back(2)) f(iota(shape));
  CHECK(log.lines.empty());  // 4 traces in 4 calls: not yet
  f(iota({1}));              // a cached variant
  f(iota({1, 1, 1, 1}));     // the fifth trace: 5 out of the last 6 calls
  REQUIRE(log.lines.size() == 1);
  CHECK(log.lines[0] ==
        "staticflow: 5 out of the last 6 calls to retracer traced a new variant: (float32[]), (float32[None]), "
        "(float32[None,None]), (float32[None,None,None]), (float32[None,None,None,None]). Each trace runs the "
        "body's C++ side effects again and each variant is compiled code: pass fewer dtypes and ranks, or give an "
        "input signature with sf::dyn dimensions (sf::function<sf::spec<float, sf::dyn>>(...)) so that one graph "
        "serves every shape");
  // once per function object, even after the cache is cleared and every variant traces again
  f.clear_cache();
  shape.clear();
  for (int r = 0; r < 5; ++r, shape.push_back(3)) f(iota(shape));
  CHECK(log.lines.size() == 1);
  CHECK(f.tracing_count() == 10);
}

TEST_CASE("no warning when traces are spread out, nor for calls on the direct path", "[dispatch][log]") {
  log_sink log;
  auto f = sf::function([](auto x) { return x * x; }, sf::function_name("steady"));
  f.set_log_callback(log.callback());
  std::vector<std::size_t> shape;
  for (int r = 0; r < 5; ++r, shape.push_back(2)) {
    f(iota(shape));
    for (int k = 0; k < 3; ++k) f(iota(shape));  // most calls reuse a variant
  }
  CHECK(f.tracing_count() == 5);
  CHECK(log.lines.empty());
  // static signatures are fixed by the program: tracing them never warns
  auto g = sf::function([](auto x) { return x * x; });
  g.set_log_callback(log.callback());
  g(1.f), g(1.0), g(1), g(xt::xtensor_fixed<float, xt::xshape<2>>{}), g(xt::xtensor<float, 3>{});
  CHECK(g.tracing_count() == 5);
  CHECK(log.lines.empty());
}

TEST_CASE("the process-wide log callback receives warnings of functions without their own", "[dispatch][log]") {
  log_sink log;
  auto previous = sf::set_log_callback(log.callback());
  {
    auto f = sf::function([](auto x) { return x; }, sf::function_name("global"));
    std::vector<std::size_t> shape;
    for (int r = 0; r < 5; ++r, shape.push_back(1)) f(iota(shape));
  }
  sf::set_log_callback(previous);
  REQUIRE(log.lines.size() == 1);
  CHECK(log.lines[0].rfind("staticflow: 5 out of the last 5 calls to global traced a new variant:", 0) == 0);
}

TEST_CASE("the default function name is the lambda's type", "[dispatch][log]") {
  auto f = sf::function([](auto x) { return x; });
  CHECK(f.name().find("lambda") != std::string::npos);
  auto g = sf::function([](auto x) { return x; }, sf::function_name("g"));
  CHECK(g.name() == "g");
}

TEST_CASE("clear_cache drops every concrete function; the capacity bounds how many are held", "[dispatch][cache]") {
  int traces = 0;
  auto f = sf::function([&](auto x) {
    ++traces;
    return x + 1;
  }, sf::cache_capacity(3), sf::function_name("bounded"));
  CHECK(f.cache_capacity() == 3);
  f(1);
  f(1.f);
  f(iota({2}));
  CHECK(f.cache_size() == 3);
  CHECK_THROWS_MATCHES(f(iota({2, 2})), sf::signature_error,
                       Catch::Message("staticflow: bounded already holds 3 concrete functions, its capacity: tracing "
                                      "(float32[None,None]) would exceed it; raise it with sf::cache_capacity(n) or "
                                      "call clear_cache()"));
  CHECK_THROWS_AS(f(1.0), sf::signature_error);  // a static call too
  CHECK(traces == 3);  // the refused traces did not run the body
  CHECK(f.explain_miss(1.0) ==
        "staticflow: this call traces (float64[]): none of the 3 traced signatures matches; the closest, "
        "(int32[]), differs in argument 0: dtype float64, not int32; the cache is full (capacity 3), so the "
        "call would throw");
  CHECK(f(2) == 3);  // cached ones still run
  f.clear_cache();
  CHECK(f.cache_size() == 0);
  CHECK(f.pretty_printed_concrete_signatures().empty());
  CHECK((f(iota({2, 2})) == xt::xarray<float>{{1.f, 2.f}, {3.f, 4.f}}));
  CHECK(f(2) == 3);  // traced again: the thread-local slot from before went stale
  CHECK(traces == 5);
  CHECK(f.tracing_count() == 5);
  CHECK(f.cache_size() == 2);
}

TEST_CASE("pretty_printed_concrete_signatures lists dispatched variants with parameter names", "[dispatch]") {
  auto f = sf::function<sf::ranks<0, 1>>([](auto x, auto y) { return x * y; }, sf::arg_names("x", "y"));
  f(iota({2}), xt::xarray<float>(2.f));
  CHECK(f.pretty_printed_concrete_signatures() ==
        "Input Parameters:\n"
        "  x (POSITIONAL_ONLY): TensorSpec(shape=(None,), dtype=tf.float32, name=None)\n"
        "  y (POSITIONAL_ONLY): TensorSpec(shape=(), dtype=tf.float32, name=None)\n"
        "Output Type:\n"
        "  TensorSpec(shape=(None,), dtype=tf.float32, name=None)\n"
        "Captures:\n"
        "  None");
  auto ref = f.get_concrete_function(iota({2}), xt::xarray<float>(2.f));
  CHECK(ref.pretty_printed_signature().find("arg0 (POSITIONAL_ONLY): TensorSpec(shape=(None,)") != std::string::npos);
  CHECK(ref.to_dot().find("digraph") != std::string::npos);
  CHECK(f.tracing_count() == 1);
}
