// Gradient functions on every backend of the suite (suite_backend.hpp), checked against closed
// forms evaluated here in double (float32 on the backends, relative tolerance 1e-4); this TU: the
// data ops, slice / concat / x[i], cumsum and cumprod, gather (repeated rows), tile, repeat, mirror
// padding and roll, top_k and take_along_axis, diag_part and set_diag. The others:
// gradient_layers_suite.cpp and gradient_control_suite.cpp (each TU kept under the 2 GB compile budget).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "suite_backend.hpp"

using suite::close;
using suite::pattern;

TEST_CASE("suite: gradients of slice, concat and x[i]", "[suite][gradients][shape_ops]") {
  INFO("backend " << suite::name());
  // L = sum(slice(a, 1, 2) * 2) + sum(concat<1>(a, b) * w) + sum(a[2] * 3): dL/da and dL/db are
  // written out below
  auto vg = sf::value_and_grad<0, 1>(
      [](auto a, auto b, auto w) {
        return sf::reduce_sum(sf::slice(a, sf::axes<0>{}, 1, 2) * 2.f) + sf::reduce_sum(sf::concat<1>(a, b) * w) +
               sf::reduce_sum(a[2] * 3.f);
      },
      suite::backend);
  const auto a = pattern(4, 3, 1.f, 0.3f), b = pattern(4, 2, 0.5f, 1.2f), w = pattern(4, 5, 1.5f, 2.1f);
  const auto [loss, da, db] = suite::host(vg(suite::in(a), suite::in(b), suite::in(w)));
  double expected = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    for (std::size_t j = 0; j < 3; ++j) {
      const double slope = (i == 1 || i == 2 ? 2.0 : 0.0) + w(i, j) + (i == 2 ? 3.0 : 0.0);
      expected += a(i, j) * slope;
      CHECK(close(da(i, j), slope));
    }
    for (std::size_t j = 0; j < 2; ++j) {
      expected += b(i, j) * w(i, 3 + j);
      CHECK(close(db(i, j), w(i, 3 + j)));
    }
  }
  CHECK(close(loss(), expected));
}

TEST_CASE("suite: cumsum and cumprod and their gradients", "[suite][gradients][cumulative]") {
  INFO("backend " << suite::name());
  // L = sum(cumsum(a, axis 1) * w) + sum(cumprod(b, axis 0, exclusive)): dL/da[i][j] is the sum of
  // w[i][k] for k >= j; dL/db[i][j] the sum over rows r > i of the product of b[q][j], q < r, q != i
  auto vg = sf::value_and_grad<0, 1>(
      [](auto a, auto b, auto w) {
        return sf::reduce_sum(sf::cumsum(a, sf::axes<1>{}) * w) + sf::reduce_sum(sf::cumprod(b, sf::axes<0>{}, sf::exclusive));
      },
      suite::backend);
  const auto a = pattern(3, 4, 1.f, 0.3f), w = pattern(3, 4, 1.5f, 2.1f);
  auto b = pattern(3, 4, 0.3f, 0.9f);
  b += 1.f;  // away from 0
  const auto [loss, da, db] = suite::host(vg(suite::in(a), suite::in(b), suite::in(w)));
  double expected = 0;
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 4; ++j) {
      double running = 0, slope = 0;
      for (std::size_t k = 0; k <= j; ++k) running += a(i, k);
      for (std::size_t k = j; k < 4; ++k) slope += w(i, k);
      expected += running * w(i, j);
      CHECK(close(da(i, j), slope));
      double product = 1, db_expected = 0;
      for (std::size_t q = 0; q < i; ++q) product *= b(q, j);
      expected += product;
      for (std::size_t r = i + 1; r < 3; ++r) {
        double term = 1;
        for (std::size_t q = 0; q < r; ++q)
          if (q != i) term *= b(q, j);
        db_expected += term;
      }
      CHECK(close(db(i, j), db_expected));
    }
  CHECK(close(loss(), expected));
}

TEST_CASE("suite: gather's gradient adds repeated rows up", "[suite][gradients][gather]") {
  INFO("backend " << suite::name());
  // L = sum(gather(t, ids) * w): dL/dt[r] is the sum of w's rows at the positions p with ids[p] == r
  auto vg = sf::value_and_grad<0>([](auto t, auto ids, auto w) { return sf::reduce_sum(sf::gather(t, ids) * w); },
                                  suite::backend);
  const auto t = pattern(4, 3, 1.f, 0.3f), w = pattern(5, 3, 1.5f, 2.1f);
  const xt::xtensor<std::int32_t, 1> ids = {3, 1, 3, 0, 3};
  const auto [loss, dt] = suite::host(vg(suite::in(t), suite::in(ids), suite::in(w)));
  double expected = 0;
  for (std::size_t p = 0; p < 5; ++p)
    for (std::size_t k = 0; k < 3; ++k) expected += t(static_cast<std::size_t>(ids(p)), k) * w(p, k);
  CHECK(close(loss(), expected));
  for (std::size_t r = 0; r < 4; ++r)
    for (std::size_t k = 0; k < 3; ++k) {
      double want = 0;
      for (std::size_t p = 0; p < 5; ++p)
        if (static_cast<std::size_t>(ids(p)) == r) want += w(p, k);
      CHECK(close(dt(r, k), want));
    }
}

