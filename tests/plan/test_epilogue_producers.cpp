// Epilogues of the window kernels (plan/epilogues.hpp; backend/cpu/depthwise_conv.hpp and
// pool.hpp): a depthwise convolution's scale, shift and activation (MobileNet's layer, a batch
// normalization folded into a scale and a shift) and the elementwise work after a max_pool /
// avg_pool done on each output row as the kernel finishes it. Tested: which graphs fold; the
// values against the same function with the producer materialized first, bit for bit where the
// function is exact, for random shapes (channel multipliers 1 and 2, strides, SAME padding, one
// element, size 0, two threads), static and run-time shapes, 1-D and 2-D pooling, an integer
// max_pool, a run-time bias over one channel; the shape error of a bias that does not fit; a
// pooling of a convolution's epilogue with an epilogue of its own; the gradient of a folded layer;
// what to_code and to_dot say of the nodes an epilogue computes and of transposes read in place
// (plan/planned_listing.hpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstddef>
#include <random>
#include <string>
#include <tuple>
#include <type_traits>

#include <xtensor/xfixed.hpp>
#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

#include "../autodiff/gradient_check.hpp"
#include "epilogue_checks.hpp"

namespace sf = staticflow;

using namespace epilogue_checks;

TEST_CASE("epilogue producers: a depthwise convolution and a pooling take the elementwise work after them", "[plan][epilogue]") {
  using X = sf::graph::argument<0, float, sf::shape<1, 6, 6, 3>>;
  using F = sf::graph::argument<1, float, sf::shape<3, 3, 3, 2>>;
  using S = sf::graph::argument<2, float, sf::shape<6>>;
  using B = sf::graph::argument<3, float, sf::shape<1, 1, 1, 6>>;
  const auto dw = sf::depthwise_conv2d(X{}, F{});
  using layer = plan_of<decltype(sf::relu6(dw * S{} + B{}))>;
  STATIC_REQUIRE(layer::slot_count == 1);
  STATIC_REQUIRE(is_epilogue_v<slot_t<layer>>);
  STATIC_REQUIRE(slot_t<layer>::operand_count == 2);
  STATIC_REQUIRE(std::is_same_v<typename slot_t<layer>::producer_type, std::remove_cvref_t<decltype(dw)>>);
  // pooling: 2-D and 1-D, max and average
  using pooled = plan_of<decltype(sf::relu(sf::max_pool2d(X{}, sf::ksize<2>) - 1.f))>;
  STATIC_REQUIRE(pooled::slot_count == 1);
  STATIC_REQUIRE(is_epilogue_v<slot_t<pooled>>);
  using X1 = sf::graph::argument<0, float, sf::shape<2, 9, 3>>;
  using B3 = sf::graph::argument<3, float, sf::shape<3>>;
  STATIC_REQUIRE(epilogues_v<plan_of<decltype(sf::avg_pool1d(X1{}, sf::ksize<3>, sf::strides<2>) * B3{})>> == 1);
  // a convolution's epilogue pooled, and the pooling's own epilogue: two slots, both epilogues
  using CF = sf::graph::argument<1, float, sf::shape<3, 3, 3, 3>>;
  using stacked = plan_of<decltype(sf::sigmoid(sf::max_pool2d(sf::relu(sf::conv2d(X{}, CF{}) + B3{}), sf::ksize<2>) * 2.f))>;
  STATIC_REQUIRE(stacked::slot_count == 2);
  STATIC_REQUIRE(epilogues_v<stacked> == 2);
  // not folded: the depthwise result read by another output; an operand that varies over pixels
  using also_out = plan_of<decltype(sf::relu(dw + B{})), decltype(dw)>;
  STATIC_REQUIRE(epilogues_v<also_out> == 0);
  using M = sf::graph::argument<2, float, sf::shape<1, 4, 4, 6>>;
  STATIC_REQUIRE(epilogues_v<plan_of<decltype(sf::relu(dw + M{}))>> == 0);
}

