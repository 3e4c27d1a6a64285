// sf::conv2d (graph/conv.hpp, backend/cpu/conv.hpp): against a direct loop on random images and
// filters, VALID and SAME padding, strides 1-3, static and run-time shapes, size-0 extents, and
// the run-time shape errors.
#include <catch2/catch.hpp>

#include <random>

#include <xtensor/xtensor.hpp>
#include <xtensor/xfixed.hpp>

#include <staticflow/staticflow.hpp>

#include "window_reference.hpp"

namespace sf = staticflow;
using window_reference::random4;

namespace {

/// tf.nn.conv2d, NHWC x HWIO, written out as the definition.
template <class T>
xt::xtensor<T, 4> reference_conv(const xt::xtensor<T, 4>& x, const xt::xtensor<T, 4>& f, bool same, std::size_t sh,
                                 std::size_t sw) {
  const std::size_t n = x.shape(0), h = x.shape(1), w = x.shape(2), c = x.shape(3);
  const std::size_t kh = f.shape(0), kw = f.shape(1), o = f.shape(3);
  const auto rows = window_reference::axis_of(same, h, kh, sh), cols = window_reference::axis_of(same, w, kw, sw);
  const std::size_t oh = rows.out, ow = cols.out, pt = rows.pad_before, pl = cols.pad_before;
  xt::xtensor<T, 4> y = xt::zeros<T>({n, oh, ow, o});
  for (std::size_t b = 0; b < n; ++b)
    for (std::size_t i = 0; i < oh; ++i)
      for (std::size_t j = 0; j < ow; ++j)
        for (std::size_t q = 0; q < o; ++q) {
          T acc = 0;
          for (std::size_t u = 0; u < kh; ++u)
            for (std::size_t v = 0; v < kw; ++v) {
              const std::ptrdiff_t ih = std::ptrdiff_t(i * sh + u) - std::ptrdiff_t(pt);
              const std::ptrdiff_t iw = std::ptrdiff_t(j * sw + v) - std::ptrdiff_t(pl);
              if (ih < 0 || iw < 0 || ih >= std::ptrdiff_t(h) || iw >= std::ptrdiff_t(w)) continue;
              for (std::size_t p = 0; p < c; ++p) acc += x(b, std::size_t(ih), std::size_t(iw), p) * f(u, v, p, q);
            }
          y(b, i, j, q) = acc;
        }
  return y;
}

}  // namespace

TEST_CASE("conv2d: run-time shapes, VALID and SAME, strides 1 to 3, against the definition") {
  std::mt19937 rng(20261126);
  auto valid = sf::function([](auto x, auto f) { return sf::conv2d(x, f); });
  auto same = sf::function([](auto x, auto f) { return sf::conv2d(x, f, sf::padding::same); });
  auto valid2 = sf::function([](auto x, auto f) { return sf::conv2d(x, f, sf::padding::valid, sf::strides<2>); });
  auto same3x2 = sf::function([](auto x, auto f) { return sf::conv2d(x, f, sf::padding::same, sf::strides<3, 2>); });
  std::uniform_int_distribution<std::size_t> d(1, 7), k(1, 4), ch(1, 5);
  for (int round = 0; round < 12; ++round) {
    const std::size_t kh = k(rng), kw = k(rng), c = ch(rng), o = ch(rng);
    const std::size_t h = kh + d(rng) - 1, w = kw + d(rng) - 1, n = 1 + round % 2;
    INFO("x " << n << "x" << h << "x" << w << "x" << c << ", f " << kh << "x" << kw << "x" << c << "x" << o);
    const auto x = random4<double>({n, h, w, c}, rng);
    const auto f = random4<double>({kh, kw, c, o}, rng);
    CHECK(xt::allclose(xt::xtensor<double, 4>(valid(x, f)), reference_conv(x, f, false, 1, 1)));
    CHECK(xt::allclose(xt::xtensor<double, 4>(same(x, f)), reference_conv(x, f, true, 1, 1)));
    CHECK(xt::allclose(xt::xtensor<double, 4>(valid2(x, f)), reference_conv(x, f, false, 2, 2)));
    CHECK(xt::allclose(xt::xtensor<double, 4>(same3x2(x, f)), reference_conv(x, f, true, 3, 2)));
  }
}

