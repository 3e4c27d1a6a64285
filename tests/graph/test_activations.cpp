// Tests for graph/activations.hpp: each activation against its definition in float64 (TF's and
// JAX's formulas), float32 through the SIMD path and its tail, and the conventions at the kinks.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <tuple>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

namespace {
const auto all_activations = [](auto x) {
  return std::tuple{sf::softsign(x), sf::elu(x), sf::elu(x, 0.5), sf::selu(x), sf::gelu(x),
                    sf::gelu(x, sf::tanh_approximation), sf::leaky_relu(x), sf::leaky_relu(x, 0.01), sf::relu6(x),
                    sf::silu(x), sf::swish(x), sf::hard_sigmoid(x), sf::softplus(x)};
};

double sigmoid(double v) { return 1 / (1 + std::exp(-v)); }
double elu(double v, double alpha) { return v > 0 ? v : alpha * std::expm1(v); }
const auto references = std::tuple{
    [](double v) { return v / (1 + std::fabs(v)); }, [](double v) { return elu(v, 1); },
    [](double v) { return elu(v, 0.5); },
    [](double v) { return 1.0507009873554804934193349852946 * elu(v, 1.6732632423543772848170429916717); },
    [](double v) { return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); },
    [](double v) { return 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v))); },
    [](double v) { return v > 0 ? v : 0.2 * v; }, [](double v) { return v > 0 ? v : 0.01 * v; },
    [](double v) { return std::min(std::max(v, 0.0), 6.0); }, [](double v) { return v * sigmoid(v); },
    [](double v) { return v * sigmoid(v); }, [](double v) { return std::min(std::max(v + 3, 0.0), 6.0) / 6; },
    [](double v) { return std::max(v, 0.0) + std::log1p(std::exp(-std::fabs(v))); }};

template <class T>
void check_against_definitions(double tolerance) {
  auto f = sf::function(all_activations);
  xt::xtensor<T, 1> x = xt::xtensor<T, 1>::from_shape({43});
  for (std::size_t i = 0; i < x.size(); ++i) x(i) = static_cast<T>(-8.0 + 16.0 * static_cast<double>(i) / 42.0);
  x(0) = T(0);
  x(1) = T(6);
  x(2) = T(-3);
  const auto results = f(x);
  std::size_t k = 0;
  const auto check = [&](const auto& out, auto ref) {
    for (std::size_t i = 0; i < x.size(); ++i) {
      INFO("activation " << k << ", x = " << x(i));
      CHECK(static_cast<double>(out(i)) == Approx(ref(static_cast<double>(x(i)))).epsilon(tolerance).margin(tolerance));
    }
    ++k;
  };
  std::apply([&](const auto&... out) { std::apply([&](auto... ref) { (check(out, ref), ...); }, references); }, results);
}
}  // namespace

TEST_CASE("activations match their definitions (float64 and float32)", "[graph][activations]") {
  check_against_definitions<double>(1e-13);
  check_against_definitions<float>(3e-6);
}

TEST_CASE("elu and selu of large inputs: finite values and gradients", "[graph][activations]") {
  auto vg = sf::value_and_grad<0>([](auto x) { return sf::reduce_sum(sf::elu(x) + sf::selu(x)); });
  const xt::xtensor<double, 1> x{800.0, -800.0, 0.0, 1.0};
  const auto [value, grad] = vg(x);
  CHECK(std::isfinite(value));
  CHECK(grad(0) == Approx(1 + 1.0507009873554804934193349852946));  // expm1 never saw 800
  CHECK(grad(1) == 0.0);                                             // alpha * exp(-800)
  CHECK(grad(2) == Approx(1 + 1.0507009873554804934193349852946 * 1.6732632423543772848170429916717));
}

TEST_CASE("the slopes at the kinks follow TensorFlow", "[graph][activations]") {
  auto leaky = sf::grad<0>([](auto x) { return sf::reduce_sum(sf::leaky_relu(x)); });
  auto relu6 = sf::grad<0>([](auto x) { return sf::reduce_sum(sf::relu6(x)); });
  auto clip = sf::grad<0>([](auto x) { return sf::reduce_sum(sf::clip_by_value(x, -1.0, 6.0)); });
  const xt::xtensor<double, 1> x{0.0, 6.0, -1.0, 3.0, -2.0, 7.0};
  const auto gl = leaky(x), gr = relu6(x), gc = clip(x);
  CHECK(gl(0) == 0.2);  // LeakyReluGrad: alpha at 0
  CHECK(gl(3) == 1.0);
  CHECK(gr(0) == 0.0);  // relu's slope 0 at 0
  CHECK(gr(1) == 1.0);  // minimum's tie goes to x (TF's Relu6Grad says 0: documented)
  CHECK(gr(5) == 0.0);
  CHECK(gc(1) == 1.0);  // clip_by_value: lo <= x <= hi passes the gradient (TF's rule)
  CHECK(gc(2) == 1.0);
  CHECK(gc(4) == 0.0);
  CHECK(gc(5) == 0.0);
}

TEST_CASE("README's math snippet", "[graph][activations][readme]") {
  auto act = sf::function([](auto x) { return sf::gelu(x) + sf::clip_by_value(sf::sin(x), -0.5f, 0.5f); });
  auto ones = sf::function([](auto x) { return sf::ones_like(x) * sf::round(x * 2.f); });  // no buffer
  const xt::xtensor<float, 1> x{0.25f, -1.25f, 3.f};
  const auto a = act(x);
  const auto o = ones(x);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double v = x(i);
    CHECK(a(i) == Approx(0.5 * v * (1 + std::erf(v / std::sqrt(2.0))) + std::clamp(std::sin(v), -0.5, 0.5)).epsilon(1e-6));
    CHECK(o(i) == std::nearbyint(x(i) * 2.f));
  }
}
