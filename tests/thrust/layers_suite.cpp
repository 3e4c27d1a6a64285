// The convolutions' variants the backend suite's other files do not reach, on the suite's backend
// against the CPU backend in the same build (against_cpu.hpp): conv1d, conv2d_transpose (static and
// sf::shape_of output shapes), separable_conv2d, and the epilogues of conv2d, conv3d, matmul,
// depthwise_conv2d and pooling. Their gradients, and those of tensordot with axis pairs and of 1-D
// pooling: layers_gradient_suite.cpp; the other ops: ops_contractions_suite.cpp,
// ops_statistics_suite.cpp (each TU kept under the 2 GB compile budget). (Not named test_*.cpp:
// tests/thrust's own CMakeLists builds it into each suite.)
#include "against_cpu.hpp"

using namespace against_cpu;

TEST_CASE("suite: convolutions' variants agree with the CPU backend", "[suite][conv]") {
  const auto x1 = random<3>({2, 9, 3}), k1 = random<3>({3, 3, 4});
  check_against_cpu([](auto x, auto k) { return sf::conv1d(x, k, sf::padding::same, sf::strides<2>); }, x1, k1);
  const auto y = random<4>({1, 4, 3, 4}), f = random<4>({3, 2, 3, 4}), skip = random<4>({1, 7, 6, 3});
  check_against_cpu([](auto a, auto b) { return sf::conv2d_transpose(a, b, sf::shape<1, 7, 6, 3>{}, sf::padding::same, sf::strides<2>); },
                    y, f);
  check_against_cpu([](auto a, auto b, auto s) { return sf::conv2d_transpose(a, b, sf::shape_of(s), sf::padding::same, sf::strides<2>) + s; },
                    y, f, skip);
  const auto img = random<4>({1, 6, 5, 3}), dw = random<4>({3, 3, 3, 2}), pw = random<4>({1, 1, 6, 4});
  check_against_cpu([](auto a, auto d, auto p) { return sf::separable_conv2d(a, d, p, sf::padding::same); }, img, dw, pw);
}

TEST_CASE("suite: convolutions and products with their epilogues agree with the CPU backend", "[suite][conv]") {
  // bias, scale and activation done by the convolution's slot (plan/epilogues.hpp); a run-time
  // bias of three over one output channel, which broadcasts the convolution's result
  const auto x = random<4>({2, 6, 5, 3}), f = random<4>({3, 3, 3, 4}), f1 = random<4>({3, 3, 3, 1});
  const auto b = random<1>({4}), b3 = random<1>({3});
  const auto scale = random<4>({1, 1, 1, 4});
  check_against_cpu([](auto a, auto k, auto c) { return sf::relu(sf::conv2d(a, k, sf::padding::same) + c); }, x, f, b);
  check_against_cpu([](auto a, auto k, auto c, auto s) { return sf::sigmoid(sf::conv2d(a, k, sf::strides<2>) * s + c * 0.5); }, x, f,
                    b, scale);
  check_against_cpu([](auto a, auto k, auto c) { return sf::conv2d(a, k) + c; }, x, f1, b3);
  const auto x3 = random<5>({1, 3, 4, 5, 2}), f3 = random<5>({2, 3, 3, 2, 4});
  check_against_cpu([](auto a, auto k, auto c) { return sf::tanh(sf::conv3d(a, k, sf::padding::same) + c); }, x3, f3, b);
  const auto xm = random<2>({6, 5}), wm = random<2>({5, 4});
  check_against_cpu([](auto a, auto w, auto c) { return sf::relu(sf::matmul(a, w) + c); }, xm, wm, b);
  // a depthwise convolution's scale, shift and relu6; a pooling's epilogue over a convolution's
  const auto fd = random<4>({3, 3, 3, 2});
  const auto s6 = random<1>({6});
  check_against_cpu([](auto a, auto k, auto s) { return sf::relu6(sf::depthwise_conv2d(a, k, sf::padding::same) * s + 0.25); }, x, fd, s6);
  check_against_cpu([](auto a, auto k, auto c) {
    return sf::sigmoid(sf::max_pool2d(sf::relu(sf::conv2d(a, k, sf::padding::same) + c), sf::ksize<2>) - c);
  }, x, f, b);
}
