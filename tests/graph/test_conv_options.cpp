// The options of the convolutions (graph/conv_options.hpp): dilations, explicit padding, groups
// (a filter with fewer in_channels than the image) and data_format NCHW / NCW, for conv2d, conv1d,
// depthwise_conv2d and conv2d_transpose, against a definition written out here with TF's
// geometry: random run-time shapes, static shapes in the type, 1 and 2 threads, eager mode, the
// listings, and the run-time errors.
#include <catch2/catch.hpp>

#include <random>
#include <string>

#include <xtensor/xfixed.hpp>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

#include "window_reference.hpp"

namespace sf = staticflow;
using window_reference::random4;
using window_reference::reference_conv;

namespace {

xt::xtensor<double, 4> to_nchw(const xt::xtensor<double, 4>& t) { return xt::transpose(t, {0, 3, 1, 2}); }

bool close(const xt::xtensor<double, 4>& a, const xt::xtensor<double, 4>& b) {
  return a.shape() == b.shape() && xt::allclose(a, b, 1e-9, 1e-12);
}

}  // namespace

TEST_CASE("conv2d options: dilations, explicit padding and groups on random run-time shapes", "[graph][conv]") {
  std::mt19937 rng(20261129);
  auto dilated = sf::function([](auto x, auto f) { return sf::conv2d(x, f, sf::dilations<2>); });
  auto dilated_same = sf::function([](auto x, auto f) { return sf::conv2d(x, f, sf::strides<2>, sf::dilations<2, 3>, sf::padding::same); });
  auto padded = sf::function(
      [](auto x, auto f) { return sf::conv2d(x, f, sf::padding::explicit_<1, 2, 0, 3>, sf::strides<2, 1>, sf::dilations<1, 2>); });
  auto grouped = sf::function([](auto x, auto f) { return sf::conv2d(x, f, sf::padding::same); });
  std::uniform_int_distribution<std::size_t> d(0, 5), k(1, 3), ch(1, 3);
  for (int round = 0; round < 10; ++round) {
    const std::size_t kh = k(rng), kw = k(rng), groups = ch(rng), cg = ch(rng), og = ch(rng), n = 1 + round % 2;
    const std::size_t h = 3 * kh + d(rng), w = 3 * kw + d(rng), c = groups * cg, o = groups * og;
    INFO("x " << n << "x" << h << "x" << w << "x" << c << ", f " << kh << "x" << kw << "x" << cg << "x" << o);
    const auto x = random4<double>({n, h, w, c}, rng);
    const auto f = random4<double>({kh, kw, cg, o}, rng);
    CHECK(close(dilated(x, f), reference_conv(x, f, {false, 1, 1, 2, 2})));
    CHECK(close(dilated_same(x, f), reference_conv(x, f, {true, 2, 2, 2, 3})));
    CHECK(close(padded(x, f), reference_conv(x, f, {false, 2, 1, 1, 2, 1, 2, 0, 3})));
    CHECK(close(grouped(x, f), reference_conv(x, f, {true})));
  }
}

TEST_CASE("conv2d options: static shapes stay in the type", "[graph][conv]") {
  std::mt19937 rng(5);
  xt::xtensor_fixed<double, xt::xshape<1, 9, 10, 4>> x;
  xt::xtensor_fixed<double, xt::xshape<3, 3, 2, 6>> f;  // 2 groups of 2 channels, 3 filters each
  std::uniform_real_distribution<double> u(-1, 1);
  for (auto& v : x) v = u(rng);
  for (auto& v : f) v = u(rng);
  const xt::xtensor<double, 4> xd = x, fd = f;
  auto dilated = sf::function([](auto a, auto b) { return sf::conv2d(a, b, sf::dilations<2>); });
  const auto y = dilated(x, f);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(y)>, xt::xtensor_fixed<double, xt::xshape<1, 5, 6, 6>>>);
  CHECK(close(y, reference_conv(xd, fd, {false, 1, 1, 2, 2})));
  auto padded = sf::function([](auto a, auto b) { return sf::conv2d(a, b, sf::padding::explicit_<2, 0, 1, 1>, sf::strides<2>); });
  const auto z = padded(x, f);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(z)>, xt::xtensor_fixed<double, xt::xshape<1, 5, 5, 6>>>);
  CHECK(close(z, reference_conv(xd, fd, {false, 2, 2, 1, 1, 2, 0, 1, 1})));
  auto nchw = sf::function([](auto a, auto b) { return sf::conv2d(a, b, sf::data_format::nchw, sf::padding::same); });
  xt::xtensor_fixed<double, xt::xshape<1, 4, 9, 10>> xc = to_nchw(xd);
  const auto yc = nchw(xc, f);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(yc)>, xt::xtensor_fixed<double, xt::xshape<1, 6, 9, 10>>>);
  CHECK(close(yc, to_nchw(reference_conv(xd, fd, {true}))));
}

