// The backend-parameterized suite: one source, built for the CPU backend and for the Thrust
// backend on each device system (see suite_backend.hpp). Every case computes on
// `suite::backend` and checks values that do not depend on the backend: exact ones for integers,
// comparisons, shape ops, max/min and arg-reductions; float ones within a stated tolerance of a
// scalar reference. This TU: elementwise chains, plans, integer semantics, broadcasting,
// comparisons and casts, matmul, einsum, shape ops, composites, math functions and call_into;
// reductions: reductions_suite.cpp (each TU kept under the 2 GB compile budget).
#include <catch2/catch.hpp>

#include <cmath>
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "suite_backend.hpp"

using suite::all_near;
using suite::near;
using suite::ramp;

TEST_CASE("suite: a fused elementwise chain", "[suite]") {
  INFO("backend " << suite::name());
  auto f = sf::function([](auto x, auto y) { return sf::tanh(x * x + y); }, suite::backend);
  const std::size_t n = 100003;  // not a multiple of any vector width
  const auto x = ramp(n), y = ramp(n, 0.0005f, 0.25f);
  const auto r = suite::host(f(suite::in(x), suite::in(y)));
  REQUIRE(suite::shape(r) == std::vector<std::size_t>{n});
  std::vector<float> expected(n);
  for (std::size_t i = 0; i < n; ++i) expected[i] = std::tanh(x(i) * x(i) + y(i));
  CHECK(all_near(suite::flat(r), expected, 1e-6f));
  CHECK(f.tracing_count() == 1);
  (void)f(suite::in(x), suite::in(y));
  CHECK(f.tracing_count() == 1);  // the same signature: no retrace
}

TEST_CASE("suite: a stateless lambda runs the compiler's plan, and is traced at run time only for its listing", "[suite]") {
  INFO("backend " << suite::name());
  auto f = sf::function([](auto x, auto y) { return sf::tanh(x * 0.5f + y); }, suite::backend);
  const float half = 0.5f;
  auto captured = sf::function([half](auto x, auto y) { return sf::tanh(x * half + y); }, suite::backend);
  const auto x = ramp(1000), y = ramp(1000, 0.001f, -0.25f);
  const auto r = suite::host(f(suite::in(x), suite::in(y)));
  const auto r_captured = suite::host(captured(suite::in(x), suite::in(y)));
  CHECK(suite::flat(r) == suite::flat(r_captured));
  const auto& c = f.get_concrete_function(suite::in(x), suite::in(y));
  const auto& c_captured = captured.get_concrete_function(suite::in(x), suite::in(y));
  STATIC_REQUIRE(std::remove_cvref_t<decltype(c)>::traced_at_compile_time);
  STATIC_REQUIRE_FALSE(std::remove_cvref_t<decltype(c_captured)>::traced_at_compile_time);
  // the graph, traced when asked for, lists as the run-time trace of the same lambda does
  CHECK(c.graph_string() == c_captured.graph_string());
  CHECK(c.graph_string().find("Tanh") != std::string::npos);
  CHECK(f.tracing_count() == 1);
}

TEST_CASE("suite: integer semantics are exact (wrapping, XLA division)", "[suite]") {
  auto f = sf::function([](auto a, auto b) { return std::tuple{a / b, a % b, sf::floordiv(a, b), a * b + a}; },
                        suite::backend);
  const std::int32_t mn = std::numeric_limits<std::int32_t>::min(), mx = std::numeric_limits<std::int32_t>::max();
  const xt::xtensor<std::int32_t, 1> a = {7, -7, 5, mn, mn, mx};
  const xt::xtensor<std::int32_t, 1> b = {2, 2, 0, -1, 3, 2};
  const auto [q, r, fq, w] = suite::host(f(suite::in(a), suite::in(b)));
  CHECK(suite::flat(q) == std::vector<std::int32_t>{3, -3, -1, mn, mn / 3, mx / 2});
  CHECK(suite::flat(r) == std::vector<std::int32_t>{1, -1, 5, 0, mn % 3, 1});
  CHECK(suite::flat(fq) == std::vector<std::int32_t>{3, -4, -1, mn, -715827883, mx / 2});
  CHECK(suite::flat(w)[5] == std::int32_t(std::uint32_t(mx) * 2u + std::uint32_t(mx)));  // wraps
}

