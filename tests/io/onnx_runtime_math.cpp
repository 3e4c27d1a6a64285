// The onnx_runtime test's models: the math functions and activations, on floats and integers (see
// onnx_runtime.cpp).
#include "onnx_runtime_common.hpp"

namespace onnx_runtime_test {
void export_math(std::mt19937& rng) {
  // the math functions and activations (graph/math.hpp, graph/activations.hpp, graph/creation.hpp)
  auto math = sf::function<sf::spec<float, sf::dyn>, sf::spec<float, sf::dyn>>([](auto a, auto b) {
    const auto u = sf::tanh(a) * 0.9f;  // in (-1, 1)
    return std::tuple{sf::sin(a), sf::cos(a), sf::tan(a * 0.3f), sf::asin(u), sf::acos(u), sf::atan(a), sf::sinh(a),
                      sf::cosh(a), sf::asinh(a), sf::acosh(sf::abs(a) + 1.f), sf::atanh(u), sf::floor(a * 2.f),
                      sf::ceil(a * 2.f), sf::round(a * 2.f), sf::sign(a), sf::reciprocal(a), sf::rsqrt(sf::abs(a)),
                      sf::log1p(sf::abs(a)), sf::expm1(a), sf::log2(sf::abs(a)), sf::exp2(a), sf::erf(a), sf::erfc(a),
                      sf::softplus(a * 30.f), sf::is_nan(sf::log(a)), sf::is_inf(a / (b - b)), sf::is_finite(sf::log(a)),
                      sf::atan2(a, b), sf::logical_xor(a > 0, b > 0), sf::elu(a), sf::selu(a), sf::gelu(a),
                      sf::gelu(a, sf::tanh_approximation), sf::leaky_relu(a), sf::relu6(a * 3.f), sf::silu(a),
                      sf::hard_sigmoid(a * 3.f), sf::softsign(a), sf::clip_by_value(a, -0.5f, 0.5f),
                      sf::squared_difference(a, b), sf::zeros_like(a) + sf::full_like(b, 2) * sf::ones_like(a)};
  });
  auto run_math = exported("math", math);
  run_math("n29", nonzero<float>({29}, rng), nonzero<float>({29}, rng));
  auto int_math = sf::function<sf::spec<std::int32_t, sf::dyn>>([](auto a) {
    return std::tuple{sf::floor(a), sf::round(a), sf::sign(a), sf::reciprocal(a)};
  });
  auto run_int_math = exported("math_int", int_math);
  run_int_math("n7", xt::xarray<std::int32_t>{-7, -1, 1, 2, 3, 5, 9});
}
}  // namespace onnx_runtime_test
