// The seed documents' tf.function examples that the foundation covers, with the seeds' values.
// (Examples with control flow, input signatures, variables, matmul and nested functions live with
// the features they need.)
#include <catch2/catch.hpp>

#include <sstream>
#include <string>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

TEST_CASE("seed 000: optimized_computation traces once per dtype; its print runs only then", "[seed]") {
  std::ostringstream log;  // stands for Python's print inside the decorated function
  auto optimized_computation = sf::function([&](auto x, auto y) {
    log << "Tracing optimized function with inputs: " << x << ", " << y << "\n";
    auto a = sf::add(x, y);
    auto b = sf::multiply(a, 2);
    return b;
  });
  CHECK(optimized_computation(1, 2) == 6);        // first call: traces (int32)
  CHECK(optimized_computation(3, 4) == 14);       // same signature: reuses the graph
  CHECK(optimized_computation(1.0f, 2.0f) == 6.0f);   // float32: retraces
  CHECK(optimized_computation(3.0f, 4.0f) == 14.0f);  // reuses the float32 graph
  CHECK(optimized_computation.tracing_count() == 2);
  CHECK(log.str() ==
        "Tracing optimized function with inputs: Tensor(\"arg0:0\", shape=(), dtype=int32), "
        "Tensor(\"arg1:0\", shape=(), dtype=int32)\n"
        "Tracing optimized function with inputs: Tensor(\"arg0:0\", shape=(), dtype=float32), "
        "Tensor(\"arg1:0\", shape=(), dtype=float32)\n");
}

TEST_CASE("seed 001: f(x, y) = x ** 2 + y on [2, 3] and [3, -2] gives [7, 7]", "[seed]") {
  auto f = sf::function([](auto x, auto y) { return sf::pow(x, 2) + y; });
  xt::xtensor_fixed<int, xt::xshape<2>> x = {2, 3}, y = {3, -2};
  auto r = f(x, y);
  CHECK(r(0) == 7);
  CHECK(r(1) == 7);
}

TEST_CASE("seed 001: Python values give one graph each, tensors of one signature share one", "[seed]") {
  auto f = sf::function([](auto x) { return sf::abs(x); });
  // f.get_concrete_function(1) / (2) with Python ints: two graphs. The C++ analog of a Python
  // value is a static value.
  auto& s1 = f.get_concrete_function(sf::static_value<1>{});
  auto& s2 = f.get_concrete_function(sf::static_value<2>{});
  CHECK(static_cast<const void*>(&s1) != static_cast<const void*>(&s2));
  // f.get_concrete_function(tf.constant(1)) / (tf.constant(2)): the same graph. C++ scalars are
  // 0-d tensors.
  auto& t1 = f.get_concrete_function(1);
  auto& t2 = f.get_concrete_function(2);
  CHECK(&t1 == &t2);
  CHECK(f.tracing_count() == 3);
}

TEST_CASE("seed 001: a vector and a matrix get separate graphs", "[seed]") {
  auto f = sf::function([](auto x) { return x + 1; });
  xt::xtensor_fixed<float, xt::xshape<2>> vector = {1.0f, 1.0f};
  xt::xtensor_fixed<float, xt::xshape<1, 1>> matrix = {{3.0f}};
  const void* cv = &f.get_concrete_function(vector);
  const void* cm = &f.get_concrete_function(matrix);
  CHECK(cv != cm);
  CHECK(f(vector)(1) == 2.0f);
  CHECK(f(matrix)(0, 0) == 4.0f);
}

TEST_CASE("seed 002: add(ones([2, 2]), ones([2, 2])) is all 2s", "[seed]") {
  auto add = sf::function([](auto a, auto b) { return a + b; });
  xt::xtensor_fixed<float, xt::xshape<2, 2>> ones = {{1.f, 1.f}, {1.f, 1.f}};
  auto r = add(ones, ones);
  CHECK((r == xt::xtensor_fixed<float, xt::xshape<2, 2>>{{2.f, 2.f}, {2.f, 2.f}}));
}

