// Tests for control/while_loop.hpp: data-dependent trip counts, several and vector variables,
// variables of run-time shape, maximum_iterations, nested loops, the break / continue / early
// return idioms, errors inside a loop, and the loop computed once per call.
#include <catch2/catch.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

namespace {
std::int32_t collatz_reference(std::int32_t n) {
  std::int32_t steps = 0;
  while (n != 1) n = n % 2 == 0 ? n / 2 : 3 * n + 1, ++steps;
  return steps;
}
}  // namespace

TEST_CASE("the issue's Collatz loop counts the steps to 1", "[while_loop]") {
  auto collatz = sf::function([](auto n) {
    auto [steps, m] = sf::while_loop([](auto, auto m) { return m != 1; },
                                     [](auto s, auto m) { return std::tuple{s + 1, sf::where(m % 2 == 0, m / 2, 3 * m + 1)}; },
                                     0, n);
    return steps;
  });
  for (std::int32_t n : {1, 2, 3, 6, 7, 27, 97, 871}) CHECK((collatz(n) == collatz_reference(n)));
  CHECK((collatz(27) == 111));
  CHECK((collatz.tracing_count() == 1));
}

TEST_CASE("the Collatz loop with static values (2_c) gives the same counts", "[while_loop]") {
  using namespace sf::literals;
  auto collatz = sf::function([](auto n) {
    auto [steps, m] = sf::while_loop([](auto, auto m) { return m != 1_c; },
                                     [](auto s, auto m) {
                                       return std::tuple{s + 1_c, sf::where(m % 2_c == 0_c, m / 2_c, 3_c * m + 1_c)};
                                     },
                                     0, n);
    return steps;
  });
  for (std::int32_t n : {1, 2, 3, 6, 7, 27, 97, 871}) CHECK((collatz(n) == collatz_reference(n)));
  // with a maximum the scalar loop stops early, and without one it needs no counter
  auto capped = sf::function([](auto n) {
    auto [steps, m] = sf::while_loop([](auto, auto m) { return m != 1_c; },
                                     [](auto s, auto m) { return std::tuple{s + 1_c, sf::where(m % 2_c == 0_c, m / 2_c, 3_c * m + 1_c)}; },
                                     0, n, sf::maximum_iterations(5));
    return std::tuple{steps, m};
  });
  const auto [s27, m27] = capped(27);
  CHECK((s27 == 5));
  CHECK((m27 == 31));  // 27 -> 82 -> 41 -> 124 -> 62 -> 31
  const auto [s4, m4] = capped(4);  // done before the maximum
  CHECK((s4 == 2));
  CHECK((m4 == 1));
}

TEST_CASE("one variable: the body returns a single value", "[while_loop]") {
  auto f = sf::function([](auto x) {
    return sf::while_loop([](auto v) { return sf::reduce_sum(v) < 100.f; }, [](auto v) { return v * 2.f; }, x);
  });
  xt::xtensor_fixed<float, xt::xshape<3>> x = {1, 2, 3};
  CHECK((f(x) == xt::xtensor_fixed<float, xt::xshape<3>>{32, 64, 96}));
  xt::xtensor<float, 1> big = {200, 1};
  CHECK((f(big) == big));  // the condition fails at once: zero iterations
}

TEST_CASE("a variable of run-time shape may change its extents", "[while_loop]") {
  auto f = sf::function([](auto x) {
    return sf::while_loop([](auto v) { return sf::size(v) < 8; }, [](auto v) { return sf::concat<0>(v, v * 2); }, x);
  });
  xt::xtensor<int, 1> x = {1};
  CHECK((f(x) == xt::xtensor<int, 1>{1, 2, 2, 4, 2, 4, 4, 8}));
  xt::xtensor<int, 1> y = {1, 2, 3};
  CHECK((f(y) == xt::xtensor<int, 1>{1, 2, 3, 2, 4, 6, 2, 4, 6, 4, 8, 12}));
}

TEST_CASE("maximum_iterations stops a loop whose condition still holds", "[while_loop]") {
  // the limit is a C++ value, part of the traced graph (tf.while_loop's maximum_iterations)
  auto counted = [](std::int64_t limit) {
    return sf::function([limit](auto start) {
      return sf::while_loop([](auto i) { return i < 1000; }, [](auto i) { return i + 1; }, start,
                            sf::maximum_iterations(limit));
    });
  };
  auto ten = counted(10), none = counted(0), many = counted(5000);
  CHECK((ten(0) == 10));
  CHECK((ten(995) == 1000));  // the condition stops it first
  CHECK((none(7) == 7));
  CHECK((many(0) == 1000));
}