TEST_CASE("suite: broadcasting rows, columns, C++ scalars and weak literals", "[suite]") {
  auto f = sf::function([](auto m, auto row, auto col, auto s) { return m * row + col - s * 2; }, suite::backend);
  const xt::xtensor<double, 2> m = {{1, 2, 3}, {4, 5, 6}};
  const xt::xtensor<double, 1> row = {10, 20, 30};
  const xt::xtensor<double, 2> col = {{1}, {2}};
  const auto r = suite::host(f(suite::in(m), suite::in(row), suite::in(col), 0.5));
  CHECK(suite::shape(r) == std::vector<std::size_t>{2, 3});
  CHECK(suite::flat(r) == std::vector<double>{10, 40, 90, 41, 101, 181});

  // a one-element tensor broadcast against a longer one, and a rank-0 result
  auto g = sf::function([](auto x, auto one) { return sf::reduce_sum(x * one); }, suite::backend);
  const xt::xtensor<double, 1> x = {1, 2, 3, 4}, one = {3};
  CHECK(suite::flat(suite::host(g(suite::in(x), suite::in(one)))) == std::vector<double>{30});
}

TEST_CASE("suite: comparisons, where, casts and bool outputs", "[suite]") {
  auto f = sf::function(
      [](auto x) {
        const auto positive = x > 0.f;
        return std::tuple{sf::where(positive, x, -x), sf::cast<int>(x * 2.f), positive && !(x > 2.f), sf::relu(x)};
      },
      suite::backend);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const xt::xtensor<float, 1> x = {-1.5f, 0.f, 1.25f, 3.f, nan};
  const auto [a, c, b, r] = suite::host(f(suite::in(x)));
  const auto av = suite::flat(a);
  CHECK(av[0] == 1.5f);
  CHECK(av[2] == 1.25f);
  CHECK(std::isnan(av[4]));
  CHECK(suite::flat(c)[0] == -3);
  CHECK(suite::flat(c)[3] == 6);
  CHECK(suite::flat(b) == std::vector<bool>{false, false, true, false, false});
  const auto rv = suite::flat(r);
  CHECK(rv[0] == 0.f);
  CHECK(rv[3] == 3.f);
  CHECK(std::isnan(rv[4]));  // relu propagates NaN
}

TEST_CASE("suite: matmul (matrix, vector, batched with broadcast batch dims, integers)", "[suite]") {
  auto f = sf::function([](auto a, auto b, auto v) { return std::tuple{sf::matmul(a, b), sf::matmul(a, v)}; }, suite::backend);
  auto a = xt::xtensor<double, 2>::from_shape({5, 7});
  auto b = xt::xtensor<double, 2>::from_shape({7, 3});
  auto v = xt::xtensor<double, 1>::from_shape({7});
  for (std::size_t i = 0; i < a.size(); ++i) a.flat(i) = double(i % 5) - 1.5;
  for (std::size_t i = 0; i < b.size(); ++i) b.flat(i) = double(i % 4) * 0.25;
  for (std::size_t i = 0; i < v.size(); ++i) v(i) = double(i) - 3;
  const auto [ab, av] = suite::host(f(suite::in(a), suite::in(b), suite::in(v)));
  CHECK(suite::shape(ab) == std::vector<std::size_t>{5, 3});
  for (std::size_t i = 0; i < 5; ++i) {
    double dv = 0;
    for (std::size_t p = 0; p < 7; ++p) dv += a(i, p) * v(p);
    CHECK(suite::flat(av)[i] == dv);  // small integers and quarters: exact in any order
    for (std::size_t j = 0; j < 3; ++j) {
      double d = 0;
      for (std::size_t p = 0; p < 7; ++p) d += a(i, p) * b(p, j);
      CHECK(suite::flat(ab)[i * 3 + j] == d);
    }
  }

  auto g = sf::function([](auto x, auto y) { return sf::matmul(x, y); }, suite::backend);
  auto x = xt::xtensor<int, 3>::from_shape({2, 2, 3});
  auto y = xt::xtensor<int, 3>::from_shape({1, 3, 2});
  for (std::size_t i = 0; i < x.size(); ++i) x.flat(i) = static_cast<int>(i) - 4;
  for (std::size_t i = 0; i < y.size(); ++i) y.flat(i) = static_cast<int>(i * 3) % 5;
  const auto xy = suite::host(g(suite::in(x), suite::in(y)));
  CHECK(suite::shape(xy) == std::vector<std::size_t>{2, 2, 2});
  for (std::size_t bt = 0; bt < 2; ++bt)
    for (std::size_t i = 0; i < 2; ++i)
      for (std::size_t j = 0; j < 2; ++j) {
        int d = 0;
        for (std::size_t p = 0; p < 3; ++p) d += x(bt, i, p) * y(0, p, j);
        CHECK(suite::flat(xy)[(bt * 2 + i) * 2 + j] == d);
      }
}

