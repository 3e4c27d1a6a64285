// Tests for backend/eager: op-by-op evaluation gives the fused loop's results exactly (the same
// kernels run one node at a time), for every broadcasting case and dtype mix.
#include <catch2/catch.hpp>

#include <random>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

TEST_CASE("eager evaluation equals fused evaluation", "[eager]") {
  auto body = [](auto a, auto b, auto c) {
    return sf::where(a > b, sf::tanh(a * b + c) - a / (b + 1.f), sf::maximum(a, c) * 0.5f);
  };
  auto fused = sf::function(body);
  auto eager = sf::function(body, sf::backend::eager);
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(-2.f, 2.f);
  auto a = xt::xtensor<float, 2>::from_shape({7, 33});
  auto b = xt::xtensor<float, 1>::from_shape({33});
  auto c = xt::xtensor<float, 2>::from_shape({7, 1});
  for (auto* t : {&a}) for (auto& e : *t) e = dist(rng);
  for (auto& e : b) e = dist(rng);
  for (auto& e : c) e = dist(rng);
  auto rf = fused(a, b, c);
  auto re = eager(a, b, c);
  REQUIRE(rf.shape() == re.shape());
  for (std::size_t i = 0; i < rf.size(); ++i) {
    INFO("i=" << i);
    CHECK(rf.flat(i) == Approx(re.flat(i)).epsilon(1e-6));
  }
}

TEST_CASE("eager evaluation handles literals, identities, scalars and integer ops", "[eager]") {
  auto body = [](auto x, auto y) { return std::tuple{x, x * 3 - y % 4, -x, y}; };
  auto fused = sf::function(body);
  auto eager = sf::function(body, sf::backend::eager);
  xt::xtensor<int, 1> x = {1, -2, 3, 40, -50};
  auto [fx, fy, fn, fs] = fused(x, 9);
  auto [ex, ey, en, es] = eager(x, 9);
  CHECK((fx == ex));
  CHECK((fy == ey));
  CHECK((fn == en));
  CHECK(fs == es);
  CHECK((ey == xt::xtensor<int, 1>{2, -7, 8, 119, -151}));
  CHECK(es == 9);
}