TEST_CASE("nested loops: the inner loop reads the outer loop's variables", "[while_loop]") {
  // sum over i < n of (sum over j < i of j)
  auto f = sf::function([](auto n) {
    auto [i, total] = sf::while_loop(
        [&](auto i, auto) { return i < n; },
        [](auto i, auto total) {
          auto [j, inner] = sf::while_loop([&](auto j, auto) { return j < i; },
                                           [](auto j, auto acc) { return std::tuple{j + 1, acc + j}; }, 0, 0);
          return std::tuple{i + 1, total + inner};
        },
        0, 0);
    return total;
  });
  CHECK((f(0) == 0));
  CHECK((f(4) == 0 + 0 + 1 + 3));
  CHECK((f(10) == 120));
}

TEST_CASE("break idiom: a done flag in the loop state stops at the first match", "[while_loop][idiom]") {
  // for i in range(n): if x[i] > t: break  -> the index of the first element above t, or n
  auto first_above = sf::function([](auto x, auto t) {
    auto [i, done] = sf::while_loop([&](auto i, auto done) { return (i < sf::size(x)) && !done; },
                                    [&](auto i, auto) {
                                      auto hit = x[i] > t;
                                      return std::tuple{sf::where(hit, i, i + 1), hit};
                                    },
                                    0, false);
    return i;
  });
  xt::xtensor<float, 1> x = {1, 5, 2, 7};
  CHECK((first_above(x, 4.f) == 1));
  CHECK((first_above(x, 6.f) == 3));
  CHECK((first_above(x, 9.f) == 4));
}

TEST_CASE("continue idiom: the rest of the body is skipped with where", "[while_loop][idiom]") {
  // for i in range(n): if x[i] < 0: continue; total += x[i]
  auto sum_positive = sf::function([](auto x) {
    auto [i, total] = sf::while_loop([&](auto i, auto) { return i < sf::size(x); },
                                     [&](auto i, auto total) {
                                       auto v = x[i];
                                       return std::tuple{i + 1, sf::where(v < 0, total, total + v)};
                                     },
                                     0, 0);
    return total;
  });
  xt::xtensor<int, 1> x = {3, -1, 4, -1, 5};
  CHECK((sum_positive(x) == 12));
}

TEST_CASE("early return idiom: a done flag and a result variable", "[while_loop][idiom]") {
  // for i in range(n): if x[i] == target: return i * 10   ... return -1
  auto find = sf::function([](auto x, auto target) {
    auto [i, done, result] = sf::while_loop(
        [&](auto i, auto done, auto) { return (i < sf::size(x)) && !done; },
        [&](auto i, auto, auto result) {
          auto found = x[i] == target;
          return std::tuple{i + 1, found, sf::where(found, i * 10, result)};
        },
        0, false, -1);
    return result;
  });
  xt::xtensor<int, 1> x = {4, 8, 15, 16, 23, 42};
  CHECK((find(x, 15) == 20));
  CHECK((find(x, 4) == 0));
  CHECK((find(x, 99) == -1));
}

TEST_CASE("an error inside the loop throws and leaves the output untouched", "[while_loop]") {
  auto f = sf::function([](auto x, auto steps) {
    auto [i, acc] = sf::while_loop([&](auto i, auto) { return i < steps; },
                                   [&](auto i, auto acc) { return std::tuple{i + 1, acc + x[i]}; }, 0, 0.f);
    return acc;
  });
  xt::xtensor<float, 1> x = {1, 2, 3};
  CHECK((f(x, 3) == 6.f));
  float out = -1.f;
  CHECK_THROWS_AS(f.call_into(out, x, 5), sf::shape_error);
  CHECK_THROWS_WITH(f(x, 5), "staticflow: x[i]: index 3 is out of range for an axis of size 3");
  CHECK((out == -1.f));
}

TEST_CASE("a loop whose results are used several times runs once per call", "[while_loop]") {
  auto f = sf::function([](auto n) {
    auto [i, p] = sf::while_loop([&](auto i, auto) { return i < n; }, [](auto i, auto p) { return std::tuple{i + 1, p * 2}; }, 0, 1);
    return i * 1000 + p + p;
  });
  (void)f(3);
  const auto before = sf::plan::materialization_counter();
  CHECK((f(5) == 5000 + 64));
  CHECK((sf::plan::materialization_counter() - before == 1));
}

TEST_CASE("loop variables may be tensors of any dtype; literals take their canonical dtype", "[while_loop]") {
  auto f = sf::function([](auto x) {
    auto [k, v, flag] = sf::while_loop([](auto k, auto, auto) { return k < std::int64_t{3}; },
                                       [](auto k, auto v, auto flag) { return std::tuple{k + 1, v * v, !flag}; },
                                       std::int64_t{0}, x, true);
    return std::tuple{k, v, flag};
  });
  auto [k, v, flag] = f(2.0);
  CHECK((k == 3));
  CHECK((v == 256.0));
  CHECK((flag == false));
}