TEST_CASE("conv2d options: data_format nchw is NHWC transposed on both sides, run-time shapes", "[graph][conv]") {
  std::mt19937 rng(8);
  auto nchw = sf::function([](auto x, auto f) {
    return sf::conv2d(x, f, sf::data_format::nchw, sf::strides<2>, sf::padding::explicit_<1, 1, 1, 1>);
  });
  const auto x = random4<double>({2, 7, 6, 4}, rng);
  const auto f = random4<double>({3, 3, 4, 5}, rng);
  CHECK(close(nchw(to_nchw(x), f), to_nchw(reference_conv(x, f, {false, 2, 2, 1, 1, 1, 1, 1, 1}))));
  auto nhwc = sf::function([](auto a, auto b) { return sf::conv2d(a, b, sf::data_format::nhwc); });
  CHECK(close(nhwc(x, f), reference_conv(x, f, {})));
}

TEST_CASE("conv2d options: a grouped convolution over several blocks gives the same bits on 1 and 2 threads", "[graph][conv]") {
  std::mt19937 rng(3);
  const auto x = random4<double>({1, 40, 36, 8}, rng);
  const auto f = random4<double>({3, 3, 2, 12}, rng);  // 4 groups
  auto conv = sf::function([](auto a, auto b) { return sf::conv2d(a, b, sf::padding::same, sf::dilations<2>); });
  const xt::xtensor<double, 4> one_thread = conv(x, f);
  CHECK(close(one_thread, reference_conv(x, f, {true, 1, 1, 2, 2})));
  sf::set_num_threads(2);
  const xt::xtensor<double, 4> two_threads = conv(x, f);
  sf::set_num_threads(1);
  CHECK(two_threads == one_thread);
}

TEST_CASE("conv2d options: groups of 16 outputs or more take the per-group GEMM, fewer the direct kernel", "[graph][conv]") {
  std::mt19937 rng(4);
  auto conv = sf::function([](auto a, auto b) { return sf::conv2d(a, b, sf::padding::explicit_<1, 0, 2, 1>, sf::dilations<1, 2>); });
  const auto x = random4<double>({2, 7, 6, 6}, rng);
  for (const std::size_t outputs : {3, 15, 16, 33}) {  // per group, 3 groups of 2 channels
    INFO(outputs << " outputs per group");
    const auto f = random4<double>({2, 3, 2, 3 * outputs}, rng);
    CHECK(close(conv(x, f), reference_conv(x, f, {false, 1, 1, 1, 2, 1, 0, 2, 1})));
  }
}

TEST_CASE("conv1d options: dilations, explicit padding, groups and data_format ncw", "[graph][conv]") {
  std::mt19937 rng(12);
  auto dilated = sf::function([](auto x, auto f) { return sf::conv1d(x, f, sf::dilations<3>, sf::padding::explicit_<2, 1>); });
  auto ncw = sf::function([](auto x, auto f) { return sf::conv1d(x, f, sf::data_format::ncw, sf::strides<2>, sf::padding::same); });
  const auto x4 = random4<double>({2, 1, 11, 6}, rng);
  const auto f4 = random4<double>({1, 3, 3, 4}, rng);  // 2 groups
  const xt::xtensor<double, 3> x = xt::view(x4, xt::all(), 0, xt::all(), xt::all());
  const xt::xtensor<double, 3> f = xt::view(f4, 0, xt::all(), xt::all(), xt::all());
  const xt::xtensor<double, 4> y1 = xt::expand_dims(xt::xtensor<double, 3>(dilated(x, f)), 1);
  CHECK(close(y1, reference_conv(x4, f4, {false, 1, 1, 1, 3, 0, 0, 2, 1})));
  const xt::xtensor<double, 3> x_ncw = xt::transpose(x, {0, 2, 1});
  const xt::xtensor<double, 3> y2 = ncw(x_ncw, f);
  const xt::xtensor<double, 4> expected = reference_conv(x4, f4, {true, 1, 2});
  const xt::xtensor<double, 3> expected_ncw = xt::transpose(xt::xtensor<double, 3>(xt::view(expected, xt::all(), 0, xt::all(), xt::all())), {0, 2, 1});
  CHECK(y2.shape() == expected_ncw.shape());
  CHECK(xt::allclose(y2, expected_ncw));
}

