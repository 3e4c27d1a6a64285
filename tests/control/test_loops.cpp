// Tests for control/fori_loop.hpp, control/scan.hpp, control/tensor_array.hpp and
// control/index.hpp: counted loops (run-time, static unrolled, static long), scan / map_fn,
// tensor arrays (the seed's TensorArray example, growth, fixed size errors), x[i], sf::size,
// sf::dim and sf::shape_of.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

TEST_CASE("seed 001: a TensorArray written in a loop stacks to [2, 3, 4]", "[tensor_array][seed]") {
  auto plus_one = sf::function([](auto x) {
    auto ta = sf::fori_loop(0, sf::size(x), [&](auto i, auto ta) { return ta.write(i, x[i] + 1); },
                            sf::tensor_array<int>{});
    return ta.stack();
  });
  xt::xtensor_fixed<int, xt::xshape<3>> x = {1, 2, 3};
  CHECK((plus_one(x) == xt::xtensor<int, 1>{2, 3, 4}));
  xt::xtensor<int, 1> y = {10, 20, 30, 40, 50};  // run-time length: the array grows as written
  CHECK((plus_one(y) == xt::xtensor<int, 1>{11, 21, 31, 41, 51}));
  xt::xtensor<int, 1> empty = xt::xtensor<int, 1>::from_shape({0});
  CHECK((plus_one(empty).size() == 0));
}

TEST_CASE("fori_loop with run-time bounds", "[fori_loop]") {
  auto f = sf::function([](auto lo, auto hi) {
    return sf::fori_loop(lo, hi, [](auto i, auto acc) { return acc + i * i; }, 0);
  });
  CHECK((f(0, 4) == 0 + 1 + 4 + 9));
  CHECK((f(2, 5) == 4 + 9 + 16));
  CHECK((f(5, 2) == 0));  // an empty range runs no iteration
  auto g = sf::function([](auto n) {  // int64 bounds count in int64
    return sf::fori_loop(std::int64_t{0}, n, [](auto i, auto acc) { return acc + i; }, std::int64_t{0});
  });
  CHECK((g(std::int64_t{100000}) == std::int64_t{4999950000}));
}

TEST_CASE("fori_loop over a vector: several variables", "[fori_loop]") {
  auto f = sf::function([](auto v, auto n) {
    auto [a, b] = sf::fori_loop(0, n, [](auto, auto a, auto b) { return std::tuple{a + b, a}; }, v, v * 0.f);
    return a;
  });
  xt::xtensor<float, 1> v = {1, 2};
  CHECK((f(v, 5) == xt::xtensor<float, 1>{8, 16}));  // Fibonacci: (1,0) (1,1) (2,1) (3,2) (5,3) (8,5), times v
}

TEST_CASE("a loop variable no other output reads is updated in place; the others see old values", "[fori_loop]") {
  using vec = xt::xtensor_fixed<float, xt::xshape<40>>;
  vec v0, w0;
  for (std::size_t i = 0; i < 40; ++i) v0[i] = float(i), w0[i] = 100.f - float(i);
  // v is updated in place (only its own output reads it), w reads v: w must see v before the step
  auto f = sf::function([](auto v, auto w, auto n) {
    return sf::fori_loop(0, n, [](auto, auto v, auto w) { return std::tuple{v * 0.5f + 1.f, w + v}; }, v, w);
  });
  // both read each other (a Fibonacci pair): neither may be overwritten before the other is computed
  auto fib = sf::function([](auto a, auto b, auto n) {
    return sf::fori_loop(0, n, [](auto, auto a, auto b) { return std::tuple{b, a + b}; }, a, b);
  });
  const auto [v, w] = f(v0, w0, 7);
  const auto [a, b] = fib(v0, w0, 7);
  for (std::size_t i = 0; i < 40; ++i) {
    float rv = v0[i], rw = w0[i], ra = v0[i], rb = w0[i];
    for (int k = 0; k < 7; ++k) {
      const float nv = rv * 0.5f + 1.f, nw = rw + rv;
      rv = nv, rw = nw;
      const float na = rb, nb = ra + rb;
      ra = na, rb = nb;
    }
    CHECK(v[i] == rv);
    CHECK(w[i] == rw);
    CHECK(a[i] == ra);
    CHECK(b[i] == rb);
  }
}

