// Gradient functions on every backend of the suite (suite_backend.hpp): the CPU backend and the
// Thrust backend on each device system compute the same gradients, checked against closed forms
// evaluated here in double (float32 on the backends, relative tolerance 1e-4). This TU: the
// layers' ops, a least-squares loss (matmul, bias), conv2d (grouped, dilated, explicitly padded),
// depthwise_conv2d, conv3d, max_pool / avg_pool and max_pool's jvp. The others:
// gradient_control_suite.cpp and gradient_data_suite.cpp (each TU kept under the 2 GB compile budget).
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <vector>

#include "suite_backend.hpp"

using suite::close;
using suite::pattern;

namespace {
/// Every element of a backend's gradient `got` (float) close to the reference `want` (double).
template <class Got, class Want>
void check_elements(const char* name, const Got& got, const Want& want) {
  REQUIRE(got.size() == want.size());
  for (std::size_t e = 0; e < want.size(); ++e) {
    INFO(name << " element " << e);
    CHECK(close(got.data()[e], want.data()[e]));
  }
}

}  // namespace

TEST_CASE("suite: value_and_grad of a least-squares loss (matmul, bias broadcast, mean)", "[suite][gradients]") {
  INFO("backend " << suite::name());
  // L = mean((x w + b - y)^2): dL/dw = x^T r * 2 / (n k), dL/db = column sums of r * 2 / (n k)
  auto vg = sf::value_and_grad<0, 1>(
      [](auto w, auto b, auto x, auto y) { return sf::reduce_mean(sf::square(sf::matmul(x, w) + b - y)); },
      suite::backend);
  const std::size_t n = 37, d = 5, k = 3;
  const auto x = pattern(n, d, 1.f, 0.1f), w = pattern(d, k, 0.5f, 0.7f), y = pattern(n, k, 1.5f, 2.f);
  xt::xtensor<float, 1> b = {0.25f, -0.5f, 1.f};
  const auto [loss, dw, db] = suite::host(vg(suite::in(w), suite::in(b), suite::in(x), suite::in(y)));
  std::vector<double> r(n * k);
  double expected_loss = 0;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < k; ++j) {
      double z = b(j) - y(i, j);
      for (std::size_t m = 0; m < d; ++m) z += double(x(i, m)) * w(m, j);
      r[i * k + j] = z;
      expected_loss += z * z / double(n * k);
    }
  CHECK(close(loss(), expected_loss));
  for (std::size_t m = 0; m < d; ++m)
    for (std::size_t j = 0; j < k; ++j) {
      double g = 0;
      for (std::size_t i = 0; i < n; ++i) g += double(x(i, m)) * r[i * k + j] * 2 / double(n * k);
      INFO("dw(" << m << ", " << j << ")");
      CHECK(close(dw(m, j), g));
    }
  for (std::size_t j = 0; j < k; ++j) {
    double g = 0;
    for (std::size_t i = 0; i < n; ++i) g += r[i * k + j] * 2 / double(n * k);
    CHECK(close(db(j), g));
  }
}

