// The backend-parameterized suite's reductions (one of its translation units, each kept under the
// 2 GB compile budget): over all axes, static and run-time axes, keepdims; float sums of a fused
// input, NaN in max, any / all and empty reductions; column reductions over many rows; broadcast
// operands in fused loops and reductions; argmax and argmin. Same rules as backend_suite.cpp:
// every case computes on `suite::backend` and checks values that do not depend on the backend.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "suite_backend.hpp"

using suite::all_near;
using suite::near;
using suite::ramp;

TEST_CASE("suite: reductions over all axes, static axes, run-time axes, keepdims", "[suite]") {
  auto x = xt::xtensor<int, 3>::from_shape({2, 3, 4});
  for (std::size_t i = 0; i < x.size(); ++i) x.flat(i) = static_cast<int>((i * 7) % 11) - 5;
  auto f = sf::function(
      [](auto t) {
        const int axis = 1;  // a run-time axis
        return std::tuple{sf::reduce_sum(t), sf::reduce_sum(t, sf::axes<0, 2>{}), sf::reduce_max(t, sf::axes<1>{}, sf::keepdims),
                          sf::reduce_min(t, axis), sf::reduce_prod(t, sf::axes<2>{}), sf::reduce_mean(t, sf::axes<0>{})};
      },
      suite::backend);
  const auto [all, s02, mx1, mn, pr2, mean0] = suite::host(f(suite::in(x)));
  // the scalar reference
  int total = 0;
  std::vector<int> r02(3, 0), rmax(8, -100), rmin(8, 100), rprod(6, 1), rmean(12, 0);
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t j = 0; j < 3; ++j)
      for (std::size_t k = 0; k < 4; ++k) {
        const int v = x(i, j, k);
        total += v;
        r02[j] += v;
        rmax[i * 4 + k] = std::max(rmax[i * 4 + k], v);
        rmin[i * 4 + k] = std::min(rmin[i * 4 + k], v);
        rprod[i * 3 + j] *= v;
        rmean[j * 4 + k] += v;
      }
  for (auto& m : rmean) m /= 2;  // integer means truncate
  CHECK(suite::flat(all) == std::vector<int>{total});
  CHECK(suite::flat(s02) == r02);
  CHECK(suite::shape(mx1) == std::vector<std::size_t>{2, 1, 4});
  CHECK(suite::flat(mx1) == rmax);
  CHECK(suite::shape(mn) == std::vector<std::size_t>{2, 4});
  CHECK(suite::flat(mn) == rmin);
  CHECK(suite::flat(pr2) == rprod);
  CHECK(suite::flat(mean0) == rmean);
}

TEST_CASE("suite: float sums of a fused input, NaN in max, any/all, empty reductions", "[suite]") {
  const std::size_t n = 1 << 20;
  const auto x = ramp(n);
  auto f = sf::function([](auto v) { return std::tuple{sf::reduce_sum(v * v), sf::reduce_max(v), sf::reduce_any(v > 0.998f),
                                                       sf::reduce_all(v > -2.f)}; },
                        suite::backend);
  const auto [s, m, any, all] = suite::host(f(suite::in(x)));
  double ref = 0;
  for (std::size_t i = 0; i < n; ++i) ref += double(x(i)) * double(x(i));
  INFO("sum " << suite::flat(s)[0] << " reference " << ref);
  // float sums combine in each backend's own order: equal to within rounding (a float
  // accumulator over a million elements)
  CHECK(near(double(suite::flat(s)[0]), ref, 1e-5));
  CHECK(suite::flat(m)[0] == *std::max_element(x.begin(), x.end()));
  CHECK(suite::flat(any)[0] == true);
  CHECK(suite::flat(all)[0] == true);

  auto g = sf::function([](auto v) { return std::tuple{sf::reduce_max(v, sf::axes<1>{}), sf::reduce_sum(v, sf::axes<0>{})}; },
                        suite::backend);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const xt::xtensor<float, 2> withnan = {{1, nan, 3}, {4, 5, 6}};
  const auto [mx, sum0] = suite::host(g(suite::in(withnan)));
  CHECK(std::isnan(suite::flat(mx)[0]));
  CHECK(suite::flat(mx)[1] == 6.f);
  CHECK(std::isnan(suite::flat(sum0)[1]));
  CHECK(suite::flat(sum0)[2] == 9.f);

  const auto empty = xt::xtensor<float, 2>::from_shape({3, 0});
  const auto [emx, esum] = suite::host(g(suite::in(empty)));
  CHECK(suite::flat(emx) == std::vector<float>(3, -std::numeric_limits<float>::infinity()));
  CHECK(suite::flat(esum).empty());
}

