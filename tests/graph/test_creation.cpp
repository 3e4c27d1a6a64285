// Tests for graph/creation.hpp: zeros / ones / fill of static shapes, zeros_like / ones_like /
// full_like of static and run-time shapes, dtypes, fusion (no buffer), gradients through them.
#include <catch2/catch.hpp>

#include <cstdint>
#include <tuple>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

TEST_CASE("zeros, ones and fill make static-shape constants of the dtype asked", "[graph][creation]") {
  auto f = sf::function([](auto x) {
    return std::tuple{x + sf::zeros(sf::shape<2, 3>{}), sf::ones<std::int32_t>(sf::shape<3>{}),
                      sf::fill(sf::shape<2, 1>{}, 2.5), sf::fill<float>(sf::shape<4>{}, 7)};
  });
  const xt::xtensor_fixed<float, xt::xshape<3>> x{1, 2, 3};
  const auto [sum, ones, filled, sevens] = f(x);
  CHECK((sum == xt::xtensor<float, 2>{{1, 2, 3}, {1, 2, 3}}));
  CHECK((ones == xt::xtensor<std::int32_t, 1>{1, 1, 1}));
  STATIC_REQUIRE(std::is_same_v<typename std::remove_cvref_t<decltype(filled)>::value_type, double>);
  CHECK((filled == xt::xtensor<double, 2>{{2.5}, {2.5}}));
  CHECK((sevens == xt::xtensor<float, 1>{7, 7, 7, 7}));
}

TEST_CASE("zeros_like, ones_like and full_like take the shape of their argument, run-time extents too",
          "[graph][creation]") {
  auto f = sf::function([](auto x) {
    return std::tuple{sf::zeros_like(x), sf::ones_like(x) * 2.f, sf::full_like(x, 3), sf::ones_like<bool>(x),
                      sf::zeros_like<double>(x) + 0.5};
  });
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{9}}) {
    const xt::xtensor<float, 2> x = xt::ones<float>({n, std::size_t{3}}) * 4.f;
    const auto [z, o, t, b, d] = f(x);
    CHECK((z == xt::zeros<float>({n, std::size_t{3}})));
    CHECK((o == xt::ones<float>({n, std::size_t{3}}) * 2.f));
    CHECK((t == xt::ones<float>({n, std::size_t{3}}) * 3.f));  // float: x's dtype, the 3 converted
    CHECK(b.shape()[0] == n);
    CHECK(xt::all(xt::equal(b, true)));
    CHECK((d == xt::ones<double>({n, std::size_t{3}}) * 0.5));
  }
  CHECK(f.tracing_count() == 1);
}

TEST_CASE("a created constant is fused into the loop that reads it", "[graph][creation]") {
  auto f = sf::function([](auto x, auto y) { return sf::zeros_like(x) + y * sf::ones_like(y); });
  auto& c = f.get_concrete_function(sf::spec<float, sf::dyn>{}, sf::spec<float, sf::dyn>{});
  using C = std::remove_cvref_t<decltype(c)>;
  CHECK(C::materialized_count == 0);  // no buffer: one loop over y
  const xt::xtensor<float, 1> x{1, 2, 3}, y{4, 5, 6};
  CHECK((f(x, y) == y));
  CHECK_THROWS_AS(f(x, xt::xtensor<float, 1>{1, 2}), sf::shape_error);
}

TEST_CASE("gradients through created constants: zeros_like gives none, full_like a constant",
          "[graph][creation]") {
  auto g = sf::grad<0>([](auto x) { return sf::reduce_sum(x * sf::full_like(x, 3.0) + sf::zeros_like(x * x)); });
  const xt::xtensor<double, 1> x{1, -2, 0.5};
  CHECK((g(x) == xt::xtensor<double, 1>{3, 3, 3}));
}
