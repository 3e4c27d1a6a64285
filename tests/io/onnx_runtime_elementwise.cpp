// The onnx_runtime test's models: a classifier with variables and the elementwise ops (see
// onnx_runtime.cpp).
#include "onnx_runtime_common.hpp"

namespace onnx_runtime_test {
void export_elementwise(std::mt19937& rng) {
  // A classifier whose weights are variables (initializers named as given), dyn batch.
  sf::variable<float, 4, 8> w1{xt::eval(xt::random::randn<float>({4, 8}))};
  sf::variable<float, 8> b1{xt::eval(xt::random::randn<float>({8}))};
  sf::variable<float, 8, 3> w2{xt::eval(xt::random::randn<float>({8, 3}))};
  auto mlp = sf::function<sf::spec<float, sf::dyn, 4>>([&](auto x) {
    auto logits = sf::matmul(sf::relu(sf::matmul(x, w1.read()) + b1.read()), w2.read());
    return std::tuple{sf::softmax(logits), sf::argmax(logits, sf::axes<1>{}), sf::log_softmax(logits, sf::axes<0>{})};
  });
  auto run_mlp = exported("mlp", mlp, {{"dense/w", w1}, {"dense/b", b1}, {"out/w", w2}});
  run_mlp("batch5", xt::xarray<float>(xt::random::randn<float>({5, 4})));
  run_mlp("batch1", xt::xarray<float>(xt::random::randn<float>({1, 4})));

  auto floats = sf::function<sf::spec<float, sf::dyn>, sf::spec<float, sf::dyn>>([](auto a, auto b) {
    return std::tuple{-a, sf::abs(a), sf::square(a), sf::sqrt(sf::abs(a)), sf::exp(a), sf::log(sf::abs(a) + 1.f),
                      sf::tanh(a), sf::sigmoid(a), sf::relu(a), sf::pow(sf::abs(a), b), sf::maximum(a, b),
                      sf::minimum(a, b), sf::where(a > b, a, b * 2.f), sf::floordiv(a, b), sf::floormod(a, b),
                      a % b, a / b - 1.5f, sf::cast<std::int32_t>(a * 3.f), sf::cast<double>(a) * 0.25};
  });
  auto run_floats = exported("elementwise_float", floats);
  run_floats("n13", nonzero<float>({13}, rng), nonzero<float>({13}, rng));
}
}  // namespace onnx_runtime_test
