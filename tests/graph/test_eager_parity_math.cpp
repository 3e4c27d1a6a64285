// Eager mode (sf::run_functions_eagerly: this file is built with the eager path, tests/CMakeLists.txt)
// gives the traced values for the math functions (graph/math.hpp), einsum (graph/einsum.hpp) and
// stateless random numbers (graph/random.hpp), whose own test files run traced only (the other
// ops: test_eager_parity.cpp).
#include <catch2/catch.hpp>

#include <cstddef>
#include <cstdint>
#include <tuple>

#include <xtensor/xfixed.hpp>
#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

#include "eager_parity.hpp"

namespace sf = staticflow;
using staticflow_test::check_parity;

TEST_CASE("eager math functions give the traced values", "[graph][eager][math]") {
  auto f = sf::function([](auto x) {
    return std::tuple{sf::sin(x), sf::cos(x), sf::atan(x), sf::sinh(x), sf::cosh(x), sf::asinh(x), sf::erf(x),
                      sf::erfc(x), sf::softplus(x), sf::expm1(x), sf::exp2(x), sf::floor(x), sf::ceil(x),
                      sf::round(x), sf::rint(x), sf::sign(x), sf::tan(x * 0.45)};
  });
  xt::xtensor<float, 1> x = xt::xtensor<float, 1>::from_shape({37});  // a SIMD tail on every width
  for (std::size_t i = 0; i < x.size(); ++i) x(i) = -3.f + 6.f * static_cast<float>(i) / 36.f + 0.01f;
  check_parity(f, false, x);
}

TEST_CASE("eager einsum gives the traced values", "[graph][eager][einsum]") {
  auto f = sf::function([](auto a, auto b) {
    return std::tuple{sf::einsum<"bij,bkj->bki">(a, b), sf::einsum<"bij,bij->bj">(a, a), sf::einsum<"bij->jb">(b)};
  });
  xt::xtensor<double, 3> a = xt::zeros<double>({2, 3, 4}), b = xt::zeros<double>({2, 5, 4});
  for (std::size_t i = 0; i < a.size(); ++i) a.flat(i) = static_cast<double>(int(i % 7) - 3);
  for (std::size_t i = 0; i < b.size(); ++i) b.flat(i) = static_cast<double>(int(i % 5) - 2);
  check_parity(f, true, a, b);  // small integers: exact in any order
  CHECK(std::get<0>(f(a, b))(1, 2, 0) == 2.0 * 1 + 3.0 * 2 + -3.0 * -2 + -2.0 * -1);  // sum_j a[1,0,j] b[1,2,j]
}

TEST_CASE("eager random numbers are the traced ones", "[graph][eager][random]") {
  auto f = sf::function([](auto x, auto seed) {
    return std::tuple{x + sf::random::stateless_normal(sf::shape_of(x), seed), sf::random::stateless_uniform(sf::shape_of(x), seed)};
  });
  const xt::xtensor<float, 1> x{1, 2, 3, 4, 5};
  const xt::xtensor_fixed<std::int64_t, xt::xshape<2>> seed{1, 2};
  check_parity(f, true, x, seed);
}