TEST_CASE("epilogue producers: a depthwise layer's values, the depthwise convolution materialized first", "[plan][epilogue]") {
  std::mt19937 rng(20261205);
  auto fused = sf::function([](auto x, auto f, auto s, auto b) {
    return sf::relu6(sf::depthwise_conv2d(x, f, sf::padding::same) * s + b);
  });
  auto apart = sf::function([](auto x, auto f, auto s, auto b) {
    return sf::relu6(sf::materialize(sf::depthwise_conv2d(x, f, sf::padding::same)) * s + b);
  });
  auto fused_strided = sf::function([](auto x, auto f, auto b) { return sf::tanh(sf::depthwise_conv2d(x, f, sf::strides<2, 1>) + b); });
  auto apart_strided = sf::function([](auto x, auto f, auto b) {
    return sf::tanh(sf::materialize(sf::depthwise_conv2d(x, f, sf::strides<2, 1>)) + b);
  });
  struct shape {
    std::size_t n, h, w, c, kh, kw, m;
    const char* what;
  };
  const shape shapes[] = {
      {2, 9, 11, 5, 3, 3, 1, "multiplier 1"},
      {1, 7, 6, 3, 3, 2, 2, "multiplier 2"},
      {1, 1, 1, 1, 1, 1, 1, "one element"},
      {0, 4, 5, 2, 3, 3, 1, "no images"},
      {1, 4, 5, 0, 3, 3, 1, "no channels"},
      {2, 40, 40, 32, 3, 3, 1, "two threads"},
  };
  for (const shape& s : shapes) {
    INFO(s.what);
    sf::set_num_threads(std::string(s.what) == "two threads" ? 2 : 1);
    const auto x = random_tensor<double, 4>(rng, {s.n, s.h, s.w, s.c});
    const auto f = random_tensor<double, 4>(rng, {s.kh, s.kw, s.c, s.m});
    const auto scale = random_tensor<double, 1>(rng, {s.c * s.m});
    const auto shift = random_tensor<double, 4>(rng, {1, 1, 1, s.c * s.m});
    STATIC_REQUIRE(function_epilogues_v<decltype(fused), decltype(x), decltype(f), decltype(scale), decltype(shift)> == 1);
    const xt::xtensor<double, 4> t = fused(x, f, scale, shift);
    CHECK((t.shape() == std::array<std::size_t, 4>{s.n, s.h, s.w, s.c * s.m}));
    CHECK((t == apart(x, f, scale, shift)));  // exact: the same sums, then min(max(y * s + b, 0), 6)
    const xt::xtensor<double, 4> u = fused_strided(x, f, scale), r = apart_strided(x, f, scale);
    REQUIRE(u.shape() == r.shape());
    for (std::size_t i = 0; i < u.size(); ++i) CHECK(u.data()[i] == Approx(r.data()[i]).epsilon(1e-15).margin(1e-15));
    const xt::xtensor<float, 4> xf = xt::cast<float>(x), ff = xt::cast<float>(f), bf = xt::cast<float>(shift);
    const xt::xtensor<float, 1> sf32 = xt::cast<float>(scale);
    CHECK((fused(xf, ff, sf32, bf) == apart(xf, ff, sf32, bf)));
  }
  sf::set_num_threads(1);
  // static shapes (the channel loop's count in the type) and a bias of one value
  xt::xtensor_fixed<float, xt::xshape<1, 5, 6, 4>> xs = xt::cast<float>(random_tensor<double, 4>(rng, {1, 5, 6, 4}));
  xt::xtensor_fixed<float, xt::xshape<3, 3, 4, 1>> fs = xt::cast<float>(random_tensor<double, 4>(rng, {3, 3, 4, 1}));
  xt::xtensor_fixed<float, xt::xshape<4>> ss = xt::cast<float>(random_tensor<double, 1>(rng, {4}));
  xt::xtensor_fixed<float, xt::xshape<1>> bs{0.25f};
  STATIC_REQUIRE(function_epilogues_v<decltype(fused), decltype(xs), decltype(fs), decltype(ss), decltype(bs)> == 1);
  CHECK((fused(xs, fs, ss, bs) == apart(xs, fs, ss, bs)));
  // a run-time bias of three over a result of one channel: the result broadcast to three
  auto fused_bias = sf::function([](auto x, auto f, auto b) { return sf::depthwise_conv2d(x, f) + b; });
  auto apart_bias = sf::function([](auto x, auto f, auto b) { return sf::materialize(sf::depthwise_conv2d(x, f)) + b; });
  const auto x1 = random_tensor<double, 4>(rng, {2, 5, 5, 1});
  const auto f1 = random_tensor<double, 4>(rng, {2, 2, 1, 1});
  const auto b3 = random_tensor<double, 1>(rng, {3});
  const xt::xtensor<double, 4> wide = fused_bias(x1, f1, b3);
  CHECK((wide.shape() == std::array<std::size_t, 4>{2, 4, 4, 3}));
  CHECK((wide == apart_bias(x1, f1, b3)));
  // a bias that fits neither: the shape error of the graph as written, before any write
  const auto b5 = random_tensor<double, 1>(rng, {5});
  const auto f2 = random_tensor<double, 4>(rng, {2, 2, 1, 2});
  CHECK_THROWS_WITH(fused_bias(x1, f2, b5), "staticflow: shapes (2, 4, 4, 2) and (5,) do not broadcast");
  CHECK_THROWS_WITH(apart_bias(x1, f2, b5), "staticflow: shapes (2, 4, 4, 2) and (5,) do not broadcast");
}