TEST_CASE("suite: column reductions (leading axes) over many rows, fused and broadcast inputs", "[suite]") {
  INFO("backend " << suite::name());
  const std::size_t rows = 10000, cols = 37;  // several chunks of rows per column on every system
  auto x = xt::xtensor<float, 2>::from_shape({rows, cols});
  for (std::size_t i = 0; i < x.size(); ++i) x.flat(i) = static_cast<float>((i * 7919) % 1000) / 1000.f - 0.5f;
  auto w = xt::xtensor<float, 1>::from_shape({cols});
  for (std::size_t j = 0; j < cols; ++j) w(j) = 0.25f * static_cast<float>(j) - 3.f;
  auto f = sf::function([](auto a, auto b) {
    return std::tuple{sf::reduce_sum(a * a, sf::axes<0>{}), sf::reduce_max(a, sf::axes<0>{}, sf::keepdims),
                      sf::reduce_sum(a * b, sf::axes<0>{}), sf::reduce_mean(a, 0)};
  }, suite::backend);
  const auto [squares, most, weighted, mean] = suite::host(f(suite::in(x), suite::in(w)));
  // float sums against double ones, to within 1e-6 of the sum of magnitudes (a column's sum may cancel)
  std::vector<double> want_sq(cols, 0), want_w(cols, 0), want_mean(cols, 0), magnitude(cols, 0);
  std::vector<float> want_max(cols, -1.f);
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < cols; ++j) {
      const double v = x(i, j);
      want_sq[j] += v * v;
      want_w[j] += v * w(j);
      want_mean[j] += v / double(rows);
      magnitude[j] += std::fabs(v * w(j)) + std::fabs(v);
      want_max[j] = std::max(want_max[j], x(i, j));
    }
  CHECK(suite::shape(most) == std::vector<std::size_t>{1, cols});
  CHECK(suite::flat(most) == want_max);
  for (std::size_t j = 0; j < cols; ++j) {
    INFO("column " << j);
    CHECK(std::fabs(double(suite::flat(squares)[j]) - want_sq[j]) <= 1e-6 * want_sq[j]);
    CHECK(std::fabs(double(suite::flat(weighted)[j]) - want_w[j]) <= 1e-6 * magnitude[j]);
    CHECK(std::fabs(double(suite::flat(mean)[j]) - want_mean[j]) <= 1e-6 * magnitude[j] / double(rows));
  }
  // integer column sums over two leading axes, exact; one row and one column are ordinary input
  auto g = sf::function([](auto t) { return sf::reduce_sum(t, sf::axes<0, 1>{}); }, suite::backend);
  for (const auto& shape : {std::array<std::size_t, 3>{50, 90, 3}, std::array<std::size_t, 3>{1, 1, 5},
                            std::array<std::size_t, 3>{3000, 2, 1}}) {
    auto t = xt::xtensor<std::int64_t, 3>::from_shape(shape);
    std::vector<std::int64_t> want(shape[2], 0);
    for (std::size_t i = 0; i < t.size(); ++i) {
      t.flat(i) = static_cast<std::int64_t>((i * 31) % 17) - 8;
      want[i % shape[2]] += t.flat(i);
    }
    CHECK(suite::flat(suite::host(g(suite::in(t)))) == want);
  }
}

TEST_CASE("suite: broadcast operands in fused loops and reductions: a bias, a column, a middle block", "[suite]") {
  INFO("backend " << suite::name());
  // on Thrust these read at flat indices, (j / div) % mod (backend/thrust/expr.hpp)
  auto x = xt::xtensor<float, 3>::from_shape({3, 4, 5});
  for (std::size_t i = 0; i < x.size(); ++i) x.flat(i) = static_cast<float>(i % 7) * 0.25f - 0.5f;
  const xt::xtensor<float, 1> bias = {1, 2, 3, 4, 5};
  const xt::xtensor<float, 3> column = {{{10}}, {{20}}, {{30}}};
  const xt::xtensor<float, 2> middle = {{1}, {-1}, {2}, {-2}};
  auto f = sf::function([](auto t, auto b, auto c, auto m) {
    return std::tuple{t * b + c - m, sf::reduce_sum(t + b), sf::reduce_sum(t * m, sf::axes<0>{}),
                      sf::reduce_max(t + c, sf::axes<1, 2>{})};
  }, suite::backend);
  const auto [out, total, columns, rows] = suite::host(f(suite::in(x), suite::in(bias), suite::in(column), suite::in(middle)));
  std::vector<float> want_out, want_columns(20, 0.f), want_rows(3, -1e30f);
  float want_total = 0;
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 4; ++j)
      for (std::size_t k = 0; k < 5; ++k) {
        const float v = x(i, j, k);
        want_out.push_back(v * bias(k) + column(i, 0, 0) - middle(j, 0));
        want_total += v + bias(k);
        want_columns[j * 5 + k] += v * middle(j, 0);
        want_rows[i] = std::max(want_rows[i], v + column(i, 0, 0));
      }
  CHECK(suite::flat(out) == want_out);
  CHECK(near(suite::flat(total)[0], want_total));
  CHECK(all_near(suite::flat(columns), want_columns));
  CHECK(suite::flat(rows) == want_rows);
}

TEST_CASE("suite: argmax and argmin take the first best (NaN wins)", "[suite]") {
  auto f = sf::function([](auto x) { return std::tuple{sf::argmax(x, sf::axes<1>{}), sf::argmin(x, 0)}; }, suite::backend);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const xt::xtensor<float, 2> x = {{1, 7, 7, 2}, {nan, 3, nan, -1}, {0, 0, 0, 0}};
  const auto [am, an] = suite::host(f(suite::in(x)));
  CHECK(suite::flat(am) == std::vector<std::int64_t>{1, 0, 0});
  CHECK(suite::flat(an) == std::vector<std::int64_t>{1, 2, 1, 1});
  // zero rows: no answers; an empty reduced axis: no answer at all (TF's InvalidArgumentError)
  auto rows = sf::function([](auto v) { return sf::argmax(v, sf::axes<1>{}); }, suite::backend);
  CHECK(suite::flat(suite::host(rows(suite::in(xt::xtensor<float, 2>::from_shape({0, 4}))))).empty());
  CHECK_THROWS_WITH(rows(suite::in(xt::xtensor<float, 2>::from_shape({3, 0}))), "staticflow: argmax: axis 1 is empty in shape (3, 0)");
}
