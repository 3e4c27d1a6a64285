// Tests for backend/cpu/conv_direct.hpp (conv2d's forward pass without a patch matrix), through
// sf::conv2d: shapes chosen to reach each part of the kernel -- tiles of 1 to MR pixels, edge
// tiles (windows leaving the image sideways) and inner ones, filter panels of NR columns, a last
// panel of W or NR columns with fewer outputs, blocks of several taps and channel ranges of one
// tap (C larger than a block), output rows whose window lies wholly in the padding -- against the
// definition (tests/graph/window_reference.hpp), float and double, 1 and 2 threads.
#include <catch2/catch.hpp>

#include <random>

#include <xtensor/xtensor.hpp>
#include <xtensor/xview.hpp>

#include <staticflow/staticflow.hpp>

#include "../graph/window_reference.hpp"

namespace sf = staticflow;
using window_reference::random4;
using window_reference::reference_conv;

namespace {

template <class T>
bool close_to(const xt::xtensor<T, 4>& got, const xt::xtensor<double, 4>& expected, double tolerance) {
  return got.shape() == expected.shape() && xt::allclose(xt::xtensor<double, 4>(xt::cast<double>(got)), expected, tolerance, tolerance);
}

}  // namespace

TEST_CASE("conv direct kernel: tiles, panels and blocks of the contracted axis against the definition", "[backend][conv]") {
  std::mt19937 rng(20261129);
  auto same = sf::function([](auto x, auto f) { return sf::conv2d(x, f, sf::padding::same); });
  auto strided = sf::function([](auto x, auto f) { return sf::conv2d(x, f, sf::padding::same, sf::strides<2, 3>, sf::dilations<1, 2>); });
  auto valid = sf::function([](auto x, auto f) { return sf::conv2d(x, f); });
  using staticflow::cpu::detail::conv_direct_blocking;
  constexpr std::size_t kc = conv_direct_blocking<double>::KC, nr = conv_direct_blocking<double>::NR,
                        w = conv_direct_blocking<double>::W, mr = conv_direct_blocking<double>::MR;
  struct shape {
    std::size_t n, h, width, c, kh, kw, o;
  };
  const shape shapes[] = {
      {1, 4, 3 * mr + 5, kc + 37, 3, 3, nr + w / 2},  // channel ranges of one tap; a narrow last panel
      {2, 5, 2 * mr + 1, kc / 3 + 1, 3, 2, 2 * nr},   // blocks of two taps; two full panels
      {1, 3, 1, 7, 1, 3, nr + w + 1},                 // one pixel: an edge tile; a last panel of NR
      {1, 6, mr, 3, 5, 5, 1},                         // 5x5 windows: two edge pixels on each side
  };
  for (const shape& s : shapes) {
    INFO("x " << s.n << "x" << s.h << "x" << s.width << "x" << s.c << ", f " << s.kh << "x" << s.kw << "x" << s.c << "x" << s.o);
    const auto x = random4<double>({s.n, s.h, s.width, s.c}, rng);
    const auto f = random4<double>({s.kh, s.kw, s.c, s.o}, rng);
    CHECK(close_to<double>(same(x, f), reference_conv(x, f, {true}), 1e-11));
    CHECK(close_to<double>(strided(x, f), reference_conv(x, f, {true, 2, 3, 1, 2}), 1e-11));
    if (s.width >= s.kw && s.h >= s.kh) CHECK(close_to<double>(valid(x, f), reference_conv(x, f, {}), 1e-11));
    const xt::xtensor<float, 4> xf = xt::cast<float>(x), ff = xt::cast<float>(f);
    CHECK(close_to<float>(same(xf, ff), reference_conv(x, f, {true}), 2e-3));
  }
}

TEST_CASE("conv direct kernel: rows whose window is all padding are zeros; the rest is the unpadded conv", "[backend][conv]") {
  std::mt19937 rng(5);
  auto padded = sf::function([](auto x, auto f) { return sf::conv2d(x, f, sf::padding::explicit_<3, 2, 0, 0>); });
  const auto x = random4<double>({1, 4, 20, 6}, rng);
  const auto f = random4<double>({1, 3, 6, 40}, rng);
  const xt::xtensor<double, 4> y = padded(x, f);
  REQUIRE(y.shape() == std::array<std::size_t, 4>{1, 9, 18, 40});
  CHECK(xt::all(xt::equal(xt::view(y, xt::all(), xt::range(0, 3)), 0.0)));
  CHECK(xt::all(xt::equal(xt::view(y, xt::all(), xt::range(7, 9)), 0.0)));
  const xt::xtensor<double, 4> middle = xt::view(y, xt::all(), xt::range(3, 7));
  CHECK(close_to<double>(middle, reference_conv(x, f, {}), 1e-12));
}