TEST_CASE("epilogue producers: pooling's values, the pooling materialized first", "[plan][epilogue][pool]") {
  std::mt19937 rng(5);
  auto fused = sf::function([](auto x, auto b) {
    return std::tuple{sf::relu(sf::max_pool2d(x, sf::ksize<3>, sf::strides<2>, sf::padding::same) + b),
                      sf::avg_pool2d(x, sf::ksize<2>) * b - 1.0};
  });
  auto apart = sf::function([](auto x, auto b) {
    return std::tuple{sf::relu(sf::materialize(sf::max_pool2d(x, sf::ksize<3>, sf::strides<2>, sf::padding::same)) + b),
                      sf::materialize(sf::avg_pool2d(x, sf::ksize<2>)) * b - 1.0};
  });
  struct shape {
    std::size_t n, h, w, c;
    const char* what;
  };
  const shape shapes[] = {
      {2, 9, 11, 5, "odd extents"}, {1, 4, 4, 37, "channels past the batch passes"}, {1, 2, 2, 1, "one window"},
      {0, 4, 4, 3, "no images"},    {2, 64, 64, 16, "two threads"},
  };
  for (const shape& s : shapes) {
    INFO(s.what);
    sf::set_num_threads(std::string(s.what) == "two threads" ? 2 : 1);
    const auto x = random_tensor<double, 4>(rng, {s.n, s.h, s.w, s.c});
    const auto b = random_tensor<double, 1>(rng, {s.c});
    STATIC_REQUIRE(function_epilogues_v<decltype(fused), decltype(x), decltype(b)> == 2);
    const auto [m, a] = fused(x, b);
    const auto [rm, ra] = apart(x, b);
    CHECK((m == rm));
    CHECK((a == ra));
    const xt::xtensor<float, 4> xf = xt::cast<float>(x);
    const xt::xtensor<float, 1> bf = xt::cast<float>(b);
    const auto [mf, af] = fused(xf, bf);
    const auto [rmf, raf] = apart(xf, bf);
    CHECK((mf == rmf));
    CHECK((af == raf));
  }
  sf::set_num_threads(1);
  // 1-D pooling, static shapes; an integer max_pool
  auto fused_1d = sf::function([](auto x, auto b) { return sf::maximum(sf::max_pool1d(x, sf::ksize<2>) - b, b); });
  auto apart_1d = sf::function([](auto x, auto b) { return sf::maximum(sf::materialize(sf::max_pool1d(x, sf::ksize<2>)) - b, b); });
  xt::xtensor_fixed<float, xt::xshape<2, 9, 3>> x1 = xt::cast<float>(random_tensor<double, 3>(rng, {2, 9, 3}));
  xt::xtensor_fixed<float, xt::xshape<3>> b1 = xt::cast<float>(random_tensor<double, 1>(rng, {3}));
  STATIC_REQUIRE(function_epilogues_v<decltype(fused_1d), decltype(x1), decltype(b1)> == 1);
  CHECK((fused_1d(x1, b1) == apart_1d(x1, b1)));
  const xt::xtensor<int, 3> xi = xt::cast<int>(random_tensor<double, 3>(rng, {2, 9, 3}) * 16.0);
  const xt::xtensor<int, 1> bi = {3, -2, 5};
  const xt::xtensor<int, 3> ti = fused_1d(xi, bi);
  CHECK((ti == apart_1d(xi, bi)));
  CHECK(ti(0, 0, 0) == std::max(std::max(xi(0, 0, 0), xi(0, 1, 0)) - 3, 3));
}

