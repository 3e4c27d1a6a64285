// sf::conv3d (graph/conv3d.hpp) against tf.nn.conv3d's definition written out here: random
// run-time shapes with every option (SAME / VALID / explicit padding, strides, dilations, groups,
// NCDHW), static shapes in the type, size-0 extents, 1 and 2 threads, eager mode, the listing
// and the run-time errors; and conv2d's batch axes ([batch..., H, W, C], as TF's conv2d), which
// conv3d's kernels lean on.
#include <catch2/catch.hpp>

#include <random>
#include <string>

#include <xtensor/xfixed.hpp>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

#include "window_reference.hpp"

namespace sf = staticflow;

namespace {

using volume = xt::xtensor<double, 5>;

volume random5(std::array<std::size_t, 5> ext, std::mt19937& rng) {
  auto t = volume::from_shape(ext);
  std::uniform_real_distribution<double> u(-1, 1);
  for (auto& v : t) v = u(rng);
  return t;
}

/// A conv3d's options as the reference takes them, per axis (depth, rows, columns).
struct options {
  bool same = false;
  std::array<std::size_t, 3> stride{1, 1, 1}, dilation{1, 1, 1}, before{0, 0, 0}, after{0, 0, 0};
};

window_reference::axis axis(bool same, std::size_t in, std::size_t k, std::size_t s, std::size_t d, std::size_t before,
                            std::size_t after) {
  const std::size_t span = (k - 1) * d + 1;
  if (!same) return {(in + before + after - span) / s + 1, before};
  const std::size_t out = (in + s - 1) / s;
  const std::ptrdiff_t pad = out ? std::ptrdiff_t((out - 1) * s + span) - std::ptrdiff_t(in) : 0;
  return {out, std::size_t(std::max<std::ptrdiff_t>(pad, 0)) / 2};
}

/// tf.nn.conv3d with groups = C / f.shape(3), NDHWC x DHWIO, as the definition.
volume reference_conv3d(const volume& x, const volume& f, const options& o) {
  const std::size_t n = x.shape(0), c = x.shape(4), cg = f.shape(3), outs = f.shape(4);
  const std::size_t groups = c / cg, og = outs / groups;
  std::array<window_reference::axis, 3> ax;
  for (std::size_t a = 0; a < 3; ++a)
    ax[a] = axis(o.same, x.shape(a + 1), f.shape(a), o.stride[a], o.dilation[a], o.before[a], o.after[a]);
  volume y = xt::zeros<double>({n, ax[0].out, ax[1].out, ax[2].out, outs});
  for (std::size_t b = 0; b < n; ++b)
    for (std::size_t i = 0; i < ax[0].out; ++i)
      for (std::size_t j = 0; j < ax[1].out; ++j)
        for (std::size_t l = 0; l < ax[2].out; ++l)
          for (std::size_t q = 0; q < outs; ++q) {
            double acc = 0;
            for (std::size_t t = 0; t < f.shape(0); ++t)
              for (std::size_t u = 0; u < f.shape(1); ++u)
                for (std::size_t v = 0; v < f.shape(2); ++v) {
                  const std::array<std::size_t, 3> out{i, j, l}, tap{t, u, v};
                  std::array<std::size_t, 3> in{};
                  bool inside = true;
                  for (std::size_t a = 0; a < 3; ++a) {
                    const std::ptrdiff_t at = std::ptrdiff_t(out[a] * o.stride[a] + tap[a] * o.dilation[a]) -
                                              std::ptrdiff_t(ax[a].pad_before);
                    inside = inside && at >= 0 && at < std::ptrdiff_t(x.shape(a + 1));
                    in[a] = std::size_t(at);
                  }
                  if (!inside) continue;
                  for (std::size_t p = 0; p < cg; ++p) acc += x(b, in[0], in[1], in[2], q / og * cg + p) * f(t, u, v, p, q);
                }
            y(b, i, j, l, q) = acc;
          }
  return y;
}

volume to_ncdhw(const volume& t) { return xt::transpose(t, {0, 4, 1, 2, 3}); }

bool close(const volume& a, const volume& b) { return a.shape() == b.shape() && xt::allclose(a, b, 1e-9, 1e-12); }

}  // namespace