TEST_CASE("conv2d: static shapes keep their shape in the type; float32; a 1x1 filter is a matmul") {
  std::mt19937 rng(7);
  xt::xtensor_fixed<float, xt::xshape<2, 9, 8, 3>> x;
  xt::xtensor_fixed<float, xt::xshape<3, 3, 3, 4>> f;
  xt::xtensor_fixed<float, xt::xshape<1, 1, 3, 5>> f1;
  std::uniform_real_distribution<float> u(-1, 1);
  for (auto& v : x) v = u(rng);
  for (auto& v : f) v = u(rng);
  for (auto& v : f1) v = u(rng);
  auto conv = sf::function([](auto a, auto b) { return sf::conv2d(a, b, sf::padding::same, sf::strides<2>); });
  const auto y = conv(x, f);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(y)>, xt::xtensor_fixed<float, xt::xshape<2, 5, 4, 4>>>);
  const xt::xtensor<float, 4> xd = x, fd = f, f1d = f1;
  CHECK(xt::allclose(xt::xtensor<float, 4>(y), reference_conv(xd, fd, true, 2, 2), 1e-5, 1e-5));
  auto pointwise = sf::function([](auto a, auto b) { return sf::conv2d(a, b); });
  CHECK(xt::allclose(xt::xtensor<float, 4>(pointwise(x, f1)), reference_conv(xd, f1d, false, 1, 1), 1e-5, 1e-5));
}

TEST_CASE("conv2d: a big image goes through several patch blocks and threads") {
  std::mt19937 rng(3);
  const auto x = random4<float>({1, 70, 66, 16}, rng);
  const auto f = random4<float>({3, 3, 16, 24}, rng);
  auto conv = sf::function([](auto a, auto b) { return sf::conv2d(a, b, sf::padding::same); });
  const xt::xtensor<float, 4> one_thread = conv(x, f);
  CHECK(xt::allclose(one_thread, reference_conv(x, f, true, 1, 1), 1e-4, 1e-4));
  sf::set_num_threads(2);
  const xt::xtensor<float, 4> two_threads = conv(x, f);
  sf::set_num_threads(1);
  CHECK(two_threads == one_thread);  // bit for bit: the blocks do not depend on the thread count
}

TEST_CASE("conv2d: size-0 extents are ordinary input") {
  auto conv = sf::function([](auto a, auto b) { return sf::conv2d(a, b, sf::padding::same); });
  const xt::xtensor<double, 4> no_images = xt::zeros<double>({0, 4, 4, 2});
  const xt::xtensor<double, 4> f = xt::ones<double>({3, 3, 2, 5});
  CHECK(xt::xtensor<double, 4>(conv(no_images, f)).shape() == std::array<std::size_t, 4>{0, 4, 4, 5});
  const xt::xtensor<double, 4> no_channels = xt::zeros<double>({1, 4, 4, 0});
  const xt::xtensor<double, 4> f0 = xt::ones<double>({3, 3, 0, 5});
  const xt::xtensor<double, 4> y = conv(no_channels, f0);
  CHECK(y.shape() == std::array<std::size_t, 4>{1, 4, 4, 5});
  CHECK(xt::all(xt::equal(y, 0.0)));
  const xt::xtensor<double, 4> no_filters = xt::ones<double>({3, 3, 2, 0});
  const xt::xtensor<double, 4> x = xt::ones<double>({1, 4, 4, 2});
  CHECK(xt::xtensor<double, 4>(conv(x, no_filters)).shape() == std::array<std::size_t, 4>{1, 4, 4, 0});
}

