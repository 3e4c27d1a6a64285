// Tests for effects/print.hpp: tf.print's formatting, printing on every call (std::cout in the
// lambda only while tracing), and the order of prints among other effects.
#include <catch2/catch.hpp>

#include <cstdint>
#include <sstream>
#include <string>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

namespace {
template <class T>
std::string formatted(const T* data, std::initializer_list<std::size_t> ext, long summarize = 3) {
  std::string s;
  sf::detail::format_tensor(s, data, ext.begin(), ext.size(), summarize);
  return s;
}

/// Redirects std::cout while alive.
struct cout_capture {
  std::ostringstream text;
  std::streambuf* saved = std::cout.rdbuf(text.rdbuf());
  ~cout_capture() { std::cout.rdbuf(saved); }
};
}  // namespace

TEST_CASE("tensors are formatted as tf.print formats them", "[print]") {
  const int v[] = {1, 2, 3, 4, 5, 6};
  CHECK(formatted(v, {}) == "1");
  CHECK(formatted(v, {3}) == "[1 2 3]");
  CHECK(formatted(v, {2, 3}) == "[[1 2 3]\n [4 5 6]]");
  CHECK(formatted(v, {3, 2}) == "[[1 2]\n [3 4]\n [5 6]]");
  CHECK(formatted(v, {2, 1, 3}) == "[[[1 2 3]]\n\n [[4 5 6]]]");
  CHECK(formatted(v, {0}) == "[]");

  int range[10];
  for (int i = 0; i < 10; ++i) range[i] = i;
  CHECK(formatted(range, {10}) == "[0 1 2 ... 7 8 9]");
  CHECK(formatted(range, {10}, -1) == "[0 1 2 3 4 5 6 7 8 9]");
  CHECK(formatted(range, {6}) == "[0 1 2 3 4 5]");
  CHECK(formatted(range, {10, 1}, 1) == "[[0]\n ...\n [9]]");

  const float f[] = {1.5f, 2.f, 1.f / 3.f, 0.1f, -0.f, 1e20f};
  CHECK(formatted(f, {6}) == "[1.5 2 0.333333343 0.1 -0 1e+20]");
  const double d[] = {1.0 / 3.0, 0.25};
  CHECK(formatted(d, {2}) == "[0.33333333333333331 0.25]");
  const bool b[] = {true, false};
  CHECK(formatted(b, {2}) == "[True False]");
  const std::int64_t big[] = {-9000000000};
  CHECK(formatted(big, {1}) == "[-9000000000]");
}

TEST_CASE("sf::print runs on every call; std::cout in the lambda only while tracing", "[print]") {
  std::ostringstream printed;
  cout_capture out;
  auto f = sf::function([&](auto x) {
    std::cout << "Tracing with " << x << "\n";
    sf::print(sf::output_stream(printed), "x:", x, "sum:", sf::reduce_sum(x));
    return x * 2;
  });
  f(xt::xtensor<int, 1>{1, 2, 3});
  f(xt::xtensor<int, 1>{4, 5, 6});
  f(xt::xtensor<int, 1>{7});
  CHECK(printed.str() == "x: [1 2 3] sum: 6\nx: [4 5 6] sum: 15\nx: [7] sum: 7\n");
  CHECK(out.text.str() == "Tracing with Tensor(\"arg0:0\", shape=(None,), dtype=int32)\n");
}

TEST_CASE("prints take their place among the other effects", "[print][variable]") {
  std::ostringstream printed;
  sf::variable<int> v{1};
  auto f = sf::function([&](auto n) {
    sf::print(sf::output_stream(printed), "before:", v);
    sf::for_range(n, [&](auto i) {
      v.assign_add(i);
      sf::print(sf::output_stream(printed), "i", i, "v", v);
    });
    sf::print(sf::output_stream(printed), "after:", v, 2.5, "done");
  });
  f(3);
  CHECK(printed.str() == "before: 1\ni 0 v 1\ni 1 v 2\ni 2 v 4\nafter: 4 2.5 done\n");
}

TEST_CASE("sf::print writes to std::cerr by default and prints at once outside a function", "[print]") {
  std::ostringstream err;
  std::streambuf* saved = std::cerr.rdbuf(err.rdbuf());
  sf::print("plain", 3, true);
  auto f = sf::function([](auto x) { sf::print(sf::summarize(1), x); });
  f(xt::xtensor<float, 1>{0.5f, 1.f, 2.f, 4.f});
  std::cerr.rdbuf(saved);
  CHECK(err.str() == "plain 3 True\n[0.5 ... 4]\n");
}
