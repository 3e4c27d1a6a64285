// Gradients of elementwise ops, where, cast and broadcasting, against central differences
// (float64, random inputs and extents: size 1, SIMD tails, run-time and static shapes).
#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("unary ops: gradients match central differences at random extents") {
  const auto unary = [](auto x) {
    return sf::tanh(x) * sf::sigmoid(x) + sf::exp(x * 0.3) - sf::square(x) + sf::abs(x) * 0.7 + sf::relu(x) -
           sf::negative(x) * 2.0;
  };
  const auto positive = [](auto x) { return sf::sqrt(x) + sf::log(x) * x; };
  for (std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{8}, extent(9, 37)}) {
    INFO("extent " << n);
    CHECK(check_gradients(unary, random_tensor<1>({n})) == n);
    CHECK(check_gradients(positive, random_tensor<1>({n}, 0.1, 3.0)) == n);
  }
}

TEST_CASE("binary ops: gradients of every operand") {
  const auto arithmetic = [](auto a, auto b) { return a * b + a / (b * b + 1.0) - (a - b) * (a + 2.0); };
  const auto extrema = [](auto a, auto b) { return sf::maximum(a, b) * 2.0 + sf::minimum(a * 0.5, b); };
  const auto remainders = [](auto a, auto b) { return a % b + sf::floormod(a, b) * 0.5 + sf::floordiv(a, b); };
  const auto power = [](auto a, auto b) { return sf::pow(a, b); };
  for (std::size_t n : {std::size_t{1}, std::size_t{5}, extent(6, 40)}) {
    INFO("extent " << n);
    check_gradients(arithmetic, random_tensor<1>({n}), random_tensor<1>({n}));
    check_gradients(extrema, random_tensor<1>({n}), random_tensor<1>({n}));
    check_gradients(remainders, random_tensor<1>({n}, 0.3, 5.0), random_tensor<1>({n}, 0.7, 1.9));
    check_gradients(power, random_tensor<1>({n}, 0.2, 2.0), random_tensor<1>({n}, -1.5, 2.5));
  }
}
