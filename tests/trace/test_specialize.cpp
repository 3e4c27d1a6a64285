// Tests for shape specializations (sf::specialize<...>): a run-time shape that matches one runs
// its static variant, the most specific match wins, anything else runs the general variant.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

namespace {
/// The spec strings of the variants traced, in order (the body records its argument's spec).
struct trace_log {
  std::vector<std::string> specs;
  template <class X>
  void add(const X&) {
    specs.push_back(sf::short_spec_string(sf::spec_of_node_t<X>{}));
  }
};
}  // namespace

TEST_CASE("a matching run-time shape runs the static variant, others the general one", "[specialize]") {
  trace_log log;
  auto f = sf::function<sf::specialize<sf::shape<4>>>([&](auto x) {
    log.add(x);
    return x * 2.f;
  });
  xt::xtensor<float, 1> four = {1.f, 2.f, 3.f, 4.f}, three = {1.f, 2.f, 3.f};
  auto a = f(four);
  auto b = f(three);
  // one result type for both: the general variant's (a static result is copied into it)
  STATIC_REQUIRE(std::is_same_v<decltype(a), xt::xtensor<float, 1>>);
  CHECK((a == xt::xtensor<float, 1>{2.f, 4.f, 6.f, 8.f}));
  CHECK((b == xt::xtensor<float, 1>{2.f, 4.f, 6.f}));
  CHECK(log.specs == std::vector<std::string>{"float32[4]", "float32[None]"});
  f(four), f(three), f(four);
  CHECK(f.tracing_count() == 2);
  // the specialized variant is the concrete function of a static float32[4] call
  xt::xtensor_fixed<float, xt::xshape<4>> fixed = {1.f, 1.f, 1.f, 1.f};
  CHECK(f.get_concrete_function(four) == f.get_concrete_function(fixed));
  CHECK(f.get_concrete_function(three) == f.get_concrete_function(sf::spec<float, sf::dyn>{}));
  CHECK((f(fixed) == xt::xtensor_fixed<float, xt::xshape<4>>{2.f, 2.f, 2.f, 2.f}));
  CHECK(f.tracing_count() == 2);
  // call_into, with either variant
  auto out = xt::xtensor<float, 1>::from_shape({4});
  f.call_into(out, four);
  CHECK(out(3) == 8.f);
  auto out3 = xt::xtensor<float, 1>::from_shape({3});
  f.call_into(out3, three);
  CHECK(out3(2) == 6.f);
  CHECK_THROWS_MATCHES(f.call_into(out3, four), sf::shape_error,
                       Catch::Message("staticflow: call_into: output 0 has shape (3,), the result has shape (4,)"));
}

TEST_CASE("dispatch takes the most specific match, whatever the declaration order", "[specialize]") {
  trace_log log;
  auto f = sf::function<sf::specialize<sf::shape<sf::dyn, 4>, sf::shape<2, 4>, sf::shape<2, sf::dyn>>>([&](auto x) {
    log.add(x);
    return x + 1.f;
  });
  auto m = [](std::size_t r, std::size_t c) { return xt::xtensor<float, 2>(xt::zeros<float>({r, c})); };
  f(m(2, 4));  // all three match: (2, 4) is the most specific
  f(m(3, 4));  // (None, 4)
  f(m(2, 5));  // (2, None)
  f(m(3, 5));  // none: the general variant
  f(m(2, 4)), f(m(5, 4));
  CHECK(log.specs == std::vector<std::string>{"float32[2,4]", "float32[None,4]", "float32[2,None]", "float32[None,None]"});
  CHECK(f.tracing_count() == 4);
  CHECK(f.pretty_printed_concrete_signatures().find("TensorSpec(shape=(2, 4), dtype=tf.float32, name=None)") !=
        std::string::npos);
  CHECK(f.explain_miss(m(7, 4)).empty());
  CHECK(f.explain_miss(xt::xtensor<float, 1>{1.f}) ==
        "staticflow: this call traces (float32[None]): none of the 4 traced signatures matches; the closest, "
        "(float32[2,4]), differs in argument 0: rank 1, not 2");
}