TEST_CASE("epilogue producers: a pooled convolution layer, both epilogues, against the layer materialized", "[plan][epilogue][pool]") {
  std::mt19937 rng(9);
  auto fused = sf::function([](auto x, auto f, auto b) {
    return sf::sigmoid(sf::avg_pool2d(sf::relu(sf::conv2d(x, f, sf::padding::same) + b), sf::ksize<2>) * 0.5);
  });
  auto apart = sf::function([](auto x, auto f, auto b) {
    return sf::sigmoid(sf::materialize(sf::avg_pool2d(sf::materialize(sf::relu(sf::conv2d(x, f, sf::padding::same) + b)), sf::ksize<2>)) * 0.5);
  });
  const auto x = random_tensor<double, 4>(rng, {2, 8, 6, 3});
  const auto f = random_tensor<double, 4>(rng, {3, 3, 3, 4});
  const auto b = random_tensor<double, 1>(rng, {4});
  STATIC_REQUIRE(function_epilogues_v<decltype(fused), decltype(x), decltype(f), decltype(b)> == 2);
  const xt::xtensor<double, 4> t = fused(x, f, b), r = apart(x, f, b);
  REQUIRE((t.shape() == std::array<std::size_t, 4>{2, 4, 3, 4}));
  for (std::size_t i = 0; i < t.size(); ++i) CHECK(t.data()[i] == Approx(r.data()[i]).epsilon(1e-15).margin(1e-15));
}

TEST_CASE("epilogue producers: a folded depthwise layer's gradient against central differences", "[plan][epilogue][gradient]") {
  const auto layer = [](auto x, auto f, auto s) { return sf::tanh(sf::max_pool2d(sf::depthwise_conv2d(x, f, sf::padding::same) * s, sf::ksize<2>) + 0.5); };
  auto forward = sf::function(layer);
  const auto x = gradient_check::random_tensor<4>({1, 4, 6, 2});
  const auto f = gradient_check::random_tensor<4>({3, 3, 2, 2}, -0.5, 0.5);
  const auto s = gradient_check::random_tensor<1>({4});
  STATIC_REQUIRE(function_epilogues_v<decltype(forward), decltype(x), decltype(f), decltype(s)> == 2);
  CHECK(gradient_check::check_gradients(layer, x, f, s) == 48 + 36 + 4);
}