TEST_CASE("suite: conv2d and its gradients (SAME, strides 2 and 1)", "[suite][gradients][conv]") {
  INFO("backend " << suite::name());
  // L = sum(conv2d(x, f) * m): dL/dy = m, so dL/dx and dL/df are the sums written out below
  auto vg = sf::value_and_grad<0, 1>(
      [](auto x, auto f, auto m) { return sf::reduce_sum(sf::conv2d(x, f, sf::padding::same, sf::strides<2, 1>) * m); },
      suite::backend);
  const std::size_t n = 2, h = 5, w = 4, c = 3, kh = 3, kw = 2, o = 2, oh = 3, ow = 4, pt = 1, pl = 0;
  const auto filled = [](std::array<std::size_t, 4> ext, float phase) {
    auto t = xt::xtensor<float, 4>::from_shape(ext);
    for (std::size_t i = 0; i < t.size(); ++i) t.data()[i] = std::sin(phase + 0.61f * float(i));
    return t;
  };
  const auto x = filled({n, h, w, c}, 0.2f), f = filled({kh, kw, c, o}, 1.1f), m = filled({n, oh, ow, o}, 2.3f);
  const auto [loss, dx, df] = suite::host(vg(suite::in(x), suite::in(f), suite::in(m)));
  xt::xtensor<double, 4> gx = xt::zeros<double>({n, h, w, c}), gf = xt::zeros<double>({kh, kw, c, o});
  double expected = 0;
  for (std::size_t b = 0; b < n; ++b)
    for (std::size_t i = 0; i < oh; ++i)
      for (std::size_t j = 0; j < ow; ++j)
        for (std::size_t q = 0; q < o; ++q)
          for (std::size_t u = 0; u < kh; ++u)
            for (std::size_t v = 0; v < kw; ++v) {
              const long ih = long(i * 2 + u) - long(pt), iw = long(j + v) - long(pl);
              if (ih < 0 || iw < 0 || ih >= long(h) || iw >= long(w)) continue;
              for (std::size_t p = 0; p < c; ++p) {
                const double xv = x(b, std::size_t(ih), std::size_t(iw), p), fv = f(u, v, p, q), mv = m(b, i, j, q);
                expected += xv * fv * mv;
                gx(b, std::size_t(ih), std::size_t(iw), p) += fv * mv;
                gf(u, v, p, q) += xv * mv;
              }
            }
  CHECK(close(loss(), expected));
  check_elements("dx", dx, gx);
  check_elements("df", df, gf);
}

TEST_CASE("suite: a grouped, dilated, explicitly padded conv2d and a dilated depthwise_conv2d, with gradients",
          "[suite][gradients][conv]") {
  INFO("backend " << suite::name());
  // L = sum(conv2d(x, f) * m) + sum(depthwise_conv2d(x, d) * k): 2 groups of 2 channels, pads
  // (1, 0, 0, 1), dilations (2, 1), strides (1, 2); the depthwise one SAME with dilations (1, 2)
  auto vg = sf::value_and_grad<0, 1, 2>(
      [](auto x, auto f, auto d, auto m, auto k) {
        return sf::reduce_sum(
                   sf::conv2d(x, f, sf::padding::explicit_<1, 0, 0, 1>, sf::dilations<2, 1>, sf::strides<1, 2>) * m) +
               sf::reduce_sum(sf::depthwise_conv2d(x, d, sf::dilations<1, 2>, sf::padding::same) * k);
      },
      suite::backend);
  const std::size_t n = 2, h = 6, w = 5, c = 4, oh = 5, ow = 3, o = 4, taps = 2, cg = 2;
  const auto filled = [](std::array<std::size_t, 4> ext, float phase) {
    auto t = xt::xtensor<float, 4>::from_shape(ext);
    for (std::size_t i = 0; i < t.size(); ++i) t.data()[i] = std::sin(phase + 0.61f * float(i));
    return t;
  };
  const auto x = filled({n, h, w, c}, 0.2f), f = filled({taps, taps, cg, o}, 1.1f), d = filled({taps, taps, c, 1}, 0.7f);
  const auto m = filled({n, oh, ow, o}, 2.3f), k = filled({n, h, w, c}, 1.9f);
  const auto [loss, dx, df, dd] = suite::host(vg(suite::in(x), suite::in(f), suite::in(d), suite::in(m), suite::in(k)));
  xt::xtensor<double, 4> gx = xt::zeros<double>({n, h, w, c}), gf = xt::zeros<double>({taps, taps, cg, o}),
                         gd = xt::zeros<double>({taps, taps, c, std::size_t{1}});
  double expected = 0;
  const auto inside = [&](long ih, long iw) { return ih >= 0 && iw >= 0 && ih < long(h) && iw < long(w); };
  for (std::size_t b = 0; b < n; ++b)
    for (std::size_t u = 0; u < taps; ++u)
      for (std::size_t v = 0; v < taps; ++v) {
        for (std::size_t i = 0; i < oh; ++i)
          for (std::size_t j = 0; j < ow; ++j)
            for (std::size_t q = 0; q < o; ++q) {
              const long ih = long(i + 2 * u) - 1, iw = long(2 * j + v);
              if (!inside(ih, iw)) continue;
              for (std::size_t p = 0; p < cg; ++p) {
                const std::size_t channel = q / 2 * cg + p;  // 2 outputs per group
                const double xv = x(b, std::size_t(ih), std::size_t(iw), channel), fv = f(u, v, p, q), mv = m(b, i, j, q);
                expected += xv * fv * mv;
                gx(b, std::size_t(ih), std::size_t(iw), channel) += fv * mv;
                gf(u, v, p, q) += xv * mv;
              }
            }
        for (std::size_t i = 0; i < h; ++i)
          for (std::size_t j = 0; j < w; ++j) {
            const long ih = long(i + u), iw = long(j + 2 * v) - 1;
            if (!inside(ih, iw)) continue;
            for (std::size_t p = 0; p < c; ++p) {
              const double xv = x(b, std::size_t(ih), std::size_t(iw), p), dv = d(u, v, p, 0), kv = k(b, i, j, p);
              expected += xv * dv * kv;
              gx(b, std::size_t(ih), std::size_t(iw), p) += dv * kv;
              gd(u, v, p, 0) += xv * kv;
            }
          }
      }
  CHECK(close(loss(), expected));
  check_elements("dx", dx, gx);
  check_elements("df", df, gf);
  check_elements("dd", dd, gd);
}

