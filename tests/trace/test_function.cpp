// Tests for trace/function.hpp: tracing once per signature, side effects at trace time only,
// polymorphism, get_concrete_function identity, pretty-printed signatures, static values.
#include <catch2/catch.hpp>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

using vec2i = xt::xtensor_fixed<int, xt::xshape<2>>;

TEST_CASE("a call traces once per signature and evaluates every time", "[function]") {
  int traces = 0;
  auto f = sf::function([&](auto x, auto y) {
    ++traces;  // a C++ side effect: runs only while tracing
    return x * x + y;
  });
  vec2i x = {2, 3}, y = {3, -2};
  auto r = f(x, y);
  CHECK(r(0) == 7);
  CHECK(r(1) == 7);
  CHECK(traces == 1);
  CHECK(f.tracing_count() == 1);

  vec2i r2 = f(y, x);  // same signature: no trace, new values
  CHECK(r2(0) == 11);
  CHECK(r2(1) == 7);
  CHECK(traces == 1);

  xt::xtensor_fixed<float, xt::xshape<2>> xf = {1.5f, 2.f}, yf = {1.f, 1.f};
  auto rf = f(xf, yf);  // float32: a second graph
  CHECK(rf(0) == 3.25f);
  CHECK(rf(1) == 5.f);
  CHECK(traces == 2);
  CHECK(f.tracing_count() == 2);

  xt::xtensor_fixed<int, xt::xshape<3>> x3 = {1, 2, 3};
  auto r3 = f(x3, x3);  // another static shape: a third graph
  CHECK(r3(2) == 12);
  CHECK(f.tracing_count() == 3);
}

TEST_CASE("C++ scalars are 0-d tensors: new values do not retrace", "[function]") {
  auto f = sf::function([](auto x, auto y) { return x * 2 + y; });
  CHECK(f(1, 2) == 4);
  CHECK(f(10, -3) == 17);
  CHECK(f.tracing_count() == 1);
  CHECK(f(1.5, 0.25) == 3.25);  // double: float64, a new graph
  CHECK(f.tracing_count() == 2);
  static_assert(std::is_same_v<decltype(f(1, 2)), int>);
  static_assert(std::is_same_v<decltype(f(1.5, 0.25)), double>);
  static_assert(std::is_same_v<decltype(f(1L, 2L)), std::int64_t>);
}

TEST_CASE("static values are part of the signature and reach the lambda as constants", "[function]") {
  std::vector<int> seen;
  auto f = sf::function([&](auto x, auto n) {
    seen.push_back(decltype(n)::value);
    if constexpr (decltype(n)::value > 2) return x * n;  // a C++ `if` on a static value is fine
    else return x + n;
  });
  xt::xtensor_fixed<int, xt::xshape<2>> x = {1, 2};
  auto a = f(x, sf::static_value<3>{});
  auto b = f(x, sf::static_value<1>{});
  auto c = f(x, sf::static_value<3>{});
  CHECK(a(1) == 6);
  CHECK(b(1) == 3);
  CHECK(c(0) == 3);
  CHECK(seen == std::vector<int>{3, 1});
  CHECK(f.tracing_count() == 2);
  const void* three = &f.get_concrete_function(x, sf::static_value<3>{});
  const void* one = &f.get_concrete_function(x, sf::static_value<1>{});
  CHECK(three != one);
}

TEST_CASE("get_concrete_function returns one object per signature", "[function]") {
  auto f = sf::function([](auto x) { return sf::abs(x); });
  auto& f1 = f.get_concrete_function(1);
  auto& f2 = f.get_concrete_function(2);  // same signature (int32 scalar): the same object
  CHECK(&f1 == &f2);
  auto& f3 = f.get_concrete_function(sf::spec<int>{});
  CHECK(&f1 == &f3);
  CHECK(f.tracing_count() == 1);

  auto g = sf::function([](auto x) { return x + 1; });
  xt::xtensor_fixed<float, xt::xshape<2>> vector = {1.f, 1.f};
  xt::xtensor_fixed<float, xt::xshape<1, 1>> matrix = {{3.f}};
  auto& cv = g.get_concrete_function(vector);
  auto& cm = g.get_concrete_function(matrix);
  CHECK(static_cast<const void*>(&cv) != static_cast<const void*>(&cm));
  CHECK(g.tracing_count() == 2);
  CHECK(cv(vector)(1) == 2.f);
  CHECK(cm(matrix)(0, 0) == 4.f);
  // a concrete function can be called directly, with no lookup
  CHECK(f1(-5) == 5);
}