TEST_CASE("epilogue producers: listings say which elementwise nodes an epilogue computes", "[plan][epilogue][listing]") {
  // the planner folds relu(d + c) into the convolution d and sigmoid(g * 2) into the pooling g
  auto layer = sf::function([](auto x, auto f, auto b) {
    return sf::sigmoid(sf::max_pool2d(sf::relu(sf::conv2d(x, f) + b), sf::ksize<2>) * 2.f);
  });
  const xt::xtensor<float, 4> x = xt::zeros<float>({1, 6, 6, 2}), f = xt::zeros<float>({3, 3, 2, 3});
  const xt::xtensor<float, 1> b = xt::zeros<float>({3});
  const auto& concrete = layer.get_concrete_function(x, f, b);
  CHECK(concrete.to_code() ==
        "auto fn(float32[None,None,None,None] a, float32[None,None,None,None] b, float32[None] c) {\n"
        "  auto d = sf::conv2d(a, b /* strides=1,1, padding=VALID */);  // float32[None,None,None,None]: materialized with an epilogue\n"
        "  auto e = d + c;  // float32[None,None,None,None]: fused into the epilogue of d\n"
        "  auto f = sf::relu(e);  // float32[None,None,None,None]: fused into the epilogue of d\n"
        "  auto g = sf::max_pool2d(f /* ksize=2,2, strides=2,2, padding=VALID */);  // float32[None,None,None,None]: materialized with an epilogue\n"
        "  auto h = g * 2.0f;  // float32[None,None,None,None]: fused into the epilogue of g\n"
        "  auto i = sf::sigmoid(h);  // float32[None,None,None,None]: fused into the epilogue of g\n"
        "  return i;\n"
        "}\n");
  const std::string dot = concrete.to_dot();
  CHECK_THAT(dot, Catch::Contains("d [label=\"Conv2D[strides=1,1, padding=VALID]\\nfloat32[None,None,None,None]\\nmaterialized with an epilogue\", fillcolor=\"#ffc078\"];\n"));
  CHECK_THAT(dot, Catch::Contains("f [label=\"Relu\\nfloat32[None,None,None,None]\\nfused into the epilogue of d\", fillcolor=\"#a5d8ff\"];\n"));
  // a product whose transposed operand the planner reads in place: judged as the planner sees
  // it; the transpose itself is never computed
  auto dense = sf::function([](auto x, auto w, auto c) {
    return std::tuple{sf::relu(sf::matmul(x, sf::transpose(w)) + c), sf::reduce_sum(sf::exp(x))};
  });
  const xt::xtensor<float, 2> xm = xt::zeros<float>({4, 5}), wm = xt::zeros<float>({3, 5});
  const std::string code = dense.get_concrete_function(xm, wm, b).to_code();
  CHECK_THAT(code, Catch::Contains("  auto d = sf::transpose(b /* permutation=(1,0) */);  // float32[None,None]: read in place by e\n"
                                   "  auto e = sf::matmul(a, d);  // float32[None,None]: materialized with an epilogue\n"
                                   "  auto f = e + c;  // float32[None,None]: fused into the epilogue of e\n"
                                   "  auto g = sf::relu(f);  // float32[None,None]: fused into the epilogue of e\n"
                                   "  auto h = sf::exp(a);  // float32[None,None]: fused into i\n"));
  // a transpose that something other than a product reads too is computed (and the product still
  // reads its operand in place)
  auto both = sf::function([](auto x, auto w) {
    const auto wt = sf::transpose(w);
    return std::tuple{sf::matmul(x, wt), wt * 2.f};
  });
  CHECK_THAT(both.get_concrete_function(xm, wm).to_code(),
             Catch::Contains("  auto c = sf::transpose(b /* permutation=(1,0) */);  // float32[None,None]: materialized\n"));
  // not folded: the convolution is an output too
  auto read_twice = sf::function([](auto x, auto f, auto b) {
    const auto c = sf::conv2d(x, f);
    return std::tuple{sf::relu(c + b), c};
  });
  CHECK(read_twice.get_concrete_function(x, f, b).to_code() ==
        "auto fn(float32[None,None,None,None] a, float32[None,None,None,None] b, float32[None] c) {\n"
        "  auto d = sf::conv2d(a, b /* strides=1,1, padding=VALID */);  // float32[None,None,None,None]: materialized\n"
        "  auto e = d + c;  // float32[None,None,None,None]: fused into output 0\n"
        "  auto f = sf::relu(e);  // float32[None,None,None,None]: fused into output 0\n"
        "  return std::tuple{f, d};\n"
        "}\n");
}