TEST_CASE("conv direct kernel: every output is the same chain on 1 and 2 threads", "[backend][conv]") {
  std::mt19937 rng(11);
  auto conv = sf::function([](auto x, auto f) { return sf::conv2d(x, f, sf::padding::same, sf::dilations<2>); });
  const auto x = random4<float>({2, 23, 29, 40}, rng);
  const auto f = random4<float>({3, 3, 40, 50}, rng);
  const xt::xtensor<float, 4> one_thread = conv(x, f);
  sf::set_num_threads(2);
  const xt::xtensor<float, 4> two_threads = conv(x, f);
  sf::set_num_threads(1);
  CHECK(two_threads == one_thread);
  CHECK(close_to<float>(one_thread, reference_conv(xt::xtensor<double, 4>(xt::cast<double>(x)),
                                                   xt::xtensor<double, 4>(xt::cast<double>(f)), {true, 1, 1, 2, 2}),
                        1e-4));
}

namespace {

/// The two gradients of sum(conv2d(x, f) * m) written out: dx[b, ih, iw, c] and df[u, v, c, o]
/// gather, for every output (b, i, j, o) and tap (u, v) whose input lies inside the image, m's
/// value times f's or x's.
struct conv_gradients {
  xt::xtensor<double, 4> dx, df;
};
conv_gradients reference_gradients(const xt::xtensor<double, 4>& x, const xt::xtensor<double, 4>& f,
                                   const xt::xtensor<double, 4>& m, const window_reference::conv_options& o) {
  const std::size_t n = x.shape(0), h = x.shape(1), w = x.shape(2), c = x.shape(3);
  const std::size_t kh = f.shape(0), kw = f.shape(1), outs = f.shape(3);
  const auto rows = window_reference::dilated_axis_of(o.same, h, kh, o.sh, o.dh, o.top, o.bottom);
  const auto cols = window_reference::dilated_axis_of(o.same, w, kw, o.sw, o.dw, o.left, o.right);
  conv_gradients g{xt::zeros<double>(x.shape()), xt::zeros<double>(f.shape())};
  for (std::size_t b = 0; b < n; ++b)
    for (std::size_t i = 0; i < rows.out; ++i)
      for (std::size_t j = 0; j < cols.out; ++j)
        for (std::size_t u = 0; u < kh; ++u)
          for (std::size_t v = 0; v < kw; ++v) {
            const std::ptrdiff_t ih = std::ptrdiff_t(i * o.sh + u * o.dh) - std::ptrdiff_t(rows.pad_before);
            const std::ptrdiff_t iw = std::ptrdiff_t(j * o.sw + v * o.dw) - std::ptrdiff_t(cols.pad_before);
            if (ih < 0 || iw < 0 || ih >= std::ptrdiff_t(h) || iw >= std::ptrdiff_t(w)) continue;
            for (std::size_t p = 0; p < c; ++p)
              for (std::size_t q = 0; q < outs; ++q) {
                g.dx(b, std::size_t(ih), std::size_t(iw), p) += f(u, v, p, q) * m(b, i, j, q);
                g.df(u, v, p, q) += x(b, std::size_t(ih), std::size_t(iw), p) * m(b, i, j, q);
              }
          }
  return g;
}

}  // namespace

TEST_CASE("conv direct kernel: both gradients (stride 1: dy convolved with the turned filter; any stride: the filter's)", "[backend][conv]") {
  std::mt19937 rng(29);
  auto same = sf::value_and_grad<0, 1>([](auto x, auto f, auto m) { return sf::reduce_sum(sf::conv2d(x, f, sf::padding::same) * m); });
  auto strided = sf::value_and_grad<0, 1>([](auto x, auto f, auto m) {
    return sf::reduce_sum(sf::conv2d(x, f, sf::padding::same, sf::strides<2, 3>, sf::dilations<1, 2>) * m);
  });
  auto padded = sf::value_and_grad<0, 1>([](auto x, auto f, auto m) {  // padding beyond the filter's reach
    return sf::reduce_sum(sf::conv2d(x, f, sf::padding::explicit_<3, 1, 0, 4>) * m);
  });
  using staticflow::cpu::detail::conv_direct_blocking;
  constexpr std::size_t kc = conv_direct_blocking<double>::KC, nr = conv_direct_blocking<double>::NR,
                        w = conv_direct_blocking<double>::W, mr = conv_direct_blocking<double>::MR;
  struct shape {
    std::size_t n, h, width, c, kh, kw, o;
    window_reference::conv_options options;
    int which;
  };
  const shape shapes[] = {
      {1, 4, 2 * mr + 3, nr + w / 2, 3, 3, kc + 5, {true}, 0},  // dx: channel ranges of dy's O; df: a narrow panel
      {2, 5, mr + 1, 2 * mr + 1, 3, 2, 2 * nr, {true}, 0},      // channel tiles of MR and 1
      {1, 7, 3 * mr, 5, 2, 3, nr + 3, {true, 2, 3, 1, 2}, 1},  // strided: df direct, dx by windows
      {1, 3, 9, 4, 1, 2, 6, {false, 1, 1, 1, 1, 3, 1, 0, 4}, 2},  // dx by windows (padding 3 > reach 0)
  };
  for (const shape& s : shapes) {
    INFO("x " << s.n << "x" << s.h << "x" << s.width << "x" << s.c << ", f " << s.kh << "x" << s.kw << "x" << s.c << "x" << s.o);
    const auto x = random4<double>({s.n, s.h, s.width, s.c}, rng);
    const auto f = random4<double>({s.kh, s.kw, s.c, s.o}, rng);
    const auto y = reference_conv(x, f, s.options);
    const auto m = random4<double>({y.shape(0), y.shape(1), y.shape(2), y.shape(3)}, rng);
    const auto want = reference_gradients(x, f, m, s.options);
    const auto got = s.which == 0 ? same(x, f, m) : s.which == 1 ? strided(x, f, m) : padded(x, f, m);
    CHECK(close_to<double>(std::get<1>(got), want.dx, 1e-11));
    CHECK(close_to<double>(std::get<2>(got), want.df, 1e-11));
  }
}