TEST_CASE("suite: einsum's matmul path (swapped, batched) and fused path", "[suite][einsum]") {
  auto f = sf::function([](auto a, auto b, auto c) {
    return std::tuple{sf::einsum<"bij,bkj->bki">(a, b), sf::einsum<"bij,bij->bj">(a, c)};
  }, suite::backend);
  auto a = xt::xtensor<double, 3>::from_shape({2, 3, 4});
  auto b = xt::xtensor<double, 3>::from_shape({2, 5, 4});
  auto c = xt::xtensor<double, 3>::from_shape({2, 3, 4});
  for (std::size_t i = 0; i < a.size(); ++i) a.flat(i) = double(i % 7) - 3;
  for (std::size_t i = 0; i < b.size(); ++i) b.flat(i) = double(i % 5) * 0.5;
  for (std::size_t i = 0; i < c.size(); ++i) c.flat(i) = double(i % 3) - 1;
  const auto [bki, bj] = suite::host(f(suite::in(a), suite::in(b), suite::in(c)));
  CHECK(suite::shape(bki) == std::vector<std::size_t>{2, 5, 3});
  CHECK(suite::shape(bj) == std::vector<std::size_t>{2, 4});
  for (std::size_t n = 0; n < 2; ++n) {
    for (std::size_t k = 0; k < 5; ++k)
      for (std::size_t i = 0; i < 3; ++i) {
        double d = 0;  // integers and halves: exact in any order
        for (std::size_t j = 0; j < 4; ++j) d += a(n, i, j) * b(n, k, j);
        CHECK(suite::flat(bki)[(n * 5 + k) * 3 + i] == d);
      }
    for (std::size_t j = 0; j < 4; ++j) {
      double d = 0;
      for (std::size_t i = 0; i < 3; ++i) d += a(n, i, j) * c(n, i, j);
      CHECK(suite::flat(bj)[n * 4 + j] == d);
    }
  }
}

TEST_CASE("suite: shape ops (transpose, reshape, slice, concat, stack, one_hot, broadcast_to)", "[suite]") {
  auto f = sf::function(
      [](auto m, auto idx) {
        return std::tuple{sf::transpose(m) + 0, sf::reshape<sf::shape<3, sf::dyn>>(m), sf::slice(m, sf::axes<1>{}, 1, 2),
                          sf::concat<0>(m, m * 10), sf::stack<1>(m, -m), sf::one_hot<3>(idx),
                          sf::broadcast_to<sf::shape<2, 2, 3>>(m) * 1, sf::expand_dims(m, sf::axes<0>{})};
      },
      suite::backend);
  const xt::xtensor<int, 2> m = {{1, 2, 3}, {4, 5, 6}};
  const xt::xtensor<int, 1> idx = {2, 0, 5};
  const auto [t, rs, sl, cc, st, oh, bc, ed] = suite::host(f(suite::in(m), suite::in(idx)));
  CHECK(suite::shape(t) == std::vector<std::size_t>{3, 2});
  CHECK(suite::flat(t) == std::vector<int>{1, 4, 2, 5, 3, 6});
  CHECK(suite::shape(rs) == std::vector<std::size_t>{3, 2});
  CHECK(suite::flat(rs) == std::vector<int>{1, 2, 3, 4, 5, 6});
  CHECK(suite::flat(sl) == std::vector<int>{2, 3, 5, 6});
  CHECK(suite::flat(cc) == std::vector<int>{1, 2, 3, 4, 5, 6, 10, 20, 30, 40, 50, 60});
  CHECK(suite::shape(st) == std::vector<std::size_t>{2, 2, 3});
  CHECK(suite::flat(st) == std::vector<int>{1, 2, 3, -1, -2, -3, 4, 5, 6, -4, -5, -6});
  CHECK(suite::flat(oh) == std::vector<float>{0, 0, 1, 1, 0, 0, 0, 0, 0});
  CHECK(suite::flat(bc) == std::vector<int>{1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6});
  CHECK(suite::shape(ed) == std::vector<std::size_t>{1, 2, 3});
}

TEST_CASE("suite: softmax and l2_normalize composites", "[suite]") {
  auto f = sf::function([](auto x) { return std::tuple{sf::softmax(x), sf::l2_normalize(x, sf::axes<1>{})}; }, suite::backend);
  const xt::xtensor<float, 2> x = {{1, 2, 3}, {-1, 0, 1000}};
  const auto [sm, l2] = suite::host(f(suite::in(x)));
  const float e = std::exp(1.f), e2 = std::exp(2.f);
  const float z = 1 + e + e2;
  CHECK(all_near(suite::flat(sm), std::vector<float>{1 / z, e / z, e2 / z, 0, 0, 1}, 1e-6f));
  const float n0 = std::sqrt(14.f);
  const auto l2v = suite::flat(l2);
  CHECK(all_near(std::vector<float>(l2v.begin(), l2v.begin() + 3), std::vector<float>{1 / n0, 2 / n0, 3 / n0}, 1e-6f));
}

