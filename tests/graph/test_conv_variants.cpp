// sf::conv1d and sf::conv2d_transpose (graph/conv.hpp: built from conv2d and its image gradient)
// against TF's definitions written out: random run-time shapes, VALID and SAME, strides 1-3,
// static shapes, size 0, the adjoint identity <conv2d(z, f), y> = <z, conv2d_transpose(y, f)>,
// an output_shape from sf::shape_of(a tensor), the listings and eager mode. Gradients: tests/autodiff/test_conv_variants.cpp.
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

/// tf.nn.conv1d, NWC x WIO, written out.
xt::xtensor<double, 3> reference_conv1d(const xt::xtensor<double, 3>& x, const xt::xtensor<double, 3>& f, bool same, std::size_t s) {
  const std::size_t n = x.shape(0), w = x.shape(1), c = x.shape(2), k = f.shape(0), o = f.shape(2);
  const auto axis = window_reference::axis_of(same, w, k, s);
  xt::xtensor<double, 3> y = xt::zeros<double>({n, axis.out, o});
  for (std::size_t b = 0; b < n; ++b)
    for (std::size_t j = 0; j < axis.out; ++j)
      for (std::size_t q = 0; q < o; ++q)
        for (std::size_t v = 0; v < k; ++v) {
          const std::ptrdiff_t at = std::ptrdiff_t(j * s + v) - std::ptrdiff_t(axis.pad_before);
          if (at < 0 || at >= std::ptrdiff_t(w)) continue;
          for (std::size_t p = 0; p < c; ++p) y(b, j, q) += x(b, std::size_t(at), p) * f(v, p, q);
        }
  return y;
}

/// tf.nn.conv2d_transpose written out as the scatter it is: input pixel (i, j) adds f(u, v, :, q)
/// times its channel q at output pixel (i * sh + u - pad_top, j * sw + v - pad_left).
xt::xtensor<double, 4> reference_transpose(const xt::xtensor<double, 4>& y, const xt::xtensor<double, 4>& f,
                                           std::array<std::size_t, 4> out, bool same, std::size_t sh, std::size_t sw) {
  const auto rows = window_reference::axis_of(same, out[1], f.shape(0), sh);
  const auto cols = window_reference::axis_of(same, out[2], f.shape(1), sw);
  xt::xtensor<double, 4> x = xt::zeros<double>(out);
  for (std::size_t b = 0; b < y.shape(0); ++b)
    for (std::size_t i = 0; i < y.shape(1); ++i)
      for (std::size_t j = 0; j < y.shape(2); ++j)
        for (std::size_t u = 0; u < f.shape(0); ++u)
          for (std::size_t v = 0; v < f.shape(1); ++v) {
            const std::ptrdiff_t r = std::ptrdiff_t(i * sh + u) - std::ptrdiff_t(rows.pad_before);
            const std::ptrdiff_t c = std::ptrdiff_t(j * sw + v) - std::ptrdiff_t(cols.pad_before);
            if (r < 0 || c < 0 || r >= std::ptrdiff_t(out[1]) || c >= std::ptrdiff_t(out[2])) continue;
            for (std::size_t p = 0; p < out[3]; ++p)
              for (std::size_t q = 0; q < y.shape(3); ++q) x(b, std::size_t(r), std::size_t(c), p) += y(b, i, j, q) * f(u, v, p, q);
          }
  return x;
}

xt::xtensor<double, 3> random3(std::array<std::size_t, 3> ext) {
  auto t = xt::xtensor<double, 3>::from_shape(ext);
  std::uniform_int_distribution<int> u(-4, 4);
  for (auto& v : t) v = u(rng());
  return t;
}
}  // namespace

TEST_CASE("conv1d: run-time shapes, VALID and SAME, strides 1 to 3, against the definition", "[graph][conv]") {
  auto valid = sf::function([](auto x, auto f) {
    return std::tuple{sf::conv1d(x, f), sf::conv1d(x, f, sf::padding::valid, sf::strides<2>), sf::conv1d(x, f, sf::padding::valid, sf::strides<3>)};
  });
  auto same = sf::function([](auto x, auto f) {
    return std::tuple{sf::conv1d(x, f, sf::padding::same), sf::conv1d(x, f, sf::padding::same, sf::strides<2>), sf::conv1d(x, f, sf::padding::same, sf::strides<3>)};
  });
  std::uniform_int_distribution<std::size_t> extent(1, 5);
  for (int round = 0; round < 8; ++round) {
    const std::size_t k = extent(rng()), w = k + extent(rng()) - 1;
    const auto x = random3({extent(rng()), w, extent(rng())});
    const auto f = random3({k, x.shape(2), extent(rng())});
    INFO("round " << round << ": width " << w << ", filter " << k);
    const auto [v1, v2, v3] = valid(x, f);
    CHECK((v1 == reference_conv1d(x, f, false, 1)));
    CHECK((v2 == reference_conv1d(x, f, false, 2)));
    CHECK((v3 == reference_conv1d(x, f, false, 3)));
    const auto [s1, s2, s3] = same(x, f);
    CHECK((s1 == reference_conv1d(x, f, true, 1)));
    CHECK((s2 == reference_conv1d(x, f, true, 2)));
    CHECK((s3 == reference_conv1d(x, f, true, 3)));
  }
}

