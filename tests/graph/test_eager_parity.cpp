// Eager mode (sf::run_functions_eagerly, op by op on the CPU backend) gives the traced values for
// the ops whose own test files run traced only (compiled with STATICFLOW_EAGER_MODE=0 to keep
// them cheap: a file that turns eager mode on compiles the eager branch of every call in it, a
// third of test_math.cpp's compile time and 40 % of test_strings.cpp's): slicing, statistics,
// activations, where(condition), creation, data movement and strings (the math functions, einsum
// and random numbers: test_eager_parity_math.cpp; two files keep each under 2 GB of compiler).
#include <catch2/catch.hpp>

#include <cstdint>
#include <sstream>
#include <string>
#include <tuple>

#include <xtensor/xfixed.hpp>
#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

#include "eager_parity.hpp"

namespace sf = staticflow;
using staticflow_test::check_parity;

TEST_CASE("eager slicing gives the traced values", "[graph][eager][slicing]") {
  auto f = sf::function([](auto a) {
    return std::tuple{a(sf::span(sf::none, sf::none, -2), sf::span(1, -1)), a(sf::static_span<1, sf::open_index>{}, sf::whole),
                      a(sf::span(2, sf::none)) * 2.f};
  });
  xt::xtensor<float, 2> a = xt::zeros<float>({5, 4});
  for (std::size_t i = 0; i < a.size(); ++i) a.flat(i) = static_cast<float>(i);
  check_parity(f, true, a);
  CHECK((std::get<0>(f(a)) == xt::xtensor<float, 2>{{17, 18}, {9, 10}, {1, 2}}));
}

TEST_CASE("eager statistics give the traced values", "[graph][eager][statistics]") {
  auto f = sf::function([](auto a, auto off, auto sc) {
    const auto [mean, variance] = sf::moments(a, sf::axes<0>{});
    return std::tuple{sf::reduce_std(a, sf::axes<1>{}), sf::norm<sf::norm_order::infinity>(a, sf::axes<0>{}),
                      sf::batch_normalization(a, mean, variance, off, sc, 1e-3), sf::layer_normalization(a, sc, off)};
  });
  const xt::xtensor_fixed<float, xt::xshape<2, 3>> x{{1.5f, -2.0f, 3.25f}, {4.0f, 0.5f, -7.0f}};
  const xt::xtensor_fixed<float, xt::xshape<3>> offset{0.1f, -0.2f, 0.3f}, scale{2.0f, 0.5f, -1.0f};
  check_parity(f, false, x, offset, scale);
  const auto std_rows = std::get<0>(f(x, offset, scale));
  CHECK(std_rows(0) == Approx(2.182633399963379).epsilon(2e-6));  // TF 2.21's value
}

TEST_CASE("eager activations give the traced values", "[graph][eager][activations]") {
  auto f = sf::function([](auto x) {
    return std::tuple{sf::softsign(x), sf::elu(x), sf::selu(x), sf::gelu(x), sf::gelu(x, sf::tanh_approximation), sf::leaky_relu(x),
                      sf::relu6(x), sf::silu(x), sf::hard_sigmoid(x), sf::softplus(x)};
  });
  xt::xtensor<float, 1> x = xt::xtensor<float, 1>::from_shape({37});
  for (std::size_t i = 0; i < x.size(); ++i) x(i) = -6.f + 12.f * static_cast<float>(i) / 36.f;
  check_parity(f, false, x);
}

TEST_CASE("eager where(condition) gives the traced coordinates", "[graph][eager][masking]") {
  auto f = sf::function([](auto x) { return std::tuple{sf::where(x % 2 == 1), sf::gather_nd(x, sf::where(x > 4))}; });
  const xt::xtensor<int, 3> x{{{1, 2}, {4, 5}}, {{6, 7}, {8, 8}}};
  check_parity(f, true, x);
  CHECK((std::get<1>(f(x)) == xt::xtensor<int, 1>{5, 6, 7, 8, 8}));
}

TEST_CASE("eager zeros, ones, fill, range, linspace and eye give the traced values", "[graph][eager][creation]") {
  using namespace sf::literals;
  auto f = sf::function([](auto x) {
    return std::tuple{sf::zeros(sf::shape_of(x)), sf::ones<std::int64_t>(sf::shape_of(x)), sf::fill(sf::shape_of(x), 2.5),
                      sf::fill<float>(sf::shape_of(x), 7) + x};
  });
  check_parity(f, true, xt::xtensor<std::int32_t, 2>{{1, 2, 3}});
  CHECK((std::get<3>(f(xt::xtensor<std::int32_t, 2>{{1, 2, 3}})) == xt::xtensor<float, 2>{{8, 9, 10}}));
  auto g = sf::function([](auto x) { return std::tuple{x * sf::range<float>(3_c), x + sf::linspace(1.f, 2.f, 3_c), sf::eye(2_c, 3_c) * x}; });
  check_parity(g, true, xt::xtensor_fixed<float, xt::xshape<3>>{1, 2, 3});
}

TEST_CASE("eager data movement on integer and bool tensors gives the traced values", "[graph][eager][data_movement]") {
  auto f = sf::function([](auto a, auto b) {
    return std::tuple{sf::pad(sf::reverse(a, sf::axes<0>{}), sf::paddings<0, 1>{}, 9), sf::tile(b, sf::multiples<2>{})};
  });
  const xt::xtensor_fixed<std::int64_t, xt::xshape<3>> ints{1, 2, 3};
  const xt::xtensor_fixed<bool, xt::xshape<2>> bools{true, false};
  check_parity(f, true, ints, bools);
  CHECK((std::get<0>(f(ints, bools)) == xt::xtensor<std::int64_t, 1>{3, 2, 1, 9}));
}

TEST_CASE("eager mode computes the same strings and prints them as an eager tf.Tensor", "[graph][eager][strings]") {
  std::ostringstream log;
  auto dbl = sf::function([&](auto a) {
    log << a << "\n";
    return std::tuple{a + a, sf::strings::length(a)};
  });
  const xt::xtensor<std::string, 1> v = {"a", "bc"};
  const auto traced = dbl(v);
  sf::run_functions_eagerly_scope eager;
  const auto [twice, length] = dbl(v);
  CHECK((twice == std::get<0>(traced)));
  CHECK((length == std::get<1>(traced)));
  CHECK(std::get<0>(dbl("a")) == "aa");
  CHECK(log.str() ==
        "Tensor(\"arg0:0\", shape=(None,), dtype=string)\n"
        "tf.Tensor([b'a' b'bc'], shape=(2,), dtype=string)\n"
        "tf.Tensor(b'a', shape=(), dtype=string)\n");
}
