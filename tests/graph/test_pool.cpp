// sf::max_pool1d/2d and sf::avg_pool1d/2d (graph/pool.hpp, backend/cpu/pool.hpp): against the
// definition on random inputs, VALID and SAME padding, windows and strides of several sizes,
// static and run-time shapes, integers, NaN, size-0 extents, threads, eager mode, the listing,
// and the run-time shape errors.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>

#include <xtensor/xfixed.hpp>
#include <xtensor/xtensor.hpp>
#include <xtensor/xview.hpp>

#include <staticflow/staticflow.hpp>

#include "window_reference.hpp"

namespace sf = staticflow;
using window_reference::random4;

namespace {

/// tf.nn.max_pool2d / avg_pool2d on NHWC, written out as the definition (windows clipped to the
/// input; the mean over the elements inside it).
template <class T>
xt::xtensor<T, 4> reference_pool(const xt::xtensor<T, 4>& x, bool max, std::size_t kh, std::size_t kw, std::size_t sh,
                                 std::size_t sw, bool same) {
  const std::size_t n = x.shape(0), h = x.shape(1), w = x.shape(2), c = x.shape(3);
  const auto rows = window_reference::axis_of(same, h, kh, sh), cols = window_reference::axis_of(same, w, kw, sw);
  const std::size_t oh = rows.out, ow = cols.out, pt = rows.pad_before, pl = cols.pad_before;
  xt::xtensor<T, 4> y = xt::zeros<T>({n, oh, ow, c});
  for (std::size_t b = 0; b < n; ++b)
    for (std::size_t i = 0; i < oh; ++i)
      for (std::size_t j = 0; j < ow; ++j)
        for (std::size_t k = 0; k < c; ++k) {
          T best = std::numeric_limits<T>::lowest(), sum = 0;
          std::size_t count = 0;
          for (std::size_t u = 0; u < kh; ++u)
            for (std::size_t v = 0; v < kw; ++v) {
              const std::ptrdiff_t r = std::ptrdiff_t(i * sh + u) - std::ptrdiff_t(pt);
              const std::ptrdiff_t q = std::ptrdiff_t(j * sw + v) - std::ptrdiff_t(pl);
              if (r < 0 || q < 0 || r >= std::ptrdiff_t(h) || q >= std::ptrdiff_t(w)) continue;
              const T value = x(b, std::size_t(r), std::size_t(q), k);
              best = std::max(best, value), sum += value, ++count;
            }
          y(b, i, j, k) = max ? best : sum / T(count);
        }
  return y;
}

}  // namespace

TEST_CASE("max_pool2d / avg_pool2d: run-time shapes, VALID and SAME, against the definition") {
  std::mt19937 rng(20261126);
  auto max2 = sf::function([](auto x) { return sf::max_pool2d(x, sf::ksize<2>); });
  auto max3s2same = sf::function([](auto x) { return sf::max_pool2d(x, sf::ksize<3>, sf::strides<2>, sf::padding::same); });
  auto avg2 = sf::function([](auto x) { return sf::avg_pool2d(x, sf::ksize<2>); });
  auto avg3x2same = sf::function([](auto x) { return sf::avg_pool2d(x, sf::ksize<3, 2>, sf::padding::same, sf::strides<1, 3>); });
  std::uniform_int_distribution<std::size_t> d(3, 9), ch(1, 5);
  for (int round = 0; round < 12; ++round) {
    const std::size_t n = 1 + round % 3, h = d(rng), w = d(rng), c = ch(rng);
    INFO("x " << n << "x" << h << "x" << w << "x" << c);
    const auto x = random4<double>({n, h, w, c}, rng);
    CHECK((xt::xtensor<double, 4>(max2(x)) == reference_pool(x, true, 2, 2, 2, 2, false)));
    CHECK((xt::xtensor<double, 4>(max3s2same(x)) == reference_pool(x, true, 3, 3, 2, 2, true)));
    CHECK(xt::allclose(xt::xtensor<double, 4>(avg2(x)), reference_pool(x, false, 2, 2, 2, 2, false)));
    CHECK(xt::allclose(xt::xtensor<double, 4>(avg3x2same(x)), reference_pool(x, false, 3, 2, 1, 3, true)));
  }
}