TEST_CASE("conv1d: static shapes stay static; size 0; its listing is a one-row Conv2D", "[graph][conv]") {
  auto f = sf::function([](auto x, auto k) { return sf::conv1d(x, k, sf::padding::same, sf::strides<2>); });
  xt::xtensor_fixed<float, xt::xshape<1, 5, 1>> x = {{{1}, {2}, {3}, {4}, {5}}};
  xt::xtensor_fixed<float, xt::xshape<3, 1, 1>> k = {{{1}}, {{10}}, {{100}}};
  const auto y = f(x, k);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(y)>, xt::xtensor_fixed<float, xt::xshape<1, 3, 1>>>);
  CHECK((y == xt::xtensor_fixed<float, xt::xshape<1, 3, 1>>{{{210}, {432}, {54}}}));
  CHECK(f.get_concrete_function(x, k).graph_string() ==
        "{ lambda ; a:float32[1,5,1] b:float32[3,1,1]. let\n"
        "    c:float32[1,1,5,1] = ExpandDims[axis=1] a\n"
        "    d:float32[1,3,1,1] = ExpandDims[axis=0] b\n"
        "    e:float32[1,1,3,1] = Conv2D[strides=1,2, padding=SAME] c d\n"
        "    f:float32[1,3,1] = Squeeze[dimensions=(1,)] e\n"
        "  in (f) }\n");
  auto g = sf::function([](auto a, auto b) { return sf::conv1d(a, b); });
  CHECK(g(xt::xtensor<double, 3>::from_shape({0, 4, 2}), random3({2, 2, 3})).shape(0) == 0);
  CHECK_THROWS_AS(g(random3({1, 4, 2}), random3({2, 3, 3})), sf::shape_error);  // in_channels 3 against 2
}

TEST_CASE("conv2d_transpose: TF's definition, and the adjoint of conv2d", "[graph][conv]") {
  auto same2 = sf::function([](auto y, auto f) { return sf::conv2d_transpose(y, f, sf::shape<2, 7, 6, 3>{}, sf::padding::same, sf::strides<2>); });
  auto valid1 = sf::function([](auto y, auto f) { return sf::conv2d_transpose(y, f, sf::shape<2, 7, 6, 3>{}); });
  auto valid21 = sf::function([](auto y, auto f) { return sf::conv2d_transpose(y, f, sf::shape<1, 8, 5, 2>{}, sf::padding::valid, sf::strides<2, 1>); });
  auto forward = sf::function([](auto z, auto f) { return sf::conv2d(z, f, sf::padding::same, sf::strides<2>); });
  for (int round = 0; round < 3; ++round) {
    const auto f = random4<double>({3, 2, 3, 4}, rng());
    const auto y = random4<double>({2, 4, 3, 4}, rng());  // SAME, stride 2: [2, 7, 6] -> [2, 4, 3]
    const auto x = same2(y, f);
    CHECK(xt::allclose(x, reference_transpose(y, f, {2, 7, 6, 3}, true, 2, 2)));
    const auto z = random4<double>({2, 7, 6, 3}, rng());
    CHECK(xt::sum(forward(z, f) * y)() == Approx(xt::sum(z * x)()).epsilon(1e-12));
    const auto yv = random4<double>({2, 5, 5, 4}, rng());  // VALID, stride 1: [7, 6] - [3, 2] + 1
    CHECK(xt::allclose(valid1(yv, f), reference_transpose(yv, f, {2, 7, 6, 3}, false, 1, 1)));
    const auto g = random4<double>({2, 3, 2, 4}, rng());
    const auto yw = random4<double>({1, 4, 3, 4}, rng());  // VALID, strides (2, 1), a 2x3 filter: [8, 5] -> [4, 3]
    CHECK(xt::allclose(valid21(yw, g), reference_transpose(yw, g, {1, 8, 5, 2}, false, 2, 1)));
  }
  CHECK(same2.get_concrete_function(sf::spec<float, 2, 4, 3, 4>{}, sf::spec<float, 3, 2, 3, 4>{}).graph_string() ==
        "{ lambda ; a:float32[2,4,3,4] b:float32[3,2,3,4]. let\n"
        "    c:float32[2,7,6,3] = BroadcastTo[shape=(2, 7, 6, 3)] 0.0:float32[]\n"
        "    d:float32[2,7,6,3] = Conv2DBackpropInput[strides=2,2, padding=SAME] c b a\n"
        "  in (d) }\n");
  // an input of run-time extents that do not come from output_shape
  CHECK_THROWS_WITH(valid1(random4<double>({2, 4, 5, 4}, rng()), random4<double>({3, 2, 3, 4}, rng())),
                    "staticflow: conv2d gradient (conv2d_transpose): the output gradient's shape (2, 4, 5, 4) is not the "
                    "convolution's output shape (2, 5, 5, 4)");
}