TEST_CASE("conv direct kernel: the filter gradient's tiles split across threads give the same bits", "[backend][conv]") {
  std::mt19937 rng(31);
  auto vg = sf::value_and_grad<0, 1>([](auto x, auto f) { return sf::reduce_sum(sf::square(sf::conv2d(x, f, sf::padding::same))); });
  const auto x = random4<float>({2, 17, 30, 37}, rng);
  const auto f = random4<float>({3, 3, 37, 45}, rng);
  const auto one_thread = vg(x, f);
  sf::set_num_threads(2);
  const auto two_threads = vg(x, f);
  sf::set_num_threads(1);
  CHECK(std::get<1>(two_threads) == std::get<1>(one_thread));
  CHECK(std::get<2>(two_threads) == std::get<2>(one_thread));
}

TEST_CASE("conv direct kernel: conv3d (taps over depth, rows and columns) and both its gradients", "[backend][conv]") {
  std::mt19937 rng(37);
  using staticflow::cpu::detail::conv_direct_blocking;
  constexpr std::size_t nr = conv_direct_blocking<double>::NR, mr = conv_direct_blocking<double>::MR;
  const std::size_t n = 1, d = 4, h = 3, w = 2 * mr + 3, c = 11, k = 3, o = nr + 5;
  xt::xtensor<double, 5> x = xt::xtensor<double, 5>::from_shape({n, d, h, w, c});
  xt::xtensor<double, 5> f = xt::xtensor<double, 5>::from_shape({k, k, k, c, o});
  xt::xtensor<double, 5> m = xt::xtensor<double, 5>::from_shape({n, d, h, w, o});
  std::uniform_real_distribution<double> u(-1, 1);
  for (auto* t : {&x, &f, &m})
    for (auto& v : *t) v = u(rng);
  // SAME with stride 1 and a 3-tap filter: every axis padded by one on each side.
  xt::xtensor<double, 5> y = xt::zeros<double>(m.shape()), dx = xt::zeros<double>(x.shape()), df = xt::zeros<double>(f.shape());
  for (std::size_t z = 0; z < d; ++z)
    for (std::size_t i = 0; i < h; ++i)
      for (std::size_t j = 0; j < w; ++j)
        for (std::size_t a = 0; a < k; ++a)
          for (std::size_t b = 0; b < k; ++b)
            for (std::size_t e = 0; e < k; ++e) {
              const std::ptrdiff_t iz = std::ptrdiff_t(z + a) - 1, ih = std::ptrdiff_t(i + b) - 1, iw = std::ptrdiff_t(j + e) - 1;
              if (iz < 0 || ih < 0 || iw < 0 || iz >= std::ptrdiff_t(d) || ih >= std::ptrdiff_t(h) || iw >= std::ptrdiff_t(w)) continue;
              for (std::size_t p = 0; p < c; ++p)
                for (std::size_t q = 0; q < o; ++q) {
                  const double xv = x(0, std::size_t(iz), std::size_t(ih), std::size_t(iw), p);
                  y(0, z, i, j, q) += xv * f(a, b, e, p, q);
                  dx(0, std::size_t(iz), std::size_t(ih), std::size_t(iw), p) += f(a, b, e, p, q) * m(0, z, i, j, q);
                  df(a, b, e, p, q) += xv * m(0, z, i, j, q);
                }
            }
  auto conv = sf::function([](auto a, auto b) { return sf::conv3d(a, b, sf::padding::same); });
  auto vg = sf::value_and_grad<0, 1>([](auto a, auto b, auto mask) { return sf::reduce_sum(sf::conv3d(a, b, sf::padding::same) * mask); });
  CHECK(xt::allclose(xt::xtensor<double, 5>(conv(x, f)), y, 1e-11, 1e-11));
  const auto [loss, gx, gf] = vg(x, f, m);
  CHECK(loss == Approx(xt::sum(y * m)()).epsilon(1e-11));
  CHECK(xt::allclose(gx, dx, 1e-11, 1e-11));
  CHECK(xt::allclose(gf, df, 1e-11, 1e-11));
  // Strided in depth and columns: the input gradient by phases, against the stride-1 one: the
  // strided conv's outputs are every second output of the stride-1 conv (VALID), so its gradient
  // is the stride-1 gradient with m zeroed off the strided positions.
  auto strided = sf::value_and_grad<0, 1>([](auto a, auto b, auto mask) {
    return sf::reduce_sum(sf::conv3d(a, b, sf::strides<2, 1, 2>) * mask);
  });
  auto dense = sf::value_and_grad<0, 1>([](auto a, auto b, auto mask) { return sf::reduce_sum(sf::conv3d(a, b) * mask); });
  const std::size_t od = d - k + 1, oh = h - k + 1, ow = w - k + 1;
  xt::xtensor<double, 5> ms = xt::xtensor<double, 5>::from_shape({n, (od + 1) / 2, oh, (ow + 1) / 2, o});
  xt::xtensor<double, 5> md = xt::zeros<double>({n, od, oh, ow, o});
  for (std::size_t z = 0; z < ms.shape(1); ++z)
    for (std::size_t i = 0; i < oh; ++i)
      for (std::size_t j = 0; j < ms.shape(3); ++j)
        for (std::size_t q = 0; q < o; ++q) md(0, 2 * z, i, 2 * j, q) = ms(0, z, i, j, q) = u(rng);
  const auto [ls, sx, sf_] = strided(x, f, ms);
  const auto [ld, dxd, dfd] = dense(x, f, md);
  CHECK(ls == Approx(ld).epsilon(1e-11));
  CHECK(xt::allclose(sx, dxd, 1e-11, 1e-11));
  CHECK(xt::allclose(sf_, dfd, 1e-11, 1e-11));
}

