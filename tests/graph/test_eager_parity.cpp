// Eager mode (sf::run_functions_eagerly, op by op on the CPU backend) gives the traced values for
// the ops whose own test files run traced only (compiled with STATICFLOW_EAGER_MODE=0 to keep
// them cheap): slicing (graph/slicing.hpp), statistics (graph/statistics.hpp), activations
// (graph/activations.hpp) and where(condition) (graph/masking.hpp).
#include <catch2/catch.hpp>

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include <xtensor/xfixed.hpp>
#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

namespace {
/// f(args...) traced, then eagerly: each output equal (exact, or close for float math).
template <class F, class... A>
void check_parity(F& f, bool exact, const A&... args) {
  const auto traced = f(args...);
  sf::run_functions_eagerly(true);
  const auto eager = f(args...);
  sf::run_functions_eagerly(false);
  const auto one = [&](auto k) {
    constexpr std::size_t K = decltype(k)::value;
    INFO("output " << K);
    if (exact) CHECK((std::get<K>(eager) == std::get<K>(traced)));
    else CHECK(xt::allclose(std::get<K>(eager), std::get<K>(traced), 1e-6, 1e-7));
  };
  [&]<std::size_t... K>(std::index_sequence<K...>) { (one(std::integral_constant<std::size_t, K>{}), ...); }(
      std::make_index_sequence<std::tuple_size_v<std::remove_cvref_t<decltype(traced)>>>{});
}
}  // namespace

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