TEST_CASE("max_pool1d / avg_pool1d pool [batch, width, channels] as a 2-D pool over a height of 1") {
  std::mt19937 rng(5);
  const auto x4 = random4<double>({2, 1, 11, 3}, rng);
  const xt::xtensor<double, 3> x = xt::view(x4, xt::all(), 0, xt::all(), xt::all());
  auto max1 = sf::function([](auto a) { return sf::max_pool1d(a, sf::ksize<3>, sf::strides<2>, sf::padding::same); });
  auto avg1 = sf::function([](auto a) { return sf::avg_pool1d(a, sf::ksize<4>, sf::strides<3>); });
  const xt::xtensor<double, 3> m = max1(x), a = avg1(x);
  CHECK(m.shape() == std::array<std::size_t, 3>{2, 6, 3});
  CHECK(a.shape() == std::array<std::size_t, 3>{2, 3, 3});
  const xt::xtensor<double, 4> m_ref = reference_pool(x4, true, 1, 3, 1, 2, true);
  const xt::xtensor<double, 4> a_ref = reference_pool(x4, false, 1, 4, 1, 3, false);
  CHECK((m == xt::xtensor<double, 3>(xt::view(m_ref, xt::all(), 0, xt::all(), xt::all()))));
  CHECK(xt::allclose(a, xt::xtensor<double, 3>(xt::view(a_ref, xt::all(), 0, xt::all(), xt::all()))));
  const std::string listing = max1.get_concrete_function(x).graph_string();
  CHECK(listing.find("MaxPool[ksize=3, strides=2, padding=SAME]") != std::string::npos);
}

TEST_CASE("pooling: static shapes keep their shape in the type; strides default to the window") {
  xt::xtensor_fixed<float, xt::xshape<2, 8, 7, 3>> x;
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> u(-1, 1);
  for (auto& v : x) v = u(rng);
  auto pool = sf::function([](auto a) { return sf::max_pool2d(a, sf::ksize<2>); });
  const auto y = pool(x);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(y)>, xt::xtensor_fixed<float, xt::xshape<2, 4, 3, 3>>>);
  CHECK((xt::xtensor<float, 4>(y) == reference_pool(xt::xtensor<float, 4>(x), true, 2, 2, 2, 2, false)));
  auto same = sf::function([](auto a) { return sf::avg_pool2d(a, sf::ksize<3>, sf::strides<2>, sf::padding::same); });
  const auto z = same(x);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(z)>, xt::xtensor_fixed<float, xt::xshape<2, 4, 4, 3>>>);
  CHECK(xt::allclose(xt::xtensor<float, 4>(z), reference_pool(xt::xtensor<float, 4>(x), false, 3, 3, 2, 2, true)));
}

TEST_CASE("pooling: data_format nchw / ncw is the NHWC pooling transposed on both sides") {
  std::mt19937 rng(19);
  const auto x = random4<double>({2, 7, 6, 3}, rng);
  const xt::xtensor<double, 4> x_nchw = xt::transpose(x, {0, 3, 1, 2});
  auto pool = sf::function([](auto a) { return sf::max_pool2d(a, sf::ksize<3>, sf::data_format::nchw, sf::strides<2>, sf::padding::same); });
  const xt::xtensor<double, 4> y = pool(x_nchw);
  const xt::xtensor<double, 4> expected = xt::transpose(reference_pool(x, true, 3, 3, 2, 2, true), {0, 3, 1, 2});
  CHECK(y.shape() == expected.shape());
  CHECK(y == expected);
  auto line = sf::function([](auto a) { return sf::avg_pool1d(a, sf::ksize<2>, sf::data_format::ncw); });
  const xt::xtensor<double, 3> s = xt::view(x_nchw, 0, xt::all(), xt::all(), xt::all());  // [channels 3, 7, width 6] as NCW
  const xt::xtensor<double, 3> pooled = line(s);
  REQUIRE(pooled.shape() == std::array<std::size_t, 3>{3, 7, 3});
  CHECK(pooled(1, 4, 2) == Approx((s(1, 4, 4) + s(1, 4, 5)) / 2));
}

TEST_CASE("max_pool2d: integers, NaN propagates, infinities are ordinary values") {
  auto pool = sf::function([](auto a) { return sf::max_pool2d(a, sf::ksize<2>); });
  const xt::xtensor<int, 4> ints = xt::xtensor<int, 4>({{{{-5}, {7}, {3}, {-9}}, {{2}, {-1}, {8}, {8}}}});
  CHECK((xt::xtensor<int, 4>(pool(ints)) == xt::xtensor<int, 4>({{{{7}, {8}}}})));
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const xt::xtensor<double, 4> x = xt::xtensor<double, 4>({{{{1, -inf}, {nan, -inf}}, {{3, -inf}, {2, -inf}}}});
  const xt::xtensor<double, 4> y = pool(x);
  CHECK(std::isnan(y(0, 0, 0, 0)));
  CHECK(y(0, 0, 0, 1) == -inf);
  auto avg = sf::function([](auto a) { return sf::avg_pool2d(a, sf::ksize<2>); });
  CHECK(std::isnan(xt::xtensor<double, 4>(avg(x))(0, 0, 0, 0)));
}

