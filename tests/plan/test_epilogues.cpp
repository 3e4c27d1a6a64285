// Epilogues (plan/epilogues.hpp, graph/epilogue.hpp, backend/cpu/epilogue.hpp): the elementwise
// work that only reads a conv2d, a conv3d or a matmul (a bias, a scale, an activation) done by the
// convolution's kernel on each tile it finishes. Tested: which graphs fold and which do not (the
// convolution read elsewhere, operands that vary along other axes, a variable read several times);
// the values against the same function with the convolution materialized first (bit for bit where
// the epilogue is exact, within rounding through transcendental functions), for random shapes
// through every path of the kernel (direct tiles, grouped rows, grouped GEMMs, 1x1 products, no
// channels, size 0 and 1, two threads), conv3d's (direct, grouped), matmul's (blocked, few rows,
// narrow, integers, a transposed operand, batches, the unrolled static product, threads splitting
// rows or column panels), static and run-time shapes, a run-time bias over one
// output channel; the shape error of a bias that does not fit; gradients of a folded layer.
#include <catch2/catch.hpp>

#include <cstddef>
#include <random>
#include <tuple>
#include <type_traits>

#include <xtensor/xfixed.hpp>
#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

#include "../autodiff/gradient_check.hpp"
#include "epilogue_checks.hpp"

namespace sf = staticflow;

namespace {
using namespace epilogue_checks;
using X = sf::graph::argument<0, float, sf::shape<1, 6, 6, 3>>;
using F = sf::graph::argument<1, float, sf::shape<3, 3, 3, 4>>;
using B = sf::graph::argument<2, float, sf::shape<4>>;
using S = sf::graph::argument<3, float, sf::shape<1, 1, 1, 4>>;
using M = sf::graph::argument<4, float, sf::shape<1, 4, 4, 4>>;
using V = sf::graph::external<float, sf::shape<3, 3, 3, 4>>;  // a variable's read
}  // namespace

