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
    auto steps = sf::while_loop([](auto s, auto m) { return m < 100; }, [](auto s, auto m) { return std::tuple{s + 1, m * 2}; },
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
