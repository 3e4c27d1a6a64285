// sf::depthwise_conv2d (graph/depthwise_conv.hpp, backend/cpu/depthwise_conv.hpp) against
// tf.nn.depthwise_conv2d's definition written out: random run-time shapes, VALID and SAME,
// strides 1 to 3, channel multipliers 1 to 3, static shapes, size 0, threads, eager mode, the
// listing and the run-time shape errors. Gradients: tests/autodiff/test_depthwise_conv.cpp.
#include <catch2/catch.hpp>

#include <random>

#include <xtensor/xfixed.hpp>
#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

#include "window_reference.hpp"

namespace sf = staticflow;
using window_reference::random4;

namespace {
std::mt19937& rng() {
  static std::mt19937 g(2026'11'28);
  return g;
}

/// y[b, i, j, c*M + m] = sum over (u, v) of x[b, i*sh+u-pt, j*sw+v-pl, c] f[u, v, c, m].
xt::xtensor<double, 4> reference_depthwise(const xt::xtensor<double, 4>& x, const xt::xtensor<double, 4>& f, bool same,
                                           std::size_t sh, std::size_t sw) {
  const std::size_t n = x.shape(0), h = x.shape(1), w = x.shape(2), c = x.shape(3), kh = f.shape(0), kw = f.shape(1), m = f.shape(3);
  const auto rows = window_reference::axis_of(same, h, kh, sh), cols = window_reference::axis_of(same, w, kw, sw);
  xt::xtensor<double, 4> y = xt::zeros<double>({n, rows.out, cols.out, c * m});
  for (std::size_t b = 0; b < n; ++b)
    for (std::size_t i = 0; i < rows.out; ++i)
      for (std::size_t j = 0; j < cols.out; ++j)
        for (std::size_t p = 0; p < c; ++p)
          for (std::size_t q = 0; q < m; ++q)
            for (std::size_t u = 0; u < kh; ++u)
              for (std::size_t v = 0; v < kw; ++v) {
                const std::ptrdiff_t ih = std::ptrdiff_t(i * sh + u) - std::ptrdiff_t(rows.pad_before);
                const std::ptrdiff_t iw = std::ptrdiff_t(j * sw + v) - std::ptrdiff_t(cols.pad_before);
                if (ih < 0 || iw < 0 || ih >= std::ptrdiff_t(h) || iw >= std::ptrdiff_t(w)) continue;
                y(b, i, j, p * m + q) += x(b, std::size_t(ih), std::size_t(iw), p) * f(u, v, p, q);
              }
  return y;
}

xt::xtensor<double, 4> integers4(std::array<std::size_t, 4> ext) {
  auto t = xt::xtensor<double, 4>::from_shape(ext);
  std::uniform_int_distribution<int> u(-4, 4);
  for (auto& v : t) v = u(rng());
  return t;
}
}  // namespace

TEST_CASE("depthwise_conv2d: run-time shapes, VALID and SAME, strides 1 to 3, multipliers 1 to 3", "[graph][conv]") {
  auto valid = sf::function([](auto x, auto f) {
    return std::tuple{sf::depthwise_conv2d(x, f), sf::depthwise_conv2d(x, f, sf::padding::valid, sf::strides<2, 3>)};
  });
  auto same = sf::function([](auto x, auto f) {
    return std::tuple{sf::depthwise_conv2d(x, f, sf::padding::same), sf::depthwise_conv2d(x, f, sf::padding::same, sf::strides<2>),
                      sf::depthwise_conv2d(x, f, sf::padding::same, sf::strides<3, 1>)};
  });
  std::uniform_int_distribution<std::size_t> extent(1, 4);
  for (int round = 0; round < 10; ++round) {
    const std::size_t kh = extent(rng()), kw = extent(rng()), c = extent(rng()), m = round % 3 + 1;
    const auto x = integers4({extent(rng()), kh + extent(rng()) - 1, kw + extent(rng()) + 1, c});
    const auto f = integers4({kh, kw, c, m});
    INFO("round " << round << ": filter " << kh << "x" << kw << ", " << c << " channels, multiplier " << m);
    const auto [v1, v23] = valid(x, f);
    CHECK((v1 == reference_depthwise(x, f, false, 1, 1)));
    CHECK((v23 == reference_depthwise(x, f, false, 2, 3)));
    const auto [s1, s2, s31] = same(x, f);
    CHECK((s1 == reference_depthwise(x, f, true, 1, 1)));
    CHECK((s2 == reference_depthwise(x, f, true, 2, 2)));
    CHECK((s31 == reference_depthwise(x, f, true, 3, 1)));
  }
}

