// Tests for trace/eager_mode.hpp: sf::run_functions_eagerly runs the lambda on every call, op by
// op, with the results, prints and effects of traced mode.
#include <catch2/catch.hpp>

#include <cstdint>
#include <sstream>
#include <string>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

TEST_CASE("eager mode runs the lambda on every call and gives the traced results", "[eager]") {
  int runs = 0;
  auto f = sf::function([&](auto x) {
    ++runs;
    auto y = sf::cond(sf::reduce_sum(x) > 0, [&] { return sf::abs(x); }, [&] { return sf::square(x); });
    auto steps = sf::while_loop([](auto, auto m) { return m < 100; }, [](auto s, auto m) { return std::tuple{s + 1, m * 2}; },
                                0, sf::reduce_max(sf::abs(x)) + 1);
    return std::tuple{y, std::get<0>(steps), sf::softmax(sf::cast<float>(x))};
  });
  const xt::xtensor<int, 1> pos{1, 2, -1}, neg{-1, -2, 1};
  const auto traced_pos = f(pos);
  const auto traced_neg = f(neg);
  CHECK(runs == 1);
  {
    sf::run_functions_eagerly_scope eager;
    CHECK(sf::functions_run_eagerly());
    const auto eager_pos = f(pos);
    const auto eager_neg = f(neg);
    CHECK(runs == 3);
    CHECK((std::get<0>(eager_pos) == std::get<0>(traced_pos)));
    CHECK((std::get<0>(eager_neg) == xt::xtensor<int, 1>{1, 4, 1}));
    CHECK(std::get<1>(eager_pos) == std::get<1>(traced_pos));
    CHECK(xt::allclose(std::get<2>(eager_neg), std::get<2>(traced_neg)));
  }
  CHECK(!sf::functions_run_eagerly());
  f(pos);
  CHECK(runs == 3);
  CHECK(f.tracing_count() == 1);  // eager calls neither trace into nor read the cache
}

TEST_CASE("eager mode runs prints and effects as traced mode does", "[eager][variable][print]") {
  std::ostringstream printed;
  sf::variable<int> v{1};
  auto f = sf::function([&](auto n) {
    sf::for_range(n, [&](auto i) { v.assign_add(i); });
    sf::print(sf::output_stream(printed), "v =", v);
    return v * 10;
  });
  CHECK(f(3) == 40);
  sf::run_functions_eagerly(true);
  CHECK(f(3) == 70);
  std::int32_t into = 0;
  f.call_into(into, 1);
  sf::run_functions_eagerly(false);
  CHECK(into == 70);
  CHECK(printed.str() == "v = 4\nv = 7\nv = 7\n");
  CHECK(v.value() == 7);
}

TEST_CASE("eager mode covers calls through the dispatch map", "[eager][dispatch]") {
  int runs = 0;
  auto f = sf::function([&](auto x) {
    ++runs;
    return x * 2.f;
  });
  const xt::xarray<float> a = xt::xarray<float>{1.f, 2.f};
  CHECK((f(a) == xt::xarray<float>{2.f, 4.f}));
  CHECK(runs == 1);
  sf::run_functions_eagerly_scope eager;
  CHECK((f(a) == xt::xarray<float>{2.f, 4.f}));
  xt::xarray<float> out = xt::zeros<float>({2});
  f.call_into(out, a);
  CHECK((out == xt::xarray<float>{2.f, 4.f}));
  CHECK(runs == 3);
  CHECK(f.tracing_count() == 1);
}

TEST_CASE("eager calls see values: std::cout shows them, cond runs one branch, for_range is a C++ loop",
          "[eager][cond][for_range]") {
  std::ostringstream seen;
  int true_runs = 0, false_runs = 0, body_runs = 0;
  sf::variable<int> total{0};
  auto f = sf::function([&](auto x) {
    seen << x << "\n";  // a traced call shows the spec, an eager one the values
    auto y = sf::cond(
        sf::reduce_sum(x) > 0, [&] { ++true_runs; return sf::abs(x); }, [&] { ++false_runs; return sf::square(x); });
    sf::for_range(sf::size(x), [&](auto i) {
      ++body_runs;
      total.assign_add(x[i]);
    });
    return y + 1;
  });
  const xt::xtensor<int, 1> pos{1, 2, -1}, neg{-1, -2, 1};
  CHECK((f(pos) == xt::xtensor<int, 1>{2, 3, 2}));  // traced: both branches traced, the body once
  CHECK(true_runs == 1);
  CHECK(false_runs == 1);
  CHECK(body_runs == 1);
  CHECK(total.value() == 2);
  {
    sf::run_functions_eagerly_scope eager;
    CHECK((f(neg) == xt::xtensor<int, 1>{2, 5, 2}));
    CHECK(true_runs == 1);   // only the branch taken ran
    CHECK(false_runs == 2);
    CHECK(body_runs == 4);   // once per element
    CHECK(total.value() == 0);
    CHECK((f(pos) == xt::xtensor<int, 1>{2, 3, 2}));
    CHECK(true_runs == 2);
    CHECK(false_runs == 2);
  }
  CHECK(seen.str() == "Tensor(\"arg0:0\", shape=(None,), dtype=int32)\n"
                      "tf.Tensor([-1 -2 1], shape=(3,), dtype=int32)\n"
                      "tf.Tensor([1 2 -1], shape=(3,), dtype=int32)\n");
  CHECK(total.value() == 2);
}

TEST_CASE("an eager call that throws puts its variables back", "[eager][variable]") {
  sf::variable<int> v{5};
  auto f = sf::function([&](auto a, auto b) {
    v.assign_add(1);  // runs at once in eager mode
    return a + b;     // throws on mismatched lengths
  });
  sf::run_functions_eagerly_scope eager;
  CHECK_THROWS_AS(f(xt::xtensor<int, 1>{1, 2}, xt::xtensor<int, 1>{1, 2, 3}), sf::shape_error);
  CHECK(v.value() == 5);
  CHECK((f(xt::xtensor<int, 1>{1, 2}, xt::xtensor<int, 1>{3, 4}) == xt::xtensor<int, 1>{4, 6}));
  CHECK(v.value() == 6);
}

TEST_CASE("an eager while_loop is a C++ loop: its body runs on every iteration", "[eager][while_loop]") {
  int body_runs = 0;
  auto collatz = sf::function([&](auto n) {
    auto [steps, m] = sf::while_loop([](auto, auto m) { return m != 1; },
                                     [&](auto s, auto m) {
                                       ++body_runs;
                                       return std::tuple{s + 1, sf::where(m % 2 == 0, m / 2, 3 * m + 1)};
                                     },
                                     0, n);
    return steps;
  });
  CHECK(collatz(27) == 111);
  CHECK(body_runs == 1);  // traced once
  sf::run_functions_eagerly_scope eager;
  CHECK(collatz(27) == 111);
  CHECK(body_runs == 1 + 111);
  CHECK(collatz(1) == 0);
  CHECK(body_runs == 112);
  auto sum_to = sf::function([](auto n) { return sf::fori_loop(0, n, [](auto i, auto acc) { return acc + i; }, 0); });
  CHECK(sum_to(5) == 10);  // fori_loop's counter is a loop variable too
}
