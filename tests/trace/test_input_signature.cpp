// Tests for input signatures (sf::function<sf::spec<...>...>): one graph for every call, argument
// conversion to the signature's specs, run-time mismatches as sf::signature_error with their exact
// messages, parameter names. (Static mismatches are compile-fail tests in tests/compile_fail/.)
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

TEST_CASE("seed 000: input_signature=[TensorSpec([None], float32)] makes one graph for every length", "[signature][seed]") {
  std::ostringstream log;  // Python's print inside the function: runs only while tracing
  auto specific_function = sf::function<sf::spec<float, sf::dyn>>([&](auto x) {
    log << "Tracing specific function with input shape: "
        << sf::detail::shape_string(typename decltype(x)::shape_type{}) << "\n";
    return x * 2.0f;
  });
  // first call: traces the graph for shape=[None], dtype=float32
  auto result1 = specific_function(xt::xtensor<float, 1>{1.0f, 2.0f, 3.0f});
  CHECK((result1 == xt::xtensor<float, 1>{2.0f, 4.0f, 6.0f}));
  // second call: another length, the same graph
  auto result2 = specific_function(xt::xtensor<float, 1>{4.0f, 5.0f});
  CHECK((result2 == xt::xtensor<float, 1>{8.0f, 10.0f}));
  CHECK(specific_function.tracing_count() == 1);
  CHECK(log.str() == "Tracing specific function with input shape: (None,)\n");
  // third call, int32 [1, 2]: a compile error here (tests/compile_fail/input_signature_dtype_mismatch.cpp);
  // with a run-time dtype it throws, like TensorFlow's TypeError
  sf::tensor ints = xt::xarray<int>{1, 2};
  CHECK_THROWS_MATCHES(specific_function(ints), sf::signature_error,
                       Catch::Message("staticflow: argument 0 has dtype int32, expected float32 (got int32[2], the "
                                      "input signature has float32[None])"));
  // fourth call, the scalar 1.0: a C++ float is a compile error (input_signature_rank_mismatch.cpp);
  // an xt::xarray's rank is known only at run time, so it throws, like TensorFlow's ValueError
  xt::xarray<float> scalar = 1.0f;
  CHECK_THROWS_MATCHES(specific_function(scalar), sf::signature_error,
                       Catch::Message("staticflow: argument 0 has rank 0, expected rank 1 (got float32[], the input "
                                      "signature has float32[None])"));
  // failed calls trace nothing and print nothing
  CHECK(specific_function.tracing_count() == 1);
  CHECK(log.str() == "Tracing specific function with input shape: (None,)\n");
}

TEST_CASE("every argument container is seen through the signature's one graph", "[signature]") {
  auto h = sf::function<sf::spec<float, sf::dyn>>([](auto x) { return x * 2.f; });
  xt::xtensor_fixed<float, xt::xshape<3>> fixed = {1.f, 2.f, 3.f};
  xt::xarray<float> arr = {4.f, 5.f};
  std::vector<float> raw = {6.f, 7.f, 8.f, 9.f};
  sf::tensor t = xt::xarray<float>{10.f};
  auto a = h(fixed);
  auto b = h(arr);
  auto c = h(xt::adapt(raw));
  auto d = h(t);
  // the results are the graph's: float32[None] -> xt::xtensor<float, 1>, whatever came in
  STATIC_REQUIRE(std::is_same_v<decltype(a), xt::xtensor<float, 1>>);
  STATIC_REQUIRE(std::is_same_v<decltype(b), xt::xtensor<float, 1>>);
  STATIC_REQUIRE(std::is_same_v<decltype(d), xt::xtensor<float, 1>>);
  CHECK((a == xt::xtensor<float, 1>{2.f, 4.f, 6.f}));
  CHECK((b == xt::xtensor<float, 1>{8.f, 10.f}));
  CHECK((c == xt::xtensor<float, 1>{12.f, 14.f, 16.f, 18.f}));
  CHECK((d == xt::xtensor<float, 1>{20.f}));
  CHECK(h.tracing_count() == 1);
  CHECK(h.pretty_printed_concrete_signatures() ==
        "Input Parameters:\n"
        "  arg0 (POSITIONAL_ONLY): TensorSpec(shape=(None,), dtype=tf.float32, name=None)\n"
        "Output Type:\n"
        "  TensorSpec(shape=(None,), dtype=tf.float32, name=None)\n"
        "Captures:\n"
        "  None");
  // get_concrete_function() with no argument is the signature's graph; with arguments, the same one
  auto& c0 = h.get_concrete_function();
  CHECK(&c0 == &h.get_concrete_function(fixed));
  CHECK(&c0 == &h.get_concrete_function(arr));
  CHECK(&c0 == &h.get_concrete_function(sf::spec<float, 7>{}));
  CHECK((c0(xt::xtensor<float, 1>{1.5f}) == xt::xtensor<float, 1>{3.f}));
}