TEST_CASE("specializations over several arguments: one shape for all, or one per argument", "[specialize]") {
  trace_log log;
  auto f = sf::function<sf::specialize<sf::shape<3>, sf::shapes<sf::shape<3>, sf::shape<1>>>>([&](auto x, auto y) {
    log.add(x), log.add(y);
    return x * y;
  });
  xt::xtensor<float, 1> three = {1.f, 2.f, 3.f}, one = {10.f}, two = {1.f, 2.f};
  CHECK((f(three, three) == xt::xtensor<float, 1>{1.f, 4.f, 9.f}));  // shape<3> for both
  CHECK((f(three, one) == xt::xtensor<float, 1>{10.f, 20.f, 30.f}));  // shapes<(3,), (1,)>
  CHECK((f(one, three) == xt::xtensor<float, 1>{10.f, 20.f, 30.f}));  // general
  CHECK_THROWS_AS(f(two, three), sf::shape_error);
  CHECK(log.specs == std::vector<std::string>{"float32[3]", "float32[3]", "float32[3]", "float32[1]", "float32[None]",
                                              "float32[None]"});
  // an argument that is static already keeps its spec; a C++ scalar is never specialized
  log.specs.clear();
  xt::xtensor_fixed<float, xt::xshape<3>> fixed = {1.f, 1.f, 1.f};
  f(three, fixed);  // specialized to (float32[3], float32[3]): traced above already
  CHECK(f.tracing_count() == 3);
  f(three, 2.f);
  CHECK(log.specs == std::vector<std::string>{"float32[3]", "float32[]"});
  CHECK(f.tracing_count() == 4);
  // a static value is no tensor: shape<3> applies to the tensor beside it
  auto g = sf::function<sf::specialize<sf::shape<3>>>([&](auto x, auto n) {
    log.add(x);
    return x * n;
  });
  log.specs.clear();
  CHECK((g(three, sf::static_value<2>{}) == xt::xtensor<float, 1>{2.f, 4.f, 6.f}));
  CHECK((g(two, sf::static_value<2>{}) == xt::xtensor<float, 1>{2.f, 4.f}));
  CHECK(log.specs == std::vector<std::string>{"float32[3]", "float32[None]"});
}

TEST_CASE("specializations with an input signature, xt::xarray and sf::tensor arguments", "[specialize]") {
  trace_log log;
  auto f = sf::function<sf::spec<float, sf::dyn>, sf::specialize<sf::shape<2>>>([&](auto x) {
    log.add(x);
    return x - 1.f;
  });
  xt::xarray<float> two = {5.f, 6.f}, three = {5.f, 6.f, 7.f};
  auto a = f(two);
  auto b = f(three);
  STATIC_REQUIRE(std::is_same_v<decltype(a), xt::xtensor<float, 1>>);
  CHECK((a == xt::xtensor<float, 1>{4.f, 5.f}));
  CHECK((b == xt::xtensor<float, 1>{4.f, 5.f, 6.f}));
  CHECK(log.specs == std::vector<std::string>{"float32[2]", "float32[None]"});
  auto ref = f.get_concrete_function(two);
  CHECK(ref == f.get_concrete_function(sf::spec<float, 2>{}));
  CHECK(ref.graph_string() ==
        "{ lambda ; a:float32[2]. let\n"
        "    b:float32[2] = Sub a 1.0:float32[]\n"
        "  in (b) }\n");

  log.specs.clear();
  auto g = sf::function<sf::dtypes<double>, sf::ranks<1, 2>, sf::specialize<sf::shape<2, 2>>>([&](auto x) {
    log.add(x);
    return x * x;
  });
  sf::tensor m = xt::xarray<double>{{1., 2.}, {3., 4.}};
  sf::tensor v = xt::xarray<double>{1., 2.};
  sf::tensor r = g(m);
  CHECK(r.spec_string() == "float64[2,2]");
  CHECK(r.data<double>()[3] == 16.);
  g(v);
  CHECK(log.specs == std::vector<std::string>{"float64[2,2]", "float64[None]"});
}