TEST_CASE("pretty_printed_concrete_signatures uses TensorFlow's format", "[function]") {
  auto dbl = sf::function([](auto a) { return a + a; });
  dbl(1);
  dbl(1.1f);
  CHECK(dbl.pretty_printed_concrete_signatures() ==
        "Input Parameters:\n"
        "  arg0 (POSITIONAL_ONLY): TensorSpec(shape=(), dtype=tf.int32, name=None)\n"
        "Output Type:\n"
        "  TensorSpec(shape=(), dtype=tf.int32, name=None)\n"
        "Captures:\n"
        "  None\n"
        "\n"
        "Input Parameters:\n"
        "  arg0 (POSITIONAL_ONLY): TensorSpec(shape=(), dtype=tf.float32, name=None)\n"
        "Output Type:\n"
        "  TensorSpec(shape=(), dtype=tf.float32, name=None)\n"
        "Captures:\n"
        "  None");

  auto two = sf::function([](auto x, auto n) { return std::tuple{x * n, x > 0}; });
  xt::xtensor<double, 2> m = {{1., -2.}};
  two(m, sf::static_value<2>{});
  CHECK(two.pretty_printed_concrete_signatures() ==
        "Input Parameters:\n"
        "  arg0 (POSITIONAL_ONLY): TensorSpec(shape=(None, None), dtype=tf.float64, name=None)\n"
        "  arg1 (POSITIONAL_ONLY): Literal[2]\n"
        "Output Type:\n"
        "  Tuple[TensorSpec(shape=(None, None), dtype=tf.float64, name=None), "
        "TensorSpec(shape=(None, None), dtype=tf.bool, name=None)]\n"
        "Captures:\n"
        "  None");
}

TEST_CASE("several outputs come back as a std::tuple", "[function]") {
  auto f = sf::function([](auto x, auto y) { return std::tuple{x + y, x * y, x < y}; });
  xt::xtensor<float, 1> x = {1.f, 5.f}, y = {2.f, 3.f};
  auto [sum, product, less] = f(x, y);
  CHECK((sum == xt::xtensor<float, 1>{3.f, 8.f}));
  CHECK((product == xt::xtensor<float, 1>{2.f, 15.f}));
  CHECK(less(0));
  CHECK_FALSE(less(1));
  static_assert(std::is_same_v<decltype(less), xt::xtensor<bool, 1>>);
}

TEST_CASE("a lambda may return one of its arguments or a broadcast literal expression", "[function]") {
  auto identity = sf::function([](auto x) { return x; });
  xt::xtensor<int, 2> m = {{1, 2}, {3, 4}};
  CHECK((identity(m) == m));
  auto zeros_like = sf::function([](auto x) { return x * 0; });
  CHECK((zeros_like(m) == xt::xtensor<int, 2>{{0, 0}, {0, 0}}));
}

TEST_CASE("concurrent first calls trace once and agree", "[function][threads]") {
  std::atomic<int> traces{0};
  auto f = sf::function([&](auto x) {
    traces.fetch_add(1);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // widen the race window
    return x * 3;
  });
  std::vector<std::thread> threads;
  std::vector<int> results(8, 0);
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 100; ++i) results[t] += f(t);
    });
  for (auto& th : threads) th.join();
  CHECK(traces.load() == 1);
  CHECK(f.tracing_count() == 1);
  for (int t = 0; t < 8; ++t) CHECK(results[t] == 300 * t);
}

TEST_CASE("many signatures grow the cache and every one is still found", "[function]") {
  auto f = sf::function([](auto x, auto n) { return x + n; });
  // 40 signatures (static values 0..39) force the lock-free table to grow twice
  [&]<int... N>(std::integer_sequence<int, N...>) {
    (f(1, sf::static_value<N>{}), ...);
    CHECK(f.tracing_count() == sizeof...(N));
    CHECK(((f(1, sf::static_value<N>{}) == 1 + N) && ...));
    CHECK(f.tracing_count() == sizeof...(N));
  }(std::make_integer_sequence<int, 40>{});
}

TEST_CASE("a moved function keeps its cache; the moved-from one is empty and usable", "[function]") {
  auto f = sf::function([](auto x) { return x + 1; });
  auto& c = f.get_concrete_function(1);
  auto g = std::move(f);
  CHECK(g.tracing_count() == 1);
  CHECK(&g.get_concrete_function(5) == &c);
  CHECK(g(1) == 2);
  CHECK(f.tracing_count() == 0);  // NOLINT(bugprone-use-after-move): documented state
  CHECK(f(1) == 2);
  CHECK(f.tracing_count() == 1);
}

TEST_CASE("two function objects over the same lambda type have separate caches", "[function]") {
  auto make = [](int k) { return sf::function([k](auto x) { return x * k; }); };
  auto times2 = make(2);
  auto times3 = make(3);  // same lambda type, another object: traced separately
  CHECK(times2(5) == 10);
  CHECK(times3(5) == 15);
  CHECK(times2(7) == 14);
  CHECK(times3(7) == 21);
  CHECK(times2.tracing_count() == 1);
  CHECK(times3.tracing_count() == 1);
}