TEST_CASE("static dimensions of the signature are checked at run time against run-time extents", "[signature]") {
  auto f = sf::function<sf::spec<float, sf::dyn, 3>, sf::spec<float, 3>>([](auto m, auto row) { return m + row; },
                                                                          sf::arg_names("m", "row"));
  xt::xtensor<float, 2> m = {{1.f, 2.f, 3.f}, {4.f, 5.f, 6.f}};
  xt::xtensor<float, 1> row = {10.f, 20.f, 30.f};
  auto r = f(m, row);
  STATIC_REQUIRE(std::is_same_v<decltype(r), xt::xtensor<float, 2>>);
  CHECK((r == xt::xtensor<float, 2>{{11.f, 22.f, 33.f}, {14.f, 25.f, 36.f}}));

  xt::xtensor<float, 2> m4 = xt::zeros<float>({2, 4});
  CHECK_THROWS_MATCHES(f(m4, row), sf::signature_error,
                       Catch::Message("staticflow: argument 0 (m) has shape (2, 4), expected (None, 3) (got "
                                      "float32[2,4], the input signature has float32[None,3])"));
  xt::xtensor<float, 1> row2 = {1.f, 2.f};
  CHECK_THROWS_MATCHES(f(m, row2), sf::signature_error,
                       Catch::Message("staticflow: argument 1 (row) has shape (2,), expected (3,) (got float32[2], "
                                      "the input signature has float32[3])"));
  xt::xarray<float> cube = xt::zeros<float>({1, 1, 3});
  CHECK_THROWS_MATCHES(f(cube, row), sf::signature_error,
                       Catch::Message("staticflow: argument 0 (m) has rank 3, expected rank 2 (got float32[1,1,3], "
                                      "the input signature has float32[None,3])"));
  sf::tensor drow = xt::xarray<double>{1., 2., 3.};
  CHECK_THROWS_MATCHES(f(m, drow), sf::signature_error,
                       Catch::Message("staticflow: argument 1 (row) has dtype float64, expected float32 (got "
                                      "float64[3], the input signature has float32[3])"));
  // an argument checked before a failing one changes nothing: no trace, no output
  auto out = xt::xtensor<float, 2>::from_shape({2, 3});
  out.fill(-1.f);
  CHECK_THROWS_AS(f.call_into(out, m, row2), sf::signature_error);
  CHECK(out(0, 0) == -1.f);
  CHECK(f.tracing_count() == 1);
  f.call_into(out, m, row);
  CHECK(out(1, 2) == 36.f);
  CHECK(f.pretty_printed_concrete_signatures() ==
        "Input Parameters:\n"
        "  m (POSITIONAL_ONLY): TensorSpec(shape=(None, 3), dtype=tf.float32, name=None)\n"
        "  row (POSITIONAL_ONLY): TensorSpec(shape=(3,), dtype=tf.float32, name=None)\n"
        "Output Type:\n"
        "  TensorSpec(shape=(None, 3), dtype=tf.float32, name=None)\n"
        "Captures:\n"
        "  None");
}

TEST_CASE("a fully static signature gives static results for run-time arguments", "[signature]") {
  auto f = sf::function<sf::spec<int, 2, 2>>([](auto x) { return x * x; });
  xt::xtensor<int, 2> x = {{1, 2}, {3, 4}};
  auto r = f(x);
  STATIC_REQUIRE(std::is_same_v<decltype(r), xt::xtensor_fixed<int, xt::xshape<2, 2>>>);
  CHECK((r == xt::xtensor_fixed<int, xt::xshape<2, 2>>{{1, 4}, {9, 16}}));
  xt::xtensor<int, 2> wide = {{1, 2, 3}, {4, 5, 6}};
  CHECK_THROWS_MATCHES(f(wide), sf::signature_error,
                       Catch::Message("staticflow: argument 0 has shape (2, 3), expected (2, 2) (got int32[2,3], the "
                                      "input signature has int32[2,2])"));
  // scalars against a scalar spec
  auto g = sf::function<sf::spec<double>, sf::spec<double>>([](auto a, auto b) { return a * b + 1.0; });
  CHECK(g(2.0, 3.0) == 7.0);
  xt::xarray<double> two = 2.0;
  CHECK(g(two, 4.0) == 9.0);
  CHECK(g.tracing_count() == 1);
}

TEST_CASE("explain_miss under an input signature: nothing to miss but errors", "[signature]") {
  auto h = sf::function<sf::spec<float, sf::dyn>>([](auto x) { return x + 1.f; }, sf::arg_names("x"));
  xt::xtensor<float, 1> v = {1.f};
  CHECK(h.explain_miss(v) == "staticflow: nothing is traced yet: this call traces (float32[None])");
  h(v);
  CHECK(h.explain_miss(v).empty());
  CHECK(h.explain_miss(xt::xtensor_fixed<float, xt::xshape<9>>{}).empty());
  xt::xarray<float> m = xt::zeros<float>({2, 2});
  CHECK(h.explain_miss(m) ==
        "staticflow: argument 0 (x) has rank 2, expected rank 1 (got float32[2,2], the input signature has float32[None])");
}