TEST_CASE("conv3d: every option on random run-time shapes", "[graph][conv3d]") {
  std::mt19937 rng(20261129);
  auto valid = sf::function([](auto x, auto f) { return sf::conv3d(x, f); });
  auto same = sf::function([](auto x, auto f) { return sf::conv3d(x, f, sf::padding::same, sf::strides<2, 1, 2>); });
  auto dilated = sf::function([](auto x, auto f) { return sf::conv3d(x, f, sf::dilations<2, 1, 2>, sf::padding::same); });
  auto padded = sf::function([](auto x, auto f) {
    return sf::conv3d(x, f, sf::padding::explicit_<1, 2, 0, 1, 2, 0>, sf::strides<2>, sf::dilations<1, 2, 1>);
  });
  auto ncdhw = sf::function([](auto x, auto f) { return sf::conv3d(x, f, sf::data_format::ncdhw, sf::strides<1, 2, 1>); });
  std::uniform_int_distribution<std::size_t> d(0, 4), k(1, 3), ch(1, 3);
  for (int round = 0; round < 8; ++round) {
    const std::size_t kd = k(rng), kh = k(rng), kw = k(rng), groups = round % 3 == 2 ? 2 : 1, cg = ch(rng), og = ch(rng);
    const std::size_t n = 1 + round % 2, depth = 2 * kd + d(rng), h = 2 * kh + d(rng), w = 2 * kw + d(rng);
    INFO("x " << n << "x" << depth << "x" << h << "x" << w << "x" << groups * cg << ", f " << kd << "x" << kh << "x" << kw
              << "x" << cg << "x" << groups * og);
    const auto x = random5({n, depth, h, w, groups * cg}, rng);
    const auto f = random5({kd, kh, kw, cg, groups * og}, rng);
    CHECK(close(valid(x, f), reference_conv3d(x, f, {})));
    CHECK(close(same(x, f), reference_conv3d(x, f, {true, {2, 1, 2}})));
    CHECK(close(dilated(x, f), reference_conv3d(x, f, {true, {1, 1, 1}, {2, 1, 2}})));
    CHECK(close(padded(x, f), reference_conv3d(x, f, {false, {2, 2, 2}, {1, 2, 1}, {1, 0, 2}, {2, 1, 0}})));
    CHECK(close(ncdhw(to_ncdhw(x), f), to_ncdhw(reference_conv3d(x, f, {false, {1, 2, 1}}))));
  }
}

TEST_CASE("conv3d: static shapes stay in the type", "[graph][conv3d]") {
  std::mt19937 rng(5);
  xt::xtensor_fixed<double, xt::xshape<1, 6, 7, 5, 4>> x;
  xt::xtensor_fixed<double, xt::xshape<3, 2, 3, 2, 6>> f;  // 2 groups of 2 channels, 3 filters each
  std::uniform_real_distribution<double> u(-1, 1);
  for (auto& v : x) v = u(rng);
  for (auto& v : f) v = u(rng);
  const volume xd = x, fd = f;
  auto same = sf::function([](auto a, auto b) { return sf::conv3d(a, b, sf::padding::same, sf::strides<2>); });
  const auto y = same(x, f);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(y)>, xt::xtensor_fixed<double, xt::xshape<1, 3, 4, 3, 6>>>);
  CHECK(close(y, reference_conv3d(xd, fd, {true, {2, 2, 2}})));
  auto valid = sf::function([](auto a, auto b) { return sf::conv3d(a, b, sf::dilations<2, 1, 1>); });
  const auto z = valid(x, f);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(z)>, xt::xtensor_fixed<double, xt::xshape<1, 2, 6, 3, 6>>>);
  CHECK(close(z, reference_conv3d(xd, fd, {false, {1, 1, 1}, {2, 1, 1}})));
}

TEST_CASE("conv3d: size-0 extents are ordinary input", "[graph][conv3d]") {
  auto same = sf::function([](auto x, auto f) { return sf::conv3d(x, f, sf::padding::same); });
  auto valid = sf::function([](auto x, auto f) { return sf::conv3d(x, f); });
  const volume f = xt::ones<double>({2, 2, 2, 3, 4});
  CHECK(same(volume(xt::zeros<double>({0, 3, 3, 3, 3})), f).shape() == std::array<std::size_t, 5>{0, 3, 3, 3, 4});
  CHECK(same(volume(xt::zeros<double>({1, 0, 3, 3, 3})), f).shape() == std::array<std::size_t, 5>{1, 0, 3, 3, 4});
  const volume none = valid(volume(xt::ones<double>({1, 3, 3, 3, 3})), volume(xt::zeros<double>({2, 2, 2, 3, 0})));
  CHECK(none.shape() == std::array<std::size_t, 5>{1, 2, 2, 2, 0});
  const volume no_channels = valid(volume(xt::ones<double>({1, 3, 3, 3, 0})), volume(xt::zeros<double>({2, 2, 2, 0, 2})));
  CHECK(no_channels == volume(xt::zeros<double>({1, 2, 2, 2, 2})));
}

