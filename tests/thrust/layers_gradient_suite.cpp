// The gradients of the convolutions' variants (conv1d, conv2d_transpose, separable_conv2d), of
// tensordot with axis pairs and of 1-D pooling, on the suite's backend against the CPU backend in
// the same build (against_cpu.hpp). Their values: layers_suite.cpp. (Not named test_*.cpp:
// tests/thrust's own CMakeLists builds it into each suite.)
#include "against_cpu.hpp"

using namespace against_cpu;

TEST_CASE("suite: the gradients of convolutions' variants agree with the CPU backend", "[suite][conv][gradient]") {
  const auto x1 = random<3>({2, 9, 3}), k1 = random<3>({3, 3, 4});
  const auto y = random<4>({1, 4, 3, 4}), f = random<4>({3, 2, 3, 4});
  const auto img = random<4>({1, 6, 5, 3}), dw = random<4>({3, 3, 3, 2}), pw = random<4>({1, 1, 6, 4});
  check_gradient_against_cpu<0, 1>([](auto a, auto b) { return sf::reduce_sum(sf::square(sf::conv1d(a, b, sf::padding::same, sf::strides<2>))); },
                                    x1, k1);
  check_gradient_against_cpu<0, 1>([](auto a, auto b) {
    return sf::reduce_sum(sf::sin(sf::conv2d_transpose(a, b, sf::shape<1, 7, 6, 3>{}, sf::padding::same, sf::strides<2>)));
  }, y, f);
  check_gradient_against_cpu<0, 1, 2>([](auto a, auto d, auto p) { return sf::reduce_sum(sf::tanh(sf::separable_conv2d(a, d, p))); }, img,
                                       dw, pw);
}

TEST_CASE("suite: the gradients of tensordot and 1-D pooling agree with the CPU backend", "[suite][gradient]") {
  const auto a = random<3>({2, 3, 4}), b = random<3>({3, 5, 2});
  check_gradient_against_cpu<0, 1>([](auto p, auto q) { return sf::reduce_sum(sf::square(sf::tensordot(p, q, sf::axes<1, 0>{}, sf::axes<0, 2>{}))); },
                                    a, b);
  const auto line = random<3>({2, 11, 3});
  check_gradient_against_cpu<0>([](auto t) { return sf::reduce_sum(sf::square(sf::avg_pool1d(t, sf::ksize<3>, sf::strides<2>, sf::padding::same))); },
                                line);
}