TEST_CASE("fori_loop with static bounds unrolls short loops and loops long ones", "[fori_loop]") {
  auto short_loop = sf::function([](auto x) {
    return sf::fori_loop(sf::static_value<0>{}, sf::static_value<3>{}, [](auto i, auto v) { return v * 2 + i; }, x);
  });
  CHECK((short_loop(1.f) == 12.f));  // ((1*2+0)*2+1)*2+2
  const std::string listing = short_loop.get_concrete_function(1.f).graph_string();
  CHECK((listing.find("While") == std::string::npos));  // unrolled: no loop in the graph
  auto long_loop = sf::function([](auto x) {
    return sf::fori_loop(sf::static_value<0>{}, sf::static_value<100>{}, [](auto i, auto v) { return v + i; }, x);
  });
  CHECK((long_loop(0) == 4950));
  // the listing says why a loop with static bounds is a loop (issue 25 scope 2)
  const std::string long_listing = long_loop.get_concrete_function(0).graph_string();
  CHECK_THAT(long_listing, Catch::Matchers::Contains(" = While[\n      not_unrolled=100 static steps > STATICFLOW_UNROLL_LIMIT 16\n      cond={"));
  auto run_time_bounds = sf::function([](auto x) { return sf::fori_loop(0, 100, [](auto i, auto v) { return v + i; }, x); });
  CHECK((run_time_bounds(0) == 4950));
  CHECK_THAT(run_time_bounds.get_concrete_function(0).graph_string(),
             !Catch::Matchers::Contains("not_unrolled") && Catch::Matchers::Contains(" = While[\n      cond={"));
}

TEST_CASE("scan accumulates a carry and stacks per-step results", "[scan]") {
  auto cumsum = sf::function([](auto xs) {
    return sf::scan([](auto carry, auto x) { return std::tuple{carry + x, carry + x}; }, 0.f, xs);
  });
  xt::xtensor_fixed<float, xt::xshape<4>> xs = {1, 2, 3, 4};
  auto [total, running] = cumsum(xs);
  CHECK((total == 10.f));
  CHECK((running == xt::xtensor_fixed<float, xt::xshape<4>>{1, 3, 6, 10}));
  xt::xtensor<float, 2> rows = {{1, 2}, {3, 4}, {5, 6}};  // scan over rows with a vector carry
  auto row_scan = sf::function([](auto m) {
    return sf::scan([](auto c, auto row) { return std::tuple{c + row, sf::reduce_sum(c)}; }, m[0] * 0.f, m);
  });
  auto [c, sums] = row_scan(rows);
  CHECK((c == xt::xtensor<float, 1>{9, 12}));
  CHECK((sums == xt::xtensor<float, 1>{0, 3, 10}));
  // per-step results of run-time shape: the results array learns its element shape at the first
  // write (it used to throw "the element has shape (2,), the array's elements have shape (0,)")
  auto running_rows = sf::function([](auto m) {
    return sf::scan([](auto c, auto row) { return std::tuple{c + row, c + row}; }, m[0] * 0.f, m);
  });
  auto [last, partial] = running_rows(rows);
  CHECK((last == xt::xtensor<float, 1>{9, 12}));
  CHECK((partial == xt::xtensor<float, 2>{{1, 2}, {4, 6}, {9, 12}}));
  auto [one, one_row] = running_rows(xt::xtensor<float, 2>{{7, 8, 9}});
  CHECK((one == xt::xtensor<float, 1>{7, 8, 9}));
  CHECK((one_row == xt::xtensor<float, 2>{{7, 8, 9}}));
}

