// Tests for effects/capture.hpp and nested functions: closures over containers (read on every
// call, or copied once), over variables, functions with no arguments, functions calling
// functions, and C++ side effects that happen once per trace.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

TEST_CASE("the seed's closure: square(capture(x)) + y with y a variable is [7, 7]", "[capture]") {
  xt::xtensor_fixed<int, xt::xshape<2>> x{-2, -3};
  sf::variable<int, 2> y{{3, -2}};
  auto f = sf::function([&] { return sf::square(sf::capture(x)) + y; });
  CHECK((f() == xt::xtensor_fixed<int, xt::xshape<2>>{7, 7}));
  x = {1, 2};  // read on every call
  y.assign(xt::xtensor<int, 1>{0, 0});
  CHECK((f() == xt::xtensor_fixed<int, xt::xshape<2>>{1, 4}));
  CHECK(f.tracing_count() == 1);
  // the signature lists both captures, as TensorFlow's does (an id, then the spec)
  const auto id = [](const void* p) { return std::to_string(reinterpret_cast<std::uintptr_t>(p)); };
  CHECK(f.pretty_printed_concrete_signatures() ==
        "Input Parameters:\nOutput Type:\n  TensorSpec(shape=(2,), dtype=tf.int32, name=None)\nCaptures:\n  " + id(&x) +
            ": TensorSpec(shape=(2,), dtype=tf.int32, name=None)\n  " + id(&y) +
            ": TensorSpec(shape=(2,), dtype=tf.int32, name=None)");
  auto plain = sf::function([](auto a) { return a + 1; });
  plain(1);
  CHECK(plain.pretty_printed_concrete_signatures().find("Captures:\n  None") != std::string::npos);
}

TEST_CASE("sf::constant copies at trace time; sf::capture reads every call", "[capture]") {
  xt::xtensor<float, 1> table{1.f, 2.f, 3.f};
  auto by_copy = sf::function([&](auto s) { return sf::constant(table) * s; });
  auto by_reference = sf::function([&](auto s) { return sf::capture(table) * s; });
  CHECK((by_copy(2.f) == xt::xtensor<float, 1>{2.f, 4.f, 6.f}));
  CHECK((by_reference(2.f) == xt::xtensor<float, 1>{2.f, 4.f, 6.f}));
  table(0) = 10.f;
  CHECK((by_copy(2.f) == xt::xtensor<float, 1>{2.f, 4.f, 6.f}));
  CHECK((by_reference(2.f) == xt::xtensor<float, 1>{20.f, 4.f, 6.f}));

  int scale = 3;
  auto scaled = sf::function([&](auto v) { return v * sf::capture(scale); });
  CHECK(scaled(2) == 6);
  scale = 5;
  CHECK(scaled(2) == 10);
  CHECK(sf::constant(2.5).value == 2.5);  // a number is a literal
}

TEST_CASE("a captured container whose shape changed is a shape_error, never read out of bounds", "[capture]") {
  xt::xtensor<int, 1> data{1, 2, 3};
  sf::variable<int> touched{0};
  auto f = sf::function([&](auto k) {
    touched.assign_add(1);
    return sf::capture(data) + k;
  });
  CHECK((f(1) == xt::xtensor<int, 1>{2, 3, 4}));
  data = xt::xtensor<int, 1>{1, 2, 3, 4, 5};
  CHECK_THROWS_WITH(f(1), "staticflow: sf::capture: the captured container has shape (5,), the function was traced for "
                          "shape (3,) (trace again with clear_cache(), or capture a container of fixed shape)");
  CHECK(touched.value() == 1);  // checked before any effect
  f.clear_cache();
  CHECK((f(1) == xt::xtensor<int, 1>{2, 3, 4, 5, 6}));
}

TEST_CASE("capture and constant are trace_errors outside a traced function", "[capture]") {
  xt::xtensor<int, 1> data{1};
  CHECK_THROWS_WITH(sf::capture(data), "staticflow: sf::capture is only possible inside a traced function");
  CHECK_THROWS_WITH(sf::constant(data), "staticflow: sf::constant is only possible inside a traced function");
}

TEST_CASE("nested functions: the seed's dense_layer calling add is all 3s", "[nested]") {
  auto add = sf::function([](auto a, auto b) { return a + b; });
  auto dense_layer = sf::function([&](auto x, auto w, auto b) { return add(sf::matmul(x, w), b); });
  xt::xtensor<float, 2> x = xt::ones<float>({3, 2}), w = xt::ones<float>({2, 2});
  xt::xtensor<float, 1> b = xt::ones<float>({2});
  const xt::xtensor<float, 2> expected = xt::full_like(xt::xtensor<float, 2>::from_shape({3, 2}), 3.f);
  CHECK((dense_layer(x, w, b) == expected));
  CHECK(add.tracing_count() == 0);  // inlined into dense_layer: add's own cache is untouched
  CHECK(dense_layer.tracing_count() == 1);
  // add still works on its own: the seed's add(ones([2, 2]), ones([2, 2]))
  xt::xtensor<float, 2> o = xt::ones<float>({2, 2});
  CHECK((add(o, o) == xt::xtensor<float, 2>{{2.f, 2.f}, {2.f, 2.f}}));
  CHECK(add.tracing_count() == 1);
  // the inlined graph is one fused graph: dense_layer's listing has the add
  CHECK(dense_layer.get_concrete_function(x, w, b).graph_string().find("AddV2") != std::string::npos);
}

TEST_CASE("a C++ list append in the lambda happens once per trace, not per call", "[capture]") {
  std::vector<std::string> l;
  auto f = sf::function([&](auto x) {
    l.push_back("traced");  // the seed's l.append(i + 1): only while tracing
    return x + 1;
  });
  f(xt::xtensor<int, 1>{1, 2, 3});
  f(xt::xtensor<int, 1>{4, 5, 6});
  CHECK(l.size() == 1);
  f(xt::xtensor<float, 1>{1.f});
  CHECK(l.size() == 2);
}