TEST_CASE("pooling: a big input splits across threads with the same bits, forward and gradient") {
  std::mt19937 rng(3);
  const auto x = random4<float>({1, 67, 45, 16}, rng);
  auto pool = sf::function([](auto a) { return sf::avg_pool2d(a, sf::ksize<3>, sf::strides<2>, sf::padding::same); });
  auto grad = sf::grad<0>([](auto a) {
    return sf::reduce_sum(sf::sin(sf::max_pool2d(a, sf::ksize<3>, sf::strides<2>))) +
           sf::reduce_sum(sf::avg_pool2d(a, sf::ksize<3>, sf::strides<1>));
  });
  const xt::xtensor<float, 4> y1 = pool(x), g1 = grad(x);
  CHECK(xt::allclose(y1, reference_pool(x, false, 3, 3, 2, 2, true), 1e-5, 1e-6));
  sf::set_num_threads(2);
  const xt::xtensor<float, 4> y2 = pool(x), g2 = grad(x);
  sf::set_num_threads(1);
  CHECK((y2 == y1));
  CHECK((g2 == g1));
}

TEST_CASE("pooling: size-0 extents are ordinary input") {
  auto pool = sf::function([](auto a) { return sf::max_pool2d(a, sf::ksize<2>, sf::padding::same); });
  CHECK(xt::xtensor<double, 4>(pool(xt::xtensor<double, 4>(xt::zeros<double>({0, 4, 4, 2})))).shape() ==
        std::array<std::size_t, 4>{0, 2, 2, 2});
  CHECK(xt::xtensor<double, 4>(pool(xt::xtensor<double, 4>(xt::zeros<double>({1, 0, 4, 2})))).shape() ==
        std::array<std::size_t, 4>{1, 0, 2, 2});
  CHECK(xt::xtensor<double, 4>(pool(xt::xtensor<double, 4>(xt::zeros<double>({1, 3, 4, 0})))).shape() ==
        std::array<std::size_t, 4>{1, 2, 2, 0});
  auto grad = sf::grad<0>([](auto a) { return sf::reduce_sum(sf::avg_pool2d(a, sf::ksize<2>, sf::padding::same)); });
  CHECK(xt::xtensor<double, 4>(grad(xt::xtensor<double, 4>(xt::zeros<double>({2, 0, 3, 1})))).shape() ==
        std::array<std::size_t, 4>{2, 0, 3, 1});
}

TEST_CASE("pooling: a VALID window larger than the input is a shape error before any effect") {
  sf::variable<double> calls{0.0};
  auto pool = sf::function([&](auto a) {
    calls.assign_add(1.0);
    return sf::max_pool2d(a, sf::ksize<3, 2>);
  });
  const xt::xtensor<double, 4> small = xt::ones<double>({1, 2, 5, 1});
  CHECK_THROWS_AS(pool(small), sf::shape_error);
  CHECK_THROWS_WITH(pool(small),
                    "staticflow: max_pool: input (1, 2, 5, 1) and window 3x2: with VALID padding the window must fit in the input");
  CHECK(calls.value() == 0.0);
  auto pool1 = sf::function([](auto a) { return sf::avg_pool1d(a, sf::ksize<4>); });
  CHECK_THROWS_WITH(pool1(xt::xtensor<float, 3>(xt::ones<float>({2, 3, 1}))),
                    "staticflow: avg_pool: input (2, 3, 1) and window 4: with VALID padding the window must fit in the input");
}