TEST_CASE("seed 002: double traces once per dtype and lists its concrete signatures", "[seed]") {
  std::ostringstream log;
  auto dbl = sf::function([&](auto a) {
    log << "Tracing with " << a << "\n";
    return a + a;
  });
  CHECK(dbl(1) == 2);
  CHECK(dbl(1.1f) == 2.2f);
  CHECK(dbl("a") == "aa");  // the seed's double(tf.constant('a')): a string tensor
  CHECK(dbl(2) == 4);       // no trace: int32 was seen
  CHECK(dbl("b") == "bb");  // nor for a string
  CHECK(log.str() ==
        "Tracing with Tensor(\"arg0:0\", shape=(), dtype=int32)\n"
        "Tracing with Tensor(\"arg0:0\", shape=(), dtype=float32)\n"
        "Tracing with Tensor(\"arg0:0\", shape=(), dtype=string)\n");
  CHECK(dbl.pretty_printed_concrete_signatures() ==
        "Input Parameters:\n"
        "  arg0 (POSITIONAL_ONLY): TensorSpec(shape=(), dtype=tf.int32, name=None)\n"
        "Output Type:\n"
        "  TensorSpec(shape=(), dtype=tf.int32, name=None)\n"
        "Captures:\n"
        "  None\n\n"
        "Input Parameters:\n"
        "  arg0 (POSITIONAL_ONLY): TensorSpec(shape=(), dtype=tf.float32, name=None)\n"
        "Output Type:\n"
        "  TensorSpec(shape=(), dtype=tf.float32, name=None)\n"
        "Captures:\n"
        "  None\n\n"
        "Input Parameters:\n"
        "  arg0 (POSITIONAL_ONLY): TensorSpec(shape=(), dtype=tf.string, name=None)\n"
        "Output Type:\n"
        "  TensorSpec(shape=(), dtype=tf.string, name=None)\n"
        "Captures:\n"
        "  None");
}

TEST_CASE("seed 002: double's parameter named `a` prints as the seed's Tensor(\"a:0\", ...)", "[seed]") {
  std::ostringstream log;
  auto inner = sf::function([&](auto b) {
    log << "inner sees " << b << "\n";  // an inlined function's parameter is the outer's value
    return b;
  }, sf::arg_names("b"));
  auto dbl = sf::function([&](auto a, auto n) {
    log << "Tracing with " << a << " and " << n << "\n";
    return inner(a) + a * n;
  }, sf::arg_names("a", "n"));
  auto unnamed = sf::function([&](auto a) {
    log << "Tracing with " << a << "\n";
    return a;
  });
  CHECK(dbl(1, 1) == 2);
  CHECK(unnamed(1.5f) == 1.5f);
  CHECK(log.str() ==
        "Tracing with Tensor(\"a:0\", shape=(), dtype=int32) and Tensor(\"n:0\", shape=(), dtype=int32)\n"
        "inner sees Tensor(\"a:0\", shape=(), dtype=int32)\n"
        "Tracing with Tensor(\"arg0:0\", shape=(), dtype=float32)\n");
}

TEST_CASE("seed 002: add(v, 1.0) under a gradient tape: a function called with a variable reads it", "[seed]") {
  sf::variable<float> v{1.f};
  auto add = sf::function([](auto a, auto b) { return a + b; });
  auto gradient_of_add = sf::function([&] {
    sf::gradient_tape tape;
    auto result = add(v, 1.0f);  // inlined: v is read here, as in `v + 1.0f`
    return std::tuple{result, tape.gradient(result, v)};
  });
  auto [result, gradient] = gradient_of_add();
  CHECK(result == 2.f);
  CHECK(gradient == 1.f);
  v.assign(5.f);
  CHECK(std::get<0>(gradient_of_add()) == 6.f);  // read on every call, not at trace time
  CHECK(add.tracing_count() == 0);                // inlined: add's own cache is not touched
  // outside a trace a variable has no symbolic read: the message says to pass its value
  CHECK_THROWS_WITH(add(v, 1.0f), "staticflow: reading an sf::variable as a symbolic tensor (use value() outside) is "
                                  "only possible inside a traced function");
  CHECK(add(v.value(), 1.0f) == 6.f);
}

TEST_CASE("seed 001: list appends while tracing happen once, not per call", "[seed]") {
  std::vector<std::string> l;  // Python's `l.append(i + 1)`: a trace-time effect
  auto f = sf::function([&](auto x) {
    std::ostringstream s;
    s << (x + 1);
    l.push_back(s.str());
    return x + 1;
  });
  xt::xtensor_fixed<int, xt::xshape<3>> x = {1, 2, 3};
  auto r = f(x);
  f(x);
  CHECK(l.size() == 1);
  CHECK(l[0] == "Tensor(\"add:0\", shape=(3,), dtype=int32)");
  CHECK((r == xt::xtensor_fixed<int, xt::xshape<3>>{2, 3, 4}));
}