TEST_CASE("suite: a grouped, strided, dilated, explicitly padded conv3d, with gradients", "[suite][gradients][conv]") {
  INFO("backend " << suite::name());
  // L = sum(conv3d(x, f) * m): 2 groups of 2 channels (3 outputs each), pads (front 1, back 0,
  // top 0, bottom 1, left 1, right 0), strides (2, 1, 1), dilations (1, 2, 1)
  auto vg = sf::value_and_grad<0, 1>(
      [](auto x, auto f, auto m) {
        return sf::reduce_sum(sf::conv3d(x, f, sf::padding::explicit_<1, 0, 0, 1, 1, 0>, sf::strides<2, 1, 1>,
                                         sf::dilations<1, 2, 1>) *
                              m);
      },
      suite::backend);
  const std::size_t n = 2, dp = 5, h = 5, w = 4, c = 4, kd = 2, kh = 2, kw = 2, cg = 2, o = 6, og = 3;
  const std::size_t od = 3, oh = 4, ow = 4;  // (5 + 1 - 2) / 2 + 1, 5 + 1 - 3 + 1, 4 + 1 - 2 + 1
  const auto filled = [](std::array<std::size_t, 5> ext, float phase) {
    auto t = xt::xtensor<float, 5>::from_shape(ext);
    for (std::size_t i = 0; i < t.size(); ++i) t.data()[i] = std::sin(phase + 0.61f * float(i));
    return t;
  };
  const auto x = filled({n, dp, h, w, c}, 0.2f), f = filled({kd, kh, kw, cg, o}, 1.1f), m = filled({n, od, oh, ow, o}, 2.3f);
  const auto [loss, dx, df] = suite::host(vg(suite::in(x), suite::in(f), suite::in(m)));
  xt::xtensor<double, 5> gx = xt::zeros<double>({n, dp, h, w, c}), gf = xt::zeros<double>({kd, kh, kw, cg, o});
  double expected = 0;
  for (std::size_t b = 0; b < n; ++b)
    for (std::size_t i = 0; i < od; ++i)
      for (std::size_t j = 0; j < oh; ++j)
        for (std::size_t l = 0; l < ow; ++l)
          for (std::size_t q = 0; q < o; ++q)
            for (std::size_t t = 0; t < kd; ++t)
              for (std::size_t u = 0; u < kh; ++u)
                for (std::size_t v = 0; v < kw; ++v) {
                  const long iz = long(2 * i + t) - 1, ih = long(j + 2 * u), iw = long(l + v) - 1;
                  if (iz < 0 || ih < 0 || iw < 0 || iz >= long(dp) || ih >= long(h) || iw >= long(w)) continue;
                  for (std::size_t p = 0; p < cg; ++p) {
                    const std::size_t channel = q / og * cg + p;
                    const double xv = x(b, std::size_t(iz), std::size_t(ih), std::size_t(iw), channel);
                    const double fv = f(t, u, v, p, q), mv = m(b, i, j, l, q);
                    expected += xv * fv * mv;
                    gx(b, std::size_t(iz), std::size_t(ih), std::size_t(iw), channel) += fv * mv;
                    gf(t, u, v, p, q) += xv * mv;
                  }
                }
  CHECK(close(loss(), expected));
  check_elements("dx", dx, gx);
  check_elements("df", df, gf);
}