TEST_CASE("conv2d: run-time shape errors name both shapes") {
  auto valid = sf::function([](auto a, auto b) { return sf::conv2d(a, b); });
  const xt::xtensor<double, 4> x = xt::ones<double>({1, 4, 4, 2});
  const xt::xtensor<double, 4> wrong_channels = xt::ones<double>({3, 3, 3, 5});
  CHECK_THROWS_WITH(valid(x, wrong_channels),
                    "staticflow: conv2d: image (1, 4, 4, 2) and filter (3, 3, 3, 5): the filter's in_channels (3) differ from "
                    "the image's channels (2) and do not divide them into groups");
  const xt::xtensor<double, 4> too_tall = xt::ones<double>({5, 3, 2, 5});
  CHECK_THROWS_AS(valid(x, too_tall), sf::shape_error);
  CHECK_THROWS_WITH(valid(x, too_tall),
                    "staticflow: conv2d: image (1, 4, 4, 2) and filter (5, 3, 2, 5): with VALID padding the filter must fit in the image");
}

TEST_CASE("conv2d: its name in a listing is TF's") {
  auto conv = sf::function([](auto a, auto b) { return sf::conv2d(a, b, sf::padding::same, sf::strides<2, 1>); });
  xt::xtensor_fixed<float, xt::xshape<1, 4, 4, 2>> x{};
  xt::xtensor_fixed<float, xt::xshape<3, 3, 2, 1>> f{};
  const std::string listing = conv.get_concrete_function(x, f).graph_string();
  CHECK(listing.find("Conv2D[strides=2,1, padding=SAME]") != std::string::npos);
}

TEST_CASE("seed 002: conv_fn, a Conv2D(100, 3) layer on a 1x200x200x100 image, as a function") {
  // conv_layer = tf.keras.layers.Conv2D(100, 3); conv_fn(image) = conv_layer(image): a VALID 3x3
  // convolution to 100 channels plus a bias, traced once for the image's signature.
  std::mt19937 rng(2);
  const auto image = random4<float>({1, 200, 200, 100}, rng);
  const auto kernel = random4<float>({3, 3, 100, 100}, rng);
  xt::xtensor<float, 1> bias = xt::linspace<float>(-1, 1, 100);
  auto conv_fn = sf::function([](auto x, auto k, auto b) { return sf::conv2d(x, k) + b; });
  const xt::xtensor<float, 4> y = conv_fn(image, kernel, bias);
  CHECK(y.shape() == std::array<std::size_t, 4>{1, 198, 198, 100});
  CHECK(conv_fn.tracing_count() == 1);
  std::uniform_int_distribution<std::size_t> pos(0, 197), ch(0, 99);
  for (int sample = 0; sample < 50; ++sample) {
    const std::size_t i = pos(rng), j = pos(rng), q = ch(rng);
    double expected = bias(q);
    for (std::size_t u = 0; u < 3; ++u)
      for (std::size_t v = 0; v < 3; ++v)
        for (std::size_t p = 0; p < 100; ++p) expected += double(image(0, i + u, j + v, p)) * double(kernel(u, v, p, q));
    CHECK(y(0, i, j, q) == Approx(expected).epsilon(1e-4).margin(1e-4));
  }
}

TEST_CASE("conv2d: eager mode (sf::run_functions_eagerly) gives the traced result") {
  std::mt19937 rng(4);
  const auto x = random4<double>({2, 6, 5, 3}, rng);
  const auto f = random4<double>({3, 2, 3, 4}, rng);
  auto conv = sf::function([](auto a, auto b) { return sf::relu(sf::conv2d(a, b, sf::padding::same, sf::strides<2>)); });
  const xt::xtensor<double, 4> traced = conv(x, f);
  sf::run_functions_eagerly(true);
  const xt::xtensor<double, 4> eager = conv(x, f);
  sf::run_functions_eagerly(false);
  CHECK(xt::allclose(traced, eager));
  CHECK(xt::allclose(traced, xt::maximum(reference_conv(x, f, true, 2, 2), 0.0)));
}