TEST_CASE("epilogues: which elementwise work a convolution's kernel takes", "[plan][epilogue]") {
  const auto conv = sf::conv2d(X{}, F{});
  // bias and activation: one slot, the convolution with its epilogue
  using relu_bias = plan_of<decltype(sf::relu(conv + B{}))>;
  STATIC_REQUIRE(relu_bias::slot_count == 1);
  STATIC_REQUIRE(is_epilogue_v<slot_t<relu_bias>>);
  STATIC_REQUIRE(slot_t<relu_bias>::operand_count == 1);
  STATIC_REQUIRE(std::is_same_v<typename slot_t<relu_bias>::function_type,
                                decltype(sf::relu(sf::graph::argument<0, float, sf::shape<1, 4, 4, 4>>{} +
                                                  sf::graph::argument<1, float, sf::shape<4>>{}))>);
  STATIC_REQUIRE(is_epilogue_v<slot_t<plan_of<decltype(conv + B{})>>>);
  STATIC_REQUIRE(is_epilogue_v<slot_t<plan_of<decltype(sf::relu(conv))>>>);
  // a scale and a bias per channel, literals, an activation reading its input three times
  using scaled = plan_of<decltype(sf::sigmoid(conv * S{} + B{} * 2.f))>;
  STATIC_REQUIRE(scaled::slot_count == 1);
  STATIC_REQUIRE(slot_t<scaled>::operand_count == 2);
  STATIC_REQUIRE(is_epilogue_v<slot_t<plan_of<decltype(sf::leaky_relu(conv + B{}))>>>);
  // inside a reduction's loop and under a pooling: the epilogue is a slot read by the next kernel
  using reduced = plan_of<decltype(sf::reduce_sum(sf::relu(conv + B{}) * M{}))>;
  STATIC_REQUIRE(reduced::slot_count == 2);
  STATIC_REQUIRE(is_epilogue_v<slot_t<reduced>>);
  using pooled = plan_of<decltype(sf::max_pool2d(sf::relu(conv + B{}), sf::ksize<2>))>;
  STATIC_REQUIRE(pooled::slot_count == 2);
  STATIC_REQUIRE(is_epilogue_v<slot_t<pooled>>);
  // a convolution of an epilogue's result: both fold
  const auto f2 = sf::graph::argument<1, float, sf::shape<3, 3, 4, 4>>{};
  using stacked = plan_of<decltype(sf::relu(sf::conv2d(sf::relu(conv + B{}), f2, sf::padding::same) + B{}))>;
  STATIC_REQUIRE(stacked::slot_count == 2);
  STATIC_REQUIRE(is_epilogue_v<slot_t<stacked, 0>>);
  STATIC_REQUIRE(is_epilogue_v<slot_t<stacked, 1>>);

  // not folded: the convolution read elsewhere too (an output, a gradient's mask)
  using also_out = plan_of<decltype(sf::relu(conv + B{})), decltype(conv)>;
  STATIC_REQUIRE(also_out::slot_count == 1);
  STATIC_REQUIRE_FALSE(is_epilogue_v<slot_t<also_out>>);
  using masked = plan_of<decltype(sf::relu(conv + B{})), decltype(sf::where(conv + B{} > 0.f, M{}, 0.f))>;
  STATIC_REQUIRE(epilogues_v<masked> == 0);
  // an operand that varies along other axes than the channels
  using full = plan_of<decltype(sf::relu(conv + M{}))>;
  STATIC_REQUIRE(full::slot_count == 1);
  STATIC_REQUIRE_FALSE(is_epilogue_v<slot_t<full>>);
  // a variable's convolution read once is folded whole; read four times (elu), only its sum with
  // the bias is (two variables of one type could differ, and the function reads one value per
  // operand type): four equal epilogue slots, which the planner computes once
  const auto on_variable = sf::conv2d(X{}, V{nullptr});
  STATIC_REQUIRE(epilogues_v<plan_of<decltype(sf::relu(on_variable + B{}))>> == 1);
  using elu_args = plan_of<decltype(sf::elu(conv + B{}))>;
  STATIC_REQUIRE(elu_args::slot_count == 1);
  STATIC_REQUIRE(epilogues_v<elu_args> == 1);
  using elu_variable = plan_of<decltype(sf::elu(on_variable + B{}))>;
  STATIC_REQUIRE(epilogues_v<elu_variable> == 4);
  STATIC_REQUIRE(std::is_same_v<typename slot_t<elu_variable, 1>::function_type,
                                decltype(sf::graph::argument<0, float, sf::shape<1, 4, 4, 4>>{} +
                                         sf::graph::argument<1, float, sf::shape<4>>{})>);
  // a dense layer's; not a matrix x vector product, whose last axis is the matrix's rows
  using XM = sf::graph::argument<0, float, sf::shape<5, 3>>;
  using WM = sf::graph::argument<1, float, sf::shape<3, 4>>;
  STATIC_REQUIRE(epilogues_v<plan_of<decltype(sf::relu(sf::matmul(XM{}, WM{}) + B{}))>> == 1);
  using VM = sf::graph::argument<1, float, sf::shape<3>>;
  using BM = sf::graph::argument<2, float, sf::shape<5>>;
  STATIC_REQUIRE(epilogues_v<plan_of<decltype(sf::relu(sf::matmul(XM{}, VM{}) + BM{}))>> == 0);
  // conv3d's too
  using X3 = sf::graph::argument<0, float, sf::shape<1, 4, 6, 6, 3>>;
  using F3 = sf::graph::argument<1, float, sf::shape<2, 3, 3, 3, 4>>;
  STATIC_REQUIRE(epilogues_v<plan_of<decltype(sf::relu(sf::conv3d(X3{}, F3{}) + B{}))>> == 1);
  // the convolution's own dtype only: a cast to double is the next loop's work
  using widened = plan_of<decltype(sf::cast<double>(conv) + 1.0)>;
  STATIC_REQUIRE_FALSE(is_epilogue_v<slot_t<widened>>);
}