TEST_CASE("depthwise_conv2d: static shapes stay static; the listing is TF's; size 0; errors", "[graph][conv]") {
  auto f = sf::function([](auto x, auto k) { return sf::depthwise_conv2d(x, k, sf::padding::same, sf::strides<2>); });
  xt::xtensor_fixed<float, xt::xshape<1, 3, 3, 2>> x;
  xt::xtensor_fixed<float, xt::xshape<2, 2, 2, 2>> k;
  for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = float(i);
  for (std::size_t i = 0; i < k.size(); ++i) k.data()[i] = float(i % 3) - 1.f;
  const auto y = f(x, k);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(y)>, xt::xtensor_fixed<float, xt::xshape<1, 2, 2, 4>>>);
  const auto expected = reference_depthwise(xt::xtensor<double, 4>(xt::cast<double>(x)), xt::xtensor<double, 4>(xt::cast<double>(k)), true, 2, 2);
  CHECK((xt::xtensor<double, 4>(xt::cast<double>(y)) == expected));
  CHECK(f.get_concrete_function(x, k).graph_string() ==
        "{ lambda ; a:float32[1,3,3,2] b:float32[2,2,2,2]. let\n"
        "    c:float32[1,2,2,4] = DepthwiseConv2dNative[strides=2,2, padding=SAME] a b\n"
        "  in (c) }\n");
  auto g = sf::function([](auto a, auto b) { return sf::depthwise_conv2d(a, b); });
  CHECK(g(xt::xtensor<double, 4>::from_shape({0, 4, 4, 2}), integers4({2, 2, 2, 1})).shape(0) == 0);
  CHECK(g(integers4({1, 4, 4, 0}), xt::xtensor<double, 4>::from_shape({2, 2, 0, 3})).shape(3) == 0);
  CHECK_THROWS_WITH(g(integers4({1, 4, 4, 2}), integers4({2, 2, 3, 1})),
                    "staticflow: depthwise_conv2d: image (1, 4, 4, 2) and filter (2, 2, 3, 1): the filter's in_channels (3) differ from the image's channels (2)");
  CHECK_THROWS_AS(g(integers4({1, 2, 4, 2}), integers4({3, 2, 2, 1})), sf::shape_error);  // VALID: taller than the image
}

TEST_CASE("depthwise_conv2d: two threads and eager mode give the same values", "[graph][conv]") {
  auto f = sf::function([](auto x, auto k) { return sf::depthwise_conv2d(x, k, sf::padding::same); });
  const auto x = random4<double>({4, 40, 40, 16}, rng());  // enough work for threads_for to split
  const auto k = random4<double>({3, 3, 16, 2}, rng());
  const auto one = f(x, k);
  const auto saved = sf::num_threads();
  sf::set_num_threads(2);
  const auto two = f(x, k);
  sf::set_num_threads(saved);
  sf::run_functions_eagerly(true);
  const auto eager = f(x, k);
  sf::run_functions_eagerly(false);
  CHECK((two == one));
  CHECK((eager == one));
  CHECK(xt::allclose(one, reference_depthwise(x, k, true, 1, 1)));
}

TEST_CASE("separable_conv2d: a depthwise convolution then a 1x1 conv2d, as TF's", "[graph][conv]") {
  const auto x = integers4({2, 7, 6, 3});
  const auto dw = integers4({3, 3, 3, 2});
  const auto pw = integers4({1, 1, 6, 4});
  auto separable = sf::function([](auto a, auto d, auto p) { return sf::separable_conv2d(a, d, p, sf::padding::same, sf::strides<2>); });
  const xt::xtensor<double, 4> y = separable(x, dw, pw);
  const auto mixed = reference_depthwise(x, dw, true, 2, 2);
  REQUIRE(y.shape() == std::array<std::size_t, 4>{2, 4, 3, 4});
  for (std::size_t b = 0; b < 2; ++b)
    for (std::size_t i = 0; i < 4; ++i)
      for (std::size_t j = 0; j < 3; ++j)
        for (std::size_t q = 0; q < 4; ++q) {
          double acc = 0;
          for (std::size_t p = 0; p < 6; ++p) acc += mixed(b, i, j, p) * pw(0, 0, p, q);
          CHECK(y(b, i, j, q) == acc);  // small integers: exact
        }
  auto nchw = sf::function([](auto a, auto d, auto p) { return sf::separable_conv2d(a, d, p, sf::data_format::nchw, sf::padding::same, sf::strides<2>); });
  const xt::xtensor<double, 4> x_nchw = xt::transpose(x, {0, 3, 1, 2});
  CHECK((xt::xtensor<double, 4>(nchw(x_nchw, dw, pw)) == xt::xtensor<double, 4>(xt::transpose(y, {0, 3, 1, 2}))));
  CHECK_THROWS_WITH(separable(x, dw, integers4({3, 3, 6, 4})), "staticflow: squeeze: axis 0 of shape (3, 3, 6, 4) has extent 3, not 1");
  // a pointwise filter of fewer in_channels than the depthwise result's 6 is an error, not 2 groups
  CHECK_THROWS_WITH(separable(x, dw, integers4({1, 1, 3, 4})), "staticflow: conv2d: image (2, 4, 3, 6) and filter (1, 1, 3, 4): the pointwise filter's in_channels (3) differ from the depthwise result's channels (6)");
}