TEST_CASE("suite: gradients of tile, repeat, mirror padding and roll add every read up", "[suite][gradients][data_movement]") {
  INFO("backend " << suite::name());
  // L = sum(move(t) * w) for each op: dL/dt is w summed where the op read each element
  auto vg = sf::value_and_grad<0>(
      [](auto t, auto w1, auto w2) {
        return sf::reduce_sum(sf::pad(sf::tile(t, {1, 2}), {{1, 1}, {0, 0}}, sf::pad_mode::symmetric) * w1) +
               sf::reduce_sum(sf::roll(sf::repeat(t, 2, sf::axes<0>{}), 1, sf::axes<1>{}) * w2);
      },
      suite::backend);
  const auto t = pattern(2, 3, 1.f, 0.3f), w1 = pattern(4, 6, 1.5f, 2.1f), w2 = pattern(4, 3, 0.5f, 1.1f);
  const auto [loss, dt] = suite::host(vg(suite::in(t), suite::in(w1), suite::in(w2)));
  // symmetric padding by 1 of 2 rows reads rows 1, 0 | 0, 1 | 1, 0 -> result row r reads t's row {0, 0, 1, 1}[r]
  const std::size_t padded_row[4] = {0, 0, 1, 1};
  double expected = 0;
  xt::xtensor<double, 2> want = xt::zeros<double>({2, 3});
  for (std::size_t r = 0; r < 4; ++r)
    for (std::size_t c = 0; c < 6; ++c) {
      expected += double(t(padded_row[r], c % 3)) * w1(r, c);
      want(padded_row[r], c % 3) += w1(r, c);
    }
  for (std::size_t r = 0; r < 4; ++r)
    for (std::size_t c = 0; c < 3; ++c) {
      expected += double(t(r / 2, (c + 2) % 3)) * w2(r, c);
      want(r / 2, (c + 2) % 3) += w2(r, c);
    }
  CHECK(close(loss(), expected));
  for (std::size_t r = 0; r < 2; ++r)
    for (std::size_t c = 0; c < 3; ++c) CHECK(close(dt(r, c), want(r, c)));
}

TEST_CASE("suite: the gradient of top_k and take_along_axis goes back where each value was read", "[suite][gradients][sorting]") {
  INFO("backend " << suite::name());
  auto vg = sf::value_and_grad<0>(
      [](auto t, auto w, auto p) {
        const auto [values, indices] = sf::top_k(t, 2);
        return sf::reduce_sum(values * w) + sf::reduce_sum(sf::take_along_axis(t, p, sf::axes<1>{}));
      },
      suite::backend);
  const xt::xtensor<float, 2> t = {{0.5f, 3.f, -1.f}, {2.f, 1.f, 4.f}}, w = {{1.f, 2.f}, {3.f, 4.f}};
  const xt::xtensor<std::int32_t, 2> p = {{0, 0, 2}, {1, 1, 1}};
  const auto [loss, dt] = suite::host(vg(suite::in(t), suite::in(w), suite::in(p)));
  CHECK(close(loss(), (3.0 * 1 + 0.5 * 2 + 4.0 * 3 + 2.0 * 4) + (0.5 + 0.5 - 1.0) + (1.0 * 3)));
  const std::vector<double> want{2 + 2, 1, 1, 4, 3, 3};
  for (std::size_t k = 0; k < 6; ++k) CHECK(close(dt.flat(k), want[k]));
}

TEST_CASE("suite: the gradients of diag_part and set_diag land on the diagonal", "[suite][gradients][linalg]") {
  INFO("backend " << suite::name());
  // L = sum(set_diag(x, d)^2 * w) + sum(diag_part(x) * v): dL/dx = 2 x w off the diagonal, v on it;
  // dL/dd = 2 d w on the diagonal
  auto vg = sf::value_and_grad<0, 1>(
      [](auto x, auto d, auto w, auto v) {
        return sf::reduce_sum(sf::square(sf::linalg::set_diag(x, d)) * w) + sf::reduce_sum(sf::linalg::diag_part(x) * v);
      },
      suite::backend);
  const auto x = pattern(3, 4, 1.f, 0.2f), w = pattern(3, 4, 0.5f, 1.3f);
  xt::xtensor<float, 1> d = {0.5f, -1.f, 2.f}, v = {1.f, 2.f, -3.f};
  const auto [loss, dx, dd] = suite::host(vg(suite::in(x), suite::in(d), suite::in(w), suite::in(v)));
  double expected = 0;
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 4; ++j) {
      const double value = i == j ? d(i) : x(i, j);
      expected += value * value * w(i, j) + (i == j ? x(i, i) * v(i) : 0.0);
      CHECK(close(dx(i, j), i == j ? double(v(i)) : 2.0 * x(i, j) * w(i, j)));
    }
  CHECK(close(loss(), expected));
  for (std::size_t i = 0; i < 3; ++i) CHECK(close(dd(i), 2.0 * d(i) * w(i, i)));
}