TEST_CASE("epilogues: the values of the convolution materialized first, on every path of the kernel", "[plan][epilogue]") {
  std::mt19937 rng(20261205);
  auto fused = sf::function([](auto x, auto f, auto b) { return sf::relu(sf::conv2d(x, f, sf::padding::same) + b); });
  auto apart = sf::function([](auto x, auto f, auto b) { return sf::relu(sf::materialize(sf::conv2d(x, f, sf::padding::same)) + b); });
  auto fused_scaled = sf::function([](auto x, auto f, auto b, auto s) {
    return sf::tanh(sf::conv2d(x, f, sf::strides<2, 1>) * s + b * 0.5);
  });
  auto apart_scaled = sf::function([](auto x, auto f, auto b, auto s) {
    return sf::tanh(sf::materialize(sf::conv2d(x, f, sf::strides<2, 1>)) * s + b * 0.5);
  });
  struct shape {
    std::size_t n, h, w, c, kh, kw, fc, o;
    const char* path;
  };
  const shape shapes[] = {
      {2, 9, 11, 5, 3, 3, 5, 7, "direct tiles, edges"},
      {1, 13, 40, 3, 3, 3, 3, 37, "direct, several panels"},
      {1, 6, 7, 4, 3, 3, 2, 4, "grouped rows (2 groups of 2 outputs)"},
      {1, 6, 7, 4, 3, 3, 2, 32, "grouped GEMMs (2 groups of 16)"},
      {2, 5, 6, 8, 1, 1, 8, 9, "1x1: one product"},
      {1, 4, 5, 0, 3, 3, 0, 3, "no input channels"},
      {0, 4, 5, 2, 3, 3, 2, 3, "no images"},
      {1, 1, 1, 1, 1, 1, 1, 1, "one element"},
      {1, 64, 64, 16, 3, 3, 16, 24, "two threads"},
  };
  for (const shape& s : shapes) {
    INFO(s.path);
    sf::set_num_threads(std::string(s.path) == "two threads" ? 2 : 1);
    const auto x = random_tensor<double, 4>(rng, {s.n, s.h, s.w, s.c});
    const auto f = random_tensor<double, 4>(rng, {s.kh, s.kw, s.fc, s.o});
    const auto b = random_tensor<double, 1>(rng, {s.o});
    const auto scale = random_tensor<double, 4>(rng, {1, 1, 1, s.o});
    CHECK((fused(x, f, b) == apart(x, f, b)));  // exact: the same sums, then max(y + b, 0)
    const xt::xtensor<double, 4> t = fused_scaled(x, f, b, scale), r = apart_scaled(x, f, b, scale);
    REQUIRE(t.shape() == r.shape());
    for (std::size_t i = 0; i < t.size(); ++i) CHECK(t.data()[i] == Approx(r.data()[i]).epsilon(1e-15).margin(1e-15));
    const xt::xtensor<float, 4> xf = xt::cast<float>(x), ff = xt::cast<float>(f);
    const xt::xtensor<float, 1> bf = xt::cast<float>(b);
    CHECK((fused(xf, ff, bf) == apart(xf, ff, bf)));
  }
  sf::set_num_threads(1);
  // static shapes, an operand of one element broadcast, no operand at all
  auto fused_static = sf::function([](auto x, auto f, auto b) {
    return std::tuple{sf::relu6(sf::conv2d(x, f) - b), sf::sigmoid(sf::conv2d(x * 2.f, f))};
  });
  auto apart_static = sf::function([](auto x, auto f, auto b) {
    return std::tuple{sf::relu6(sf::materialize(sf::conv2d(x, f)) - b), sf::sigmoid(sf::materialize(sf::conv2d(x * 2.f, f)))};
  });
  xt::xtensor_fixed<float, xt::xshape<1, 7, 8, 3>> xs = xt::cast<float>(random_tensor<double, 4>(rng, {1, 7, 8, 3}));
  xt::xtensor_fixed<float, xt::xshape<3, 2, 3, 5>> fs = xt::cast<float>(random_tensor<double, 4>(rng, {3, 2, 3, 5}));
  xt::xtensor_fixed<float, xt::xshape<1>> bs{0.25f};
  using concrete = std::remove_cvref_t<decltype(fused_static.get_concrete_function(xs, fs, bs))>;
  STATIC_REQUIRE(is_epilogue_v<std::tuple_element_t<0, concrete::plan_type::slots_type>>);
  const auto [a0, a1] = fused_static(xs, fs, bs);
  const auto [r0, r1] = apart_static(xs, fs, bs);
  CHECK((a0 == r0));
  for (std::size_t i = 0; i < a1.size(); ++i) CHECK(a1.data()[i] == Approx(r1.data()[i]).epsilon(1e-6));
}