TEST_CASE("pooling: eager mode gives the traced result; the listing names TF's ops") {
  std::mt19937 rng(4);
  const auto x = random4<double>({2, 7, 6, 3}, rng);
  auto layer = sf::function([](auto a) {
    return sf::avg_pool2d(sf::relu(sf::max_pool2d(a, sf::ksize<2>, sf::strides<1>, sf::padding::same)), sf::ksize<2, 3>);
  });
  const xt::xtensor<double, 4> traced = layer(x);
  sf::run_functions_eagerly(true);
  const xt::xtensor<double, 4> eager = layer(x);
  sf::run_functions_eagerly(false);
  CHECK((eager == traced));
  const xt::xtensor<double, 4> pooled = xt::maximum(reference_pool(x, true, 2, 2, 1, 1, true), 0.0);
  CHECK(xt::allclose(traced, reference_pool(pooled, false, 2, 3, 2, 3, false)));
  const std::string listing = layer.get_concrete_function(x).graph_string();
  CHECK(listing.find("MaxPool[ksize=2,2, strides=1,1, padding=SAME]") != std::string::npos);
  CHECK(listing.find("AvgPool[ksize=2,3, strides=2,3, padding=VALID]") != std::string::npos);
}

TEST_CASE("pooling: every channel pass (8, 4 and 1 xsimd batches, a scalar rest), forward, gradient and jvp") {
  // 75 channels, and 13 batches and 3: one pass of each kind whatever the batch width
  constexpr std::size_t width = xsimd::batch<float>::size;
  for (const std::size_t channels : {std::size_t{75}, 13 * width + 3}) {
    INFO(channels << " channels");
    std::mt19937 rng(12);
    const auto x = random4<float>({2, 9, 8, channels}, rng);
    const auto m = random4<float>({2, 5, 4, channels}, rng);
    const auto t = random4<float>({2, 9, 8, channels}, rng);
    auto max_pool = sf::function([](auto a) { return sf::max_pool2d(a, sf::ksize<3>, sf::strides<2>, sf::padding::same); });
    auto avg_pool = sf::function([](auto a) { return sf::avg_pool2d(a, sf::ksize<3>, sf::strides<2>, sf::padding::same); });
    CHECK((xt::xtensor<float, 4>(max_pool(x)) == reference_pool(x, true, 3, 3, 2, 2, true)));
    CHECK(xt::allclose(xt::xtensor<float, 4>(avg_pool(x)), reference_pool(x, false, 3, 3, 2, 2, true), 1e-5, 1e-6));
    auto grads = sf::grad<0>([](auto a, auto w) {
      return sf::reduce_sum(sf::max_pool2d(a, sf::ksize<3>, sf::strides<2>, sf::padding::same) * w) +
             sf::reduce_sum(sf::avg_pool2d(a, sf::ksize<3>, sf::strides<2>, sf::padding::same) * w);
    });
    const xt::xtensor<float, 4> dx = grads(x, m);
    // SAME on 9x8 with 3x3 windows at stride 2: 5x4 outputs; 1 padding row before, 1 column after
    xt::xtensor<double, 4> expected = xt::zeros<double>(std::array<std::size_t, 4>{2, 9, 8, channels});
    xt::xtensor<float, 4> t_at_maxima = xt::zeros<float>(std::array<std::size_t, 4>{2, 5, 4, channels});
    for (std::size_t b = 0; b < 2; ++b)
      for (std::size_t i = 0; i < 5; ++i)
        for (std::size_t j = 0; j < 4; ++j)
          for (std::size_t k = 0; k < channels; ++k) {
            const std::size_t r0 = i == 0 ? 0 : 2 * i - 1, r1 = std::min<std::size_t>(9, 2 * i + 2);
            const std::size_t c0 = 2 * j, c1 = std::min<std::size_t>(8, 2 * j + 3);
            std::size_t br = r0, bc = c0;
            for (std::size_t r = r0; r < r1; ++r)
              for (std::size_t q = c0; q < c1; ++q)
                if (x(b, r, q, k) > x(b, br, bc, k)) br = r, bc = q;
            expected(b, br, bc, k) += m(b, i, j, k);
            t_at_maxima(b, i, j, k) = t(b, br, bc, k);
            const double share = double(m(b, i, j, k)) / double((r1 - r0) * (c1 - c0));
            for (std::size_t r = r0; r < r1; ++r)
              for (std::size_t q = c0; q < c1; ++q) expected(b, r, q, k) += share;
          }
    CHECK(xt::allclose(xt::xtensor<double, 4>(dx), expected, 1e-5, 1e-5));
    // MaxPoolGradGrad: the jvp along t reads t at each window's first maximum
    const auto [value, along_t] = sf::jvp<0>([](auto a) {
      return sf::max_pool2d(a, sf::ksize<3>, sf::strides<2>, sf::padding::same);
    })(x, t);
    CHECK((xt::xtensor<float, 4>(value) == reference_pool(x, true, 3, 3, 2, 2, true)));
    CHECK((xt::xtensor<float, 4>(along_t) == t_at_maxima));
  }
}