TEST_CASE("conv2d_transpose to sf::shape_of(skip): TF's output_shape=tf.shape(skip), run-time extents", "[graph][conv]") {
  // a U-Net step: down by a stride-2 SAME conv2d, back up to the skip connection's size
  auto unet = sf::function([](auto skip, auto f) {
    const auto down = sf::conv2d(skip, f, sf::padding::same, sf::strides<2>);
    return sf::conv2d_transpose(down, f, sf::shape_of(skip), sf::padding::same, sf::strides<2>) + skip;
  });
  auto up = sf::function([](auto y, auto f, auto like) { return sf::conv2d_transpose(y, f, sf::shape_of(like), sf::padding::same, sf::strides<2>); });
  for (const std::array<std::size_t, 4> shape : {std::array<std::size_t, 4>{1, 7, 6, 3}, std::array<std::size_t, 4>{2, 8, 5, 3},
                                                 std::array<std::size_t, 4>{3, 1, 1, 3}}) {
    const auto skip = random4<double>(shape, rng());
    const auto f = random4<double>({3, 2, 3, 4}, rng());
    const xt::xtensor<double, 4> down = sf::function([](auto a, auto b) { return sf::conv2d(a, b, sf::padding::same, sf::strides<2>); })(skip, f);
    const auto want = reference_transpose(down, f, shape, true, 2, 2);
    CHECK(xt::allclose(unet(skip, f), want + skip));
    CHECK(xt::allclose(up(down, f, skip), want));
  }
  CHECK(unet.tracing_count() == 1);  // one run-time-shape signature
  // the static extents of the tensor are the output's static extents
  const xt::xtensor_fixed<float, xt::xshape<1, 4, 4, 2>> like = xt::zeros<float>({1, 4, 4, 2});
  const xt::xtensor_fixed<float, xt::xshape<1, 2, 2, 3>> y = xt::ones<float>({1, 2, 2, 3});
  const xt::xtensor_fixed<float, xt::xshape<2, 2, 2, 3>> w = xt::ones<float>({2, 2, 2, 3});
  const auto r = up(y, w, like);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(r)>, xt::xtensor_fixed<float, xt::xshape<1, 4, 4, 2>>>);
  CHECK((r == xt::ones<float>({1, 4, 4, 2}) * 3.f));  // each output pixel gets one tap of 3 channels
  // channels-first: the tensor's NCHW shape
  auto nchw = sf::function([](auto a, auto b, auto like_nchw) {
    return sf::conv2d_transpose(a, b, sf::shape_of(like_nchw), sf::data_format::nchw, sf::padding::same, sf::strides<2>);
  });
  const auto skip = random4<double>({2, 7, 6, 3}, rng());
  const auto f = random4<double>({3, 2, 3, 4}, rng());
  const auto down = random4<double>({2, 4, 3, 4}, rng());
  const xt::xtensor<double, 4> down_nchw = xt::transpose(down, {0, 3, 1, 2}), skip_nchw = xt::transpose(skip, {0, 3, 1, 2});
  const xt::xtensor<double, 4> t = nchw(down_nchw, f, skip_nchw);
  CHECK(xt::allclose(xt::transpose(t, {0, 2, 3, 1}), up(down, f, skip)));
  // a tensor of the wrong size: the convolution's check when the function runs
  CHECK_THROWS_WITH(up(down, f, random4<double>({2, 9, 6, 3}, rng())),
                    "staticflow: conv2d gradient (conv2d_transpose): the output gradient's shape (2, 4, 3, 4) is not the "
                    "convolution's output shape (2, 5, 3, 4)");
  sf::run_functions_eagerly(true);
  CHECK(xt::allclose(up(down, f, skip), reference_transpose(down, f, {2, 7, 6, 3}, true, 2, 2)));
  sf::run_functions_eagerly(false);
}

TEST_CASE("conv1d and conv2d_transpose in eager mode give the traced values", "[graph][conv]") {
  auto f = sf::function([](auto x, auto k, auto y, auto w) {
    return std::tuple{sf::conv1d(x, k, sf::padding::same), sf::conv2d_transpose(y, w, sf::shape<1, 4, 4, 2>{}, sf::padding::same, sf::strides<2>)};
  });
  const auto x = random3({2, 6, 3}), k = random3({3, 3, 2});
  const auto y = random4<double>({1, 2, 2, 3}, rng()), w = random4<double>({2, 2, 2, 3}, rng());
  const auto [c, t] = f(x, k, y, w);
  sf::run_functions_eagerly(true);
  const auto [eager_c, eager_t] = f(x, k, y, w);
  sf::run_functions_eagerly(false);
  CHECK((eager_c == c));
  CHECK(xt::allclose(eager_t, t));
  CHECK((c == reference_conv1d(x, k, true, 1)));
}