TEST_CASE("epilogues: conv3d's, on the direct kernel and through grouped planes", "[plan][epilogue]") {
  std::mt19937 rng(3);
  auto fused = sf::function([](auto x, auto f, auto b) { return sf::elu(sf::conv3d(x, f, sf::padding::same) * 0.5 + b); });
  auto apart = sf::function([](auto x, auto f, auto b) { return sf::elu(sf::materialize(sf::conv3d(x, f, sf::padding::same)) * 0.5 + b); });
  const std::size_t shapes[][4] = {{3, 3, 3, 5}, {4, 2, 1, 6}};  // channels, filter channels, depth taps, outputs
  for (const auto& s : shapes) {
    INFO("channels " << s[0] << ", filter channels " << s[1]);
    const auto x = random_tensor<double, 5>(rng, {2, 4, 5, 6, s[0]});
    const auto f = random_tensor<double, 5>(rng, {s[2], 3, 3, s[1], s[3]});
    const auto b = random_tensor<double, 1>(rng, {s[3]});
    using concrete = std::remove_cvref_t<decltype(fused.get_concrete_function(x, f, b))>;
    STATIC_REQUIRE(epilogues_v<typename concrete::plan_type> == 1);
    const xt::xtensor<double, 5> t = fused(x, f, b), r = apart(x, f, b);
    REQUIRE(t.shape() == r.shape());
    for (std::size_t i = 0; i < t.size(); ++i) CHECK(t.data()[i] == Approx(r.data()[i]).epsilon(1e-15).margin(1e-15));
  }
}

TEST_CASE("epilogues: a dense layer's bias and activation, on every path of the product", "[plan][epilogue][matmul]") {
  std::mt19937 rng(11);
  auto fused = sf::function([](auto x, auto w, auto b) { return sf::relu(sf::matmul(x, w) + b); });
  auto apart = sf::function([](auto x, auto w, auto b) { return sf::relu(sf::materialize(sf::matmul(x, w)) + b); });
  auto fused_t = sf::function([](auto x, auto w, auto b) { return sf::sigmoid(sf::matmul(x, w, sf::transpose_b) - b); });
  auto apart_t = sf::function([](auto x, auto w, auto b) {
    return sf::sigmoid(sf::materialize(sf::matmul(x, w, sf::transpose_b)) - b);
  });
  struct shape {
    std::size_t m, k, n;
    const char* path;
  };
  const shape shapes[] = {
      {40, 30, 70, "blocked, partial panels"}, {3, 20, 50, "few rows"}, {30, 20, 3, "narrow"},
      {0, 5, 4, "no rows"},                    {5, 0, 4, "no contracted axis"}, {1, 1, 1, "one element"},
      {20, 30, 700, "blocked, two column blocks"},
      // with MR = 12 and two batches of columns per tile: five row tiles, two or four column tiles
      {300, 64, 200, "two threads, rows"},     {60, 100, 64, "two threads, column panels"},
  };
  for (const shape& s : shapes) {
    INFO(s.path);
    sf::set_num_threads(std::string(s.path).starts_with("two threads") ? 2 : 1);
    const auto x = random_tensor<double, 2>(rng, {s.m, s.k});
    const auto w = random_tensor<double, 2>(rng, {s.k, s.n});
    const auto wt = random_tensor<double, 2>(rng, {s.n, s.k});
    const auto b = random_tensor<double, 1>(rng, {s.n});
    using concrete = std::remove_cvref_t<decltype(fused.get_concrete_function(x, w, b))>;
    STATIC_REQUIRE(epilogues_v<typename concrete::plan_type> == 1);
    CHECK((fused(x, w, b) == apart(x, w, b)));
    const xt::xtensor<double, 2> t = fused_t(x, wt, b), r = apart_t(x, wt, b);
    REQUIRE(t.shape() == r.shape());
    for (std::size_t i = 0; i < t.size(); ++i) CHECK(t.data()[i] == Approx(r.data()[i]).epsilon(1e-15).margin(1e-15));
    const xt::xtensor<float, 2> xf = xt::cast<float>(x), wf = xt::cast<float>(w);
    const xt::xtensor<float, 1> bf = xt::cast<float>(b);
    CHECK((fused(xf, wf, bf) == apart(xf, wf, bf)));
    const xt::xtensor<int, 2> xi = xt::cast<int>(x * 16.0), wi = xt::cast<int>(w * 16.0);
    const xt::xtensor<int, 1> bi = xt::cast<int>(b * 16.0);
    CHECK((fused(xi, wi, bi) == apart(xi, wi, bi)));
  }
  sf::set_num_threads(1);
  // batches of products; the unrolled static product
  const auto xb = random_tensor<double, 3>(rng, {3, 5, 6});
  const auto w = random_tensor<double, 2>(rng, {6, 7});
  const auto b = random_tensor<double, 1>(rng, {7});
  CHECK((fused(xb, w, b) == apart(xb, w, b)));
  xt::xtensor_fixed<float, xt::xshape<3, 4>> xs = xt::cast<float>(random_tensor<double, 2>(rng, {3, 4}));
  xt::xtensor_fixed<float, xt::xshape<4, 5>> ws = xt::cast<float>(random_tensor<double, 2>(rng, {4, 5}));
  xt::xtensor_fixed<float, xt::xshape<5>> bs = xt::cast<float>(random_tensor<double, 1>(rng, {5}));
  using concrete = std::remove_cvref_t<decltype(fused.get_concrete_function(xs, ws, bs))>;
  STATIC_REQUIRE(epilogues_v<typename concrete::plan_type> == 1);
  CHECK((fused(xs, ws, bs) == apart(xs, ws, bs)));
}