TEST_CASE("suite: math functions, activations, bitwise ops and created constants", "[suite]") {
  auto f = sf::function([](auto x) {
    return std::tuple{sf::sin(x) + sf::erf(x) * sf::atan2(x, 2.f), sf::round(x * 2.f), sf::softplus(x * 40.f),
                      sf::gelu(x) + sf::elu(x), sf::is_finite(sf::log(x)), sf::zeros_like(x) + 1.5f};
  }, suite::backend);
  auto bits = sf::function([](auto a) { return std::tuple{(a & 6) ^ (a << 2), a >> 40, ~a}; }, suite::backend);
  const xt::xtensor<float, 1> x = {1.25f, -0.75f, 0.25f, -2.f, 3.f, 0.f, -0.25f, 1.75f, 2.5f};
  const auto [trig, rounded, soft, act, finite, created] = suite::host(f(suite::in(x)));
  std::vector<float> trig_want, round_want, soft_want, act_want;
  std::vector<bool> finite_want;
  for (const float v : x) {
    trig_want.push_back(std::sin(v) + std::erf(v) * std::atan2(v, 2.f));
    round_want.push_back(std::nearbyint(v * 2.f));
    soft_want.push_back(std::max(v * 40.f, 0.f) + std::log1p(std::exp(-std::fabs(v * 40.f))));
    act_want.push_back(0.5f * v * (1 + std::erf(v / std::sqrt(2.f))) + (v > 0 ? v : std::expm1(v)));
    finite_want.push_back(v > 0);
  }
  CHECK(all_near(suite::flat(trig), trig_want, 1e-6f));
  CHECK(suite::flat(rounded) == round_want);  // half to even: 2.5 -> 2, -0.5 -> -0
  CHECK(all_near(suite::flat(soft), soft_want, 1e-6f));
  CHECK(all_near(suite::flat(act), act_want, 1e-6f));
  const auto fin = suite::flat(finite);
  CHECK(std::vector<bool>(fin.begin(), fin.end()) == finite_want);
  CHECK(suite::flat(created) == std::vector<float>(9, 1.5f));
  const xt::xtensor<std::int64_t, 1> a = {5, -7, 12};
  const auto [mixed, shifted, inverted] = suite::host(bits(suite::in(a)));
  CHECK(suite::flat(mixed) == std::vector<std::int64_t>{(5 & 6) ^ 20, (-7 & 6) ^ -28, (12 & 6) ^ 48});
  CHECK(suite::flat(shifted) == std::vector<std::int64_t>{0, -1, 0});
  CHECK(suite::flat(inverted) == std::vector<std::int64_t>{-6, 6, -13});
}

TEST_CASE("suite: a reduction used twice is computed once", "[suite]") {
  auto f = sf::function([](auto x) { return x - sf::reduce_mean(x) + sf::reduce_mean(x) * 2.f; }, suite::backend);
  const xt::xtensor<float, 1> x = {1, 2, 3, 6};
  const auto before = sf::plan::materialization_counter();
  const auto r = suite::host(f(suite::in(x)));
  CHECK(sf::plan::materialization_counter() - before == 1);
  CHECK(suite::flat(r) == std::vector<float>{4, 5, 6, 9});
}

TEST_CASE("suite: call_into, in place, and shapes checked before anything is written", "[suite]") {
  auto f = sf::function([](auto x, auto y) { return x * 2 + y; }, suite::backend);
  const xt::xtensor<int, 1> x = {1, 2, 3}, y = {10, 20, 30};
  auto dx = suite::in(x);
  const auto dy = suite::in(y);
  f.call_into(dx, dx, dy);  // the output is the input, read at the same positions
  CHECK(suite::flat(suite::host(dx)) == std::vector<int>{12, 24, 36});

  const xt::xtensor<int, 1> wrong = {1, 2};
  auto out = suite::in(x);
  try {
    f.call_into(out, suite::in(x), suite::in(wrong));
    FAIL("no shape_error");
  } catch (const sf::shape_error& e) {
    CHECK(std::string(e.what()) == "staticflow: shapes (3,) and (2,) do not broadcast");
  }
  CHECK(suite::flat(suite::host(out)) == std::vector<int>{1, 2, 3});  // untouched

  auto small = suite::in(wrong);
  CHECK_THROWS_WITH(f.call_into(small, suite::in(x), suite::in(y)),
                    "staticflow: call_into: output 0 has shape (2,), the result has shape (3,)");
  CHECK(suite::flat(suite::host(small)) == std::vector<int>{1, 2});
}