TEST_CASE("conv direct kernel: strided input gradients, one stride-1 convolution of dy per phase", "[backend][conv]") {
  std::mt19937 rng(41);
  // 1x1 at stride 2 and a dilation-2 filter at stride 2 leave phases that no tap reaches (zeros).
  auto pointwise2 = sf::value_and_grad<0, 1>([](auto x, auto f, auto m) { return sf::reduce_sum(sf::conv2d(x, f, sf::strides<2>) * m); });
  auto strided32 = sf::value_and_grad<0, 1>([](auto x, auto f, auto m) {
    return sf::reduce_sum(sf::conv2d(x, f, sf::padding::same, sf::strides<3, 2>) * m);
  });
  auto dilated2 = sf::value_and_grad<0, 1>([](auto x, auto f, auto m) {
    return sf::reduce_sum(sf::conv2d(x, f, sf::padding::same, sf::strides<2>, sf::dilations<2>) * m);
  });
  auto padded2 = sf::value_and_grad<0, 1>([](auto x, auto f, auto m) {
    return sf::reduce_sum(sf::conv2d(x, f, sf::padding::explicit_<2, 0, 1, 3>, sf::strides<2>) * m);
  });
  using window_reference::conv_options;
  for (int round = 0; round < 3; ++round) {
    const std::size_t n = 1 + std::size_t(round % 2), h = 9 + std::size_t(round), w = 14 + 3 * std::size_t(round), c = 3 + 5 * std::size_t(round),
                      o = 17 + 7 * std::size_t(round);
    INFO("x " << n << "x" << h << "x" << w << "x" << c << ", " << o << " outputs");
    const auto x = random4<double>({n, h, w, c}, rng);
    const auto check = [&](auto& vg, std::size_t kh, std::size_t kw, const conv_options& options) {
      const auto f = random4<double>({kh, kw, c, o}, rng);
      const auto y = reference_conv(x, f, options);
      const auto m = random4<double>({y.shape(0), y.shape(1), y.shape(2), y.shape(3)}, rng);
      const auto want = reference_gradients(x, f, m, options);
      const auto got = vg(x, f, m);
      CHECK(close_to<double>(std::get<1>(got), want.dx, 1e-11));
      CHECK(close_to<double>(std::get<2>(got), want.df, 1e-11));
    };
    check(pointwise2, 1, 1, {false, 2, 2});
    check(strided32, 2, 3, {true, 3, 2});
    check(dilated2, 3, 3, {true, 2, 2, 2, 2});
    check(padded2, 3, 2, {false, 2, 2, 1, 1, 2, 0, 1, 3});
  }
}