TEST_CASE("map_fn applies a function to each row", "[map_fn]") {
  auto norms = sf::function([](auto m) { return sf::map_fn([](auto row) { return sf::reduce_sum(row * row); }, m); });
  xt::xtensor<float, 2> m = {{3, 4}, {1, 0}, {0, 2}};
  CHECK((norms(m) == xt::xtensor<float, 1>{25, 1, 4}));
  auto twice = sf::function([](auto m) { return sf::map_fn([](auto row) { return row * 2; }, m); });
  xt::xtensor_fixed<int, xt::xshape<2, 3>> a = {{1, 2, 3}, {4, 5, 6}};
  CHECK((twice(a) == xt::xtensor_fixed<int, xt::xshape<2, 3>>{{2, 4, 6}, {8, 10, 12}}));
}

TEST_CASE("tensor arrays: fixed size, growth, read, size, and their errors", "[tensor_array]") {
  auto fill = sf::function([](auto n, auto size) {
    auto ta = sf::fori_loop(0, n, [](auto i, auto ta) { return ta.write(i, sf::cast<float>(i) * 0.5f); },
                            sf::tensor_array<float>::with_size(size));
    return std::tuple{ta.stack(), ta.size(), ta.read(1)};
  });
  auto [stacked, size, second] = fill(3, 4);
  CHECK((stacked == xt::xtensor<float, 1>{0.f, 0.5f, 1.f, 0.f}));  // unwritten elements are zeros
  CHECK((size == 4));
  CHECK((second == 0.5f));
  CHECK_THROWS_WITH(fill(5, 4), "staticflow: tensor_array::write: index 4 is out of range for a tensor array of size 4 "
                                "(its size is fixed; make it with dynamic_size to let it grow)");
  // an array of vectors, written out of order: it grows to the largest index written
  auto rows = sf::function([](auto x) {
    auto ta = sf::tensor_array<float, sf::shape<2>>{}.write(2, x).write(0, x * 2.f);
    return ta.stack();
  });
  xt::xtensor_fixed<float, xt::xshape<2>> x = {1, 2};
  CHECK((rows(x) == xt::xtensor<float, 2>{{2, 4}, {0, 0}, {1, 2}}));
  auto negative = sf::function([](auto i) { return sf::tensor_array<int>{}.write(i, 1).stack(); });
  CHECK_THROWS_WITH(negative(-1), "staticflow: tensor_array::write: index -1 is negative");
}

TEST_CASE("x[i], sf::size, sf::dim and sf::shape_of", "[index]") {
  auto pick = sf::function([](auto m, auto i) { return m[i]; });
  xt::xtensor<int, 2> m = {{1, 2, 3}, {4, 5, 6}};
  CHECK((pick(m, 1) == xt::xtensor<int, 1>{4, 5, 6}));
  CHECK((pick(m, -1) == xt::xtensor<int, 1>{4, 5, 6}));  // negative counts from the end
  CHECK((pick(m, std::int64_t{0}) == xt::xtensor<int, 1>{1, 2, 3}));
  CHECK_THROWS_WITH(pick(m, 2), "staticflow: x[i]: index 2 is out of range for an axis of size 2");
  CHECK_THROWS_WITH(pick(m, -3), "staticflow: x[i]: index -3 is out of range for an axis of size 2");
  auto static_index = sf::function([](auto m) { return m[1][2] + m[0][0]; });
  CHECK((static_index(m) == 7));
  auto extents = sf::function([](auto m) { return std::tuple{sf::size(m), sf::dim<0>(m), sf::dim<1>(m), sf::shape_of(m)}; });
  auto [n, rows, cols, shape] = extents(m);
  CHECK((n == 6));
  CHECK((rows == 2));
  CHECK((cols == 3));
  CHECK((shape == xt::xtensor_fixed<std::int32_t, xt::xshape<2>>{2, 3}));
  // a static shape folds to constants at trace time
  using fixed = sf::graph::argument<0, float, sf::shape<4, 5>>;
  STATIC_REQUIRE(std::is_same_v<decltype(sf::size(fixed{})), sf::graph::literal<std::int32_t>>);
  CHECK((sf::size(fixed{}).value == 20));
  CHECK((sf::dim<1>(fixed{}).value == 5));
}