TEST_CASE("depthwise_conv2d options: dilations, explicit padding and nchw are a grouped conv2d", "[graph][conv]") {
  std::mt19937 rng(21);
  auto dilated = sf::function([](auto x, auto f) { return sf::depthwise_conv2d(x, f, sf::dilations<2, 1>, sf::padding::same); });
  auto padded = sf::function([](auto x, auto f) {
    return sf::depthwise_conv2d(x, f, sf::strides<2>, sf::padding::explicit_<0, 2, 1, 0>, sf::data_format::nchw);
  });
  for (const std::size_t m : {1, 2}) {
    const auto x = random4<double>({2, 8, 7, 3}, rng);
    const auto f = random4<double>({3, 2, 3, m}, rng);
    // depthwise = conv2d with one group per channel: the filter [KH, KW, C, M] read as [KH, KW, 1, C*M]
    xt::xtensor<double, 4> as_groups = f;
    as_groups.reshape({3, 2, 1, 3 * m});
    CHECK(close(dilated(x, f), reference_conv(x, as_groups, {true, 1, 1, 2, 1})));
    CHECK(close(padded(to_nchw(x), f), to_nchw(reference_conv(x, as_groups, {false, 2, 2, 1, 1, 0, 2, 1, 0}))));
  }
}

TEST_CASE("conv2d_transpose options: the adjoint of the dilated, padded, channels-first conv2d", "[graph][conv]") {
  std::mt19937 rng(31);
  const auto x = random4<double>({1, 3, 9, 8}, rng);  // NCHW [1, 3, 9, 8]
  const auto f = random4<double>({3, 2, 3, 4}, rng);
  auto conv = sf::function([](auto a, auto b) {
    return sf::conv2d(a, b, sf::data_format::nchw, sf::dilations<2>, sf::padding::explicit_<1, 0, 2, 1>, sf::strides<2>);
  });
  auto transpose = sf::function([](auto a, auto b) {
    return sf::conv2d_transpose(a, b, sf::shape<1, 3, 9, 8>{}, sf::data_format::nchw, sf::dilations<2>,
                                sf::padding::explicit_<1, 0, 2, 1>, sf::strides<2>);
  });
  const xt::xtensor<double, 4> y = conv(x, f);
  const auto g = random4<double>({y.shape(0), y.shape(1), y.shape(2), y.shape(3)}, rng);
  const xt::xtensor<double, 4> back = transpose(g, f);
  REQUIRE(back.shape() == x.shape());
  // <conv2d(x, f), g> = <x, conv2d_transpose(g, f)>: the transpose is conv2d's adjoint in x
  CHECK(double(xt::sum(y * g)()) == Approx(double(xt::sum(x * back)())).epsilon(1e-12));
}

TEST_CASE("conv2d options: eager mode gives the traced values", "[graph][conv]") {
  std::mt19937 rng(41);
  const auto x = random4<double>({1, 7, 7, 6}, rng);
  const auto f = random4<double>({2, 3, 3, 4}, rng);
  auto conv = sf::function([](auto a, auto b) { return sf::conv2d(a, b, sf::dilations<2>, sf::padding::explicit_<1, 1, 0, 2>); });
  const xt::xtensor<double, 4> traced = conv(x, f);
  sf::run_functions_eagerly(true);
  const xt::xtensor<double, 4> eager = conv(x, f);
  sf::run_functions_eagerly(false);
  CHECK(eager == traced);
}