TEST_CASE("suite: max_pool / avg_pool and their gradients (SAME, overlapping windows)", "[suite][gradients][pool]") {
  INFO("backend " << suite::name());
  // L = sum(max_pool(x) * m) + sum(avg_pool(x) * m): dL/dx routes m to each window's first maximum
  // and spreads m over each window's elements inside x
  auto vg = sf::value_and_grad<0>(
      [](auto x, auto m) {
        return sf::reduce_sum(sf::max_pool2d(x, sf::ksize<3>, sf::strides<2>, sf::padding::same) * m) +
               sf::reduce_sum(sf::avg_pool2d(x, sf::ksize<3>, sf::strides<2>, sf::padding::same) * m);
      },
      suite::backend);
  const std::size_t n = 2, h = 6, w = 5, c = 2, oh = 3, ow = 3;
  const auto filled = [](std::array<std::size_t, 4> ext, float phase) {
    auto t = xt::xtensor<float, 4>::from_shape(ext);
    for (std::size_t i = 0; i < t.size(); ++i) t.data()[i] = std::sin(phase + 0.61f * float(i));
    return t;
  };
  const auto x = filled({n, h, w, c}, 0.2f), m = filled({n, oh, ow, c}, 2.3f);
  const auto [loss, dx] = suite::host(vg(suite::in(x), suite::in(m)));
  xt::xtensor<double, 4> gx = xt::zeros<double>({n, h, w, c});
  double expected = 0;
  for (std::size_t b = 0; b < n; ++b)
    for (std::size_t i = 0; i < oh; ++i)
      for (std::size_t j = 0; j < ow; ++j)
        for (std::size_t k = 0; k < c; ++k) {
          // rows [2i - 0, 2i + 3) and columns [2j - 1, 2j + 2), clipped (SAME pads 1 row, 2 columns)
          const std::size_t r0 = 2 * i, r1 = std::min(h, 2 * i + 3), c0 = j == 0 ? 0 : 2 * j - 1, c1 = std::min(w, 2 * j + 2);
          float best = x(b, r0, c0, k);
          std::size_t br = r0, bc = c0;
          double sum = 0;
          for (std::size_t r = r0; r < r1; ++r)
            for (std::size_t q = c0; q < c1; ++q) {
              if (x(b, r, q, k) > best) best = x(b, r, q, k), br = r, bc = q;
              sum += x(b, r, q, k);
            }
          const double count = double((r1 - r0) * (c1 - c0)), mv = m(b, i, j, k);
          expected += (best + sum / count) * mv;
          gx(b, br, bc, k) += mv;
          for (std::size_t r = r0; r < r1; ++r)
            for (std::size_t q = c0; q < c1; ++q) gx(b, r, q, k) += mv / count;
        }
  CHECK(close(loss(), expected));
  check_elements("dx", dx, gx);
}