TEST_CASE("epilogues: run-time operand extents", "[plan][epilogue]") {
  std::mt19937 rng(7);
  auto fused = sf::function([](auto x, auto f, auto b) { return sf::conv2d(x, f) + b; });
  auto apart = sf::function([](auto x, auto f, auto b) { return sf::materialize(sf::conv2d(x, f)) + b; });
  const auto x = random_tensor<double, 4>(rng, {2, 5, 5, 3});
  // one output channel and a bias of three: the bias broadcasts the convolution's result
  const auto f1 = random_tensor<double, 4>(rng, {2, 2, 3, 1});
  const auto b3 = random_tensor<double, 1>(rng, {3});
  const xt::xtensor<double, 4> wide = fused(x, f1, b3);
  CHECK((wide.shape() == std::array<std::size_t, 4>{2, 4, 4, 3}));
  CHECK((wide == apart(x, f1, b3)));
  // a bias of one value over four channels
  const auto f4 = random_tensor<double, 4>(rng, {2, 2, 3, 4});
  const auto b1 = random_tensor<double, 1>(rng, {1});
  CHECK((fused(x, f4, b1) == apart(x, f4, b1)));
  // a bias that fits neither: the shape error of the graph as written, before any write
  const auto b5 = random_tensor<double, 1>(rng, {5});
  std::string fused_error, apart_error;
  try {
    fused(x, f4, b5);
  } catch (const sf::shape_error& e) {
    fused_error = e.what();
  }
  try {
    apart(x, f4, b5);
  } catch (const sf::shape_error& e) {
    apart_error = e.what();
  }
  CHECK(fused_error == "staticflow: shapes (2, 4, 4, 4) and (5,) do not broadcast");
  CHECK(fused_error == apart_error);
}

TEST_CASE("epilogues: a folded forward layer and its gradient against central differences", "[plan][epilogue][gradient]") {
  // check_gradients compares value_and_grad's value with the forward function's (folded), and the
  // gradients with central differences of the forward function. In the gradient's own graph the
  // convolution is a shared node that the backward pass reads too: not folded (plan/epilogues.hpp)
  const auto layer = [](auto x, auto f, auto b) { return sf::tanh(sf::conv2d(x, f, sf::padding::same) + b); };
  auto forward = sf::function(layer);
  auto vg = sf::value_and_grad<0, 1, 2>([&](auto x, auto f, auto b) { return sf::reduce_sum(layer(x, f, b)); });
  const auto x = gradient_check::random_tensor<4>({1, 4, 5, 2});
  const auto f = gradient_check::random_tensor<4>({3, 3, 2, 3}, -0.5, 0.5);
  const auto b = gradient_check::random_tensor<1>({3});
  STATIC_REQUIRE(epilogues_v<typename std::remove_cvref_t<decltype(forward.get_concrete_function(x, f, b))>::plan_type> == 1);
  STATIC_REQUIRE(epilogues_v<typename std::remove_cvref_t<decltype(vg.get_concrete_function(x, f, b))>::plan_type> == 0);
  CHECK(gradient_check::check_gradients(layer, x, f, b) == 40 + 54 + 3);
}