TEST_CASE("conv2d options: listings name them as TF; run-time errors before any effect", "[graph][conv]") {
  auto padded = sf::function([](auto a, auto b) { return sf::conv2d(a, b, sf::padding::explicit_<1, 2, 0, 3>, sf::dilations<1, 2>); });
  xt::xtensor_fixed<float, xt::xshape<1, 6, 6, 4>> x{};
  xt::xtensor_fixed<float, xt::xshape<3, 3, 2, 4>> f{};
  CHECK(padded.get_concrete_function(x, f).graph_string().find("Conv2D[strides=1,1, padding=EXPLICIT(1,2,0,3), dilations=1,2]") !=
        std::string::npos);

  sf::variable<int> calls(0);
  auto grouped = sf::function([&](auto a, auto b) {
    calls.assign_add(1);
    return sf::conv2d(a, b, sf::dilations<3>);
  });
  const xt::xtensor<double, 4> image = xt::ones<double>({1, 5, 5, 6});
  CHECK_THROWS_WITH(grouped(image, xt::xtensor<double, 4>(xt::ones<double>({2, 2, 4, 3}))),
                    "staticflow: conv2d: image (1, 5, 5, 6) and filter (2, 2, 4, 3): the filter's in_channels (4) differ from the image's channels (6) and do not divide them into groups");
  CHECK_THROWS_WITH(grouped(image, xt::xtensor<double, 4>(xt::ones<double>({2, 2, 2, 4}))),
                    "staticflow: conv2d: image (1, 5, 5, 6) and filter (2, 2, 2, 4): the filter's out_channels (4) are not a multiple of the groups (3 = the image's channels / the filter's in_channels)");
  CHECK_THROWS_WITH(grouped(image, xt::xtensor<double, 4>(xt::ones<double>({3, 2, 3, 4}))),
                    "staticflow: conv2d: image (1, 5, 5, 6) and filter (3, 2, 3, 4): with VALID padding the dilated filter must fit in the image");
  auto padded_valid = sf::function([](auto a, auto b) { return sf::conv2d(a, b, sf::padding::explicit_<1, 0, 0, 0>); });
  CHECK_THROWS_WITH(padded_valid(image, xt::xtensor<double, 4>(xt::ones<double>({7, 1, 6, 1}))),
                    "staticflow: conv2d: image (1, 5, 5, 6) and filter (7, 1, 6, 1): with explicit padding the filter must fit in the padded image");
  CHECK(calls.value() == 0);
  CHECK(xt::xtensor<double, 4>(grouped(image, xt::xtensor<double, 4>(xt::ones<double>({2, 2, 2, 3})))).shape() ==
        std::array<std::size_t, 4>{1, 2, 2, 3});
  CHECK(calls.value() == 1);
}

TEST_CASE("conv2d options: size-0 and size-1 extents", "[graph][conv]") {
  auto conv = sf::function([](auto a, auto b) { return sf::conv2d(a, b, sf::dilations<2>, sf::padding::same); });
  const xt::xtensor<double, 4> no_images = xt::zeros<double>({0, 5, 5, 4});
  const xt::xtensor<double, 4> f = xt::ones<double>({3, 3, 2, 4});
  CHECK(xt::xtensor<double, 4>(conv(no_images, f)).shape() == std::array<std::size_t, 4>{0, 5, 5, 4});
  const xt::xtensor<double, 4> pixel = xt::ones<double>({1, 1, 1, 4});
  const xt::xtensor<double, 4> y = conv(pixel, f);  // only the centre tap reads the one pixel
  CHECK(y.shape() == std::array<std::size_t, 4>{1, 1, 1, 4});
  CHECK(xt::all(xt::equal(y, 2.0)));
  const xt::xtensor<double, 4> no_channels = xt::zeros<double>({1, 5, 5, 0});  // against 2 in_channels: an error, not 0 groups
  CHECK_THROWS_WITH(conv(no_channels, f), "staticflow: conv2d: image (1, 5, 5, 0) and filter (3, 3, 2, 4): the filter's in_channels (2) differ from the image's channels (0) and do not divide them into groups");
}