TEST_CASE("conv3d: 1 and 2 threads give the same bits; eager mode the traced values", "[graph][conv3d]") {
  std::mt19937 rng(3);
  const auto x = random5({2, 9, 12, 10, 4}, rng);
  const auto f = random5({3, 3, 3, 2, 6}, rng);  // 2 groups
  auto conv = sf::function([](auto a, auto b) { return sf::conv3d(a, b, sf::padding::same, sf::dilations<2, 1, 1>); });
  const volume one_thread = conv(x, f);
  CHECK(close(one_thread, reference_conv3d(x, f, {true, {1, 1, 1}, {2, 1, 1}})));
  sf::set_num_threads(2);
  const volume two_threads = conv(x, f);
  sf::set_num_threads(1);
  CHECK(two_threads == one_thread);
  sf::run_functions_eagerly(true);
  const volume eager = conv(x, f);
  sf::run_functions_eagerly(false);
  CHECK(eager == one_thread);
}

TEST_CASE("conv3d: the listing names TF's op and attributes", "[graph][conv3d]") {
  auto conv = sf::function([](auto a, auto b) {
    return sf::conv3d(a, b, sf::padding::explicit_<1, 0, 2, 2, 0, 1>, sf::strides<1, 2, 2>, sf::dilations<2, 1, 1>);
  });
  const volume x = xt::zeros<double>({1, 4, 6, 6, 2}), f = xt::zeros<double>({2, 3, 3, 2, 3});
  CHECK(conv.get_concrete_function(x, f).graph_string().find(
            "Conv3D[strides=1,2,2, padding=EXPLICIT(1,0,2,2,0,1), dilations=2,1,1]") != std::string::npos);
}

TEST_CASE("conv3d: run-time misuse throws sf::shape_error before any effect", "[graph][conv3d]") {
  sf::variable<int> calls(0);
  auto valid = sf::function([&](auto x, auto f) {
    calls.assign_add(1);
    return sf::conv3d(x, f);
  });
  const volume x = xt::zeros<double>({1, 2, 5, 5, 4});
  CHECK_THROWS_WITH(valid(x, volume(xt::zeros<double>({3, 3, 3, 4, 2}))),
                    "staticflow: conv3d: image (1, 2, 5, 5, 4) and filter (3, 3, 3, 4, 2): with VALID padding the filter must fit in the image");
  CHECK_THROWS_WITH(valid(x, volume(xt::zeros<double>({1, 3, 3, 3, 2}))),
                    "staticflow: conv3d: image (1, 2, 5, 5, 4) and filter (1, 3, 3, 3, 2): the filter's in_channels (3) differ from the image's channels (4) and do not divide them into groups");
  CHECK_THROWS_WITH(valid(x, volume(xt::zeros<double>({1, 3, 3, 2, 3}))),
                    "staticflow: conv3d: image (1, 2, 5, 5, 4) and filter (1, 3, 3, 2, 3): the filter's out_channels (3) are not a multiple of the groups (2 = the image's channels / the filter's in_channels)");
  auto dilated = sf::function([&](auto a, auto b) {
    calls.assign_add(1);
    return sf::conv3d(a, b, sf::dilations<2>, sf::padding::explicit_<0, 0, 1, 0, 0, 0>);
  });
  CHECK_THROWS_WITH(dilated(x, volume(xt::zeros<double>({2, 2, 2, 4, 2}))),
                    "staticflow: conv3d: image (1, 2, 5, 5, 4) and filter (2, 2, 2, 4, 2): with explicit padding the dilated filter must fit in the padded image");
  CHECK(calls.value() == 0);
}

TEST_CASE("conv2d: leading axes are batch axes, as in TF ([batch..., H, W, C])", "[graph][conv]") {
  std::mt19937 rng(11);
  const auto x = random5({2, 3, 6, 5, 4}, rng);
  const auto f = window_reference::random4<double>({3, 3, 4, 2}, rng);
  auto conv = sf::function([](auto a, auto b) { return sf::conv2d(a, b, sf::padding::same, sf::strides<2, 1>); });
  const volume y = conv(x, f);
  REQUIRE(y.shape() == std::array<std::size_t, 5>{2, 3, 3, 5, 2});
  const xt::xtensor<double, 4> flat = xt::reshape_view(x, {6, 6, 5, 4});
  const xt::xtensor<double, 4> y4 = conv(flat, f);
  CHECK(xt::allclose(xt::reshape_view(y, {6, 3, 5, 2}), y4));
  auto nchw = sf::function([](auto a, auto b) { return sf::conv2d(a, b, sf::data_format::nchw); });
  const volume xc = xt::transpose(x, {0, 1, 4, 2, 3});
  const volume yc = nchw(xc, f);
  const volume yn = xt::transpose(yc, {0, 1, 3, 4, 2});
  auto nhwc = sf::function([](auto a, auto b) { return sf::conv2d(a, b); });
  const volume expected = nhwc(x, f);
  REQUIRE(expected.shape() == std::array<std::size_t, 5>{2, 3, 4, 3, 2});
  CHECK(xt::allclose(yn, expected));
}