TEST_CASE("suite: max_pool's jvp reads the tangent at each window's first maximum (MaxPoolGradGrad)",
          "[suite][gradients][pool]") {
  INFO("backend " << suite::name());
  auto directional = sf::jvp<0>([](auto x) { return sf::max_pool2d(x, sf::ksize<3>, sf::strides<2>, sf::padding::same); },
                                suite::backend);
  const std::size_t n = 2, h = 6, w = 5, c = 3, oh = 3, ow = 3;
  auto x = xt::xtensor<float, 4>::from_shape({n, h, w, c}), t = xt::xtensor<float, 4>::from_shape({n, h, w, c});
  for (std::size_t i = 0; i < x.size(); ++i) {
    x.data()[i] = std::round(3.f * std::sin(0.2f + 0.61f * float(i)));  // rounded: ties, the first maximum wins
    t.data()[i] = float(i);
  }
  const auto [y, dy] = suite::host(directional(suite::in(x), suite::in(t)));
  for (std::size_t b = 0; b < n; ++b)
    for (std::size_t i = 0; i < oh; ++i)
      for (std::size_t j = 0; j < ow; ++j)
        for (std::size_t k = 0; k < c; ++k) {
          // rows [2i, 2i + 3) and columns [2j - 1, 2j + 2), clipped (SAME pads 1 row, 2 columns)
          const std::size_t r0 = 2 * i, r1 = std::min(h, 2 * i + 3), c0 = j == 0 ? 0 : 2 * j - 1, c1 = std::min(w, 2 * j + 2);
          std::size_t br = r0, bc = c0;
          for (std::size_t r = r0; r < r1; ++r)
            for (std::size_t q = c0; q < c1; ++q)
              if (x(b, r, q, k) > x(b, br, bc, k)) br = r, bc = q;
          CHECK(y(b, i, j, k) == x(b, br, bc, k));
          CHECK(dy(b, i, j, k) == t(b, br, bc, k));
        }
}

TEST_CASE("suite: depthwise_conv2d and its gradients (SAME, strides 2 and 1, multiplier 2)", "[suite][gradients][conv]") {
  INFO("backend " << suite::name());
  // L = sum(depthwise_conv2d(x, f) * m): y[b,i,j,p*M+q] = sum over (u, v) of x[b,ih,iw,p] f[u,v,p,q]
  auto vg = sf::value_and_grad<0, 1>(
      [](auto x, auto f, auto m) { return sf::reduce_sum(sf::depthwise_conv2d(x, f, sf::padding::same, sf::strides<2, 1>) * m); },
      suite::backend);
  const std::size_t n = 2, h = 5, w = 4, c = 3, kh = 3, kw = 2, mult = 2, oh = 3, ow = 4, pt = 1, pl = 0;
  const auto filled = [](std::array<std::size_t, 4> ext, float phase) {
    auto t = xt::xtensor<float, 4>::from_shape(ext);
    for (std::size_t i = 0; i < t.size(); ++i) t.data()[i] = std::sin(phase + 0.61f * float(i));
    return t;
  };
  const auto x = filled({n, h, w, c}, 0.2f), f = filled({kh, kw, c, mult}, 1.1f), m = filled({n, oh, ow, c * mult}, 2.3f);
  const auto [loss, dx, df] = suite::host(vg(suite::in(x), suite::in(f), suite::in(m)));
  xt::xtensor<double, 4> gx = xt::zeros<double>({n, h, w, c}), gf = xt::zeros<double>({kh, kw, c, mult});
  double expected = 0;
  for (std::size_t b = 0; b < n; ++b)
    for (std::size_t i = 0; i < oh; ++i)
      for (std::size_t j = 0; j < ow; ++j)
        for (std::size_t u = 0; u < kh; ++u)
          for (std::size_t v = 0; v < kw; ++v) {
            const long ih = long(i * 2 + u) - long(pt), iw = long(j + v) - long(pl);
            if (ih < 0 || iw < 0 || ih >= long(h) || iw >= long(w)) continue;
            for (std::size_t p = 0; p < c; ++p)
              for (std::size_t q = 0; q < mult; ++q) {
                const double xv = x(b, std::size_t(ih), std::size_t(iw), p), fv = f(u, v, p, q), mv = m(b, i, j, p * mult + q);
                expected += xv * fv * mv;
                gx(b, std::size_t(ih), std::size_t(iw), p) += fv * mv;
                gf(u, v, p, q) += xv * mv;
              }
          }
  CHECK(close(loss(), expected));
  check_elements("dx", dx, gx);
  check_elements("df", df, gf);
}
