// sf::cumsum / sf::cumprod (graph/cumulative.hpp, backend/cpu/cumulative.hpp): every axis,
// exclusive and reverse, static and run-time axes and shapes, integers, size-0 and size-1 axes,
// threads, eager mode, the listing and the run-time axis error.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>

#include <xtensor/xfixed.hpp>
#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

namespace {
/// tf.math.cumsum / cumprod along axis of a rank-3 tensor, written out.
template <class T>
xt::xtensor<T, 3> reference(const xt::xtensor<T, 3>& x, std::size_t axis, bool product, bool exclusive, bool reverse) {
  xt::xtensor<T, 3> y = xt::zeros<T>(x.shape());
  const auto n = x.shape(axis);
  for (std::size_t i = 0; i < x.shape(0); ++i)
    for (std::size_t j = 0; j < x.shape(1); ++j)
      for (std::size_t k = 0; k < x.shape(2); ++k) {
        std::array<std::size_t, 3> at{i, j, k};
        const std::size_t mine = at[axis];
        T acc = product ? T(1) : T(0);
        for (std::size_t a = 0; a < n; ++a) {
          const bool included = reverse ? (exclusive ? a > mine : a >= mine) : (exclusive ? a < mine : a <= mine);
          if (!included) continue;
          at[axis] = a;
          acc = product ? acc * x(at[0], at[1], at[2]) : acc + x(at[0], at[1], at[2]);
        }
        y(i, j, k) = acc;
      }
  return y;
}
}  // namespace

TEST_CASE("cumsum / cumprod: every axis, exclusive and reverse, against the definition") {
  std::mt19937 rng(8);
  std::uniform_real_distribution<double> u(0.5, 1.5);
  xt::xtensor<double, 3> x = xt::zeros<double>({3, 4, 5});
  for (auto& v : x) v = u(rng);
  auto all = sf::function([](auto a) {
    return std::tuple{sf::cumsum(a), sf::cumsum(a, sf::axes<1>{}, sf::exclusive), sf::cumsum(a, sf::axes<-1>{}, sf::reversed),
                      sf::cumsum(a, sf::axes<0>{}, sf::reversed, sf::exclusive), sf::cumprod(a, sf::axes<2>{}),
                      sf::cumprod(a, sf::axes<1>{}, sf::exclusive, sf::reversed)};
  });
  const auto [s0, s1e, s2r, s0re, p2, p1er] = all(x);
  CHECK(xt::allclose(s0, reference(x, 0, false, false, false)));
  CHECK(xt::allclose(s1e, reference(x, 1, false, true, false)));
  CHECK(xt::allclose(s2r, reference(x, 2, false, false, true)));
  CHECK(xt::allclose(s0re, reference(x, 0, false, true, true)));
  CHECK(xt::allclose(p2, reference(x, 2, true, false, false)));
  CHECK(xt::allclose(p1er, reference(x, 1, true, true, true)));
}

TEST_CASE("cumsum: a plain int axis keeps the static shape; integers; the axis error") {
  auto along1 = sf::function([](auto a) { return sf::cumsum(a, 1, sf::reversed); });
  auto along_minus2 = sf::function([](auto a) { return sf::cumsum(a, -2, sf::reversed); });
  auto along2 = sf::function([](auto a) { return sf::cumsum(a, 2); });
  xt::xtensor_fixed<std::int32_t, xt::xshape<2, 3>> x = {{1, 2, 3}, {4, 5, 6}};
  const auto y1 = along1(x);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(y1)>, xt::xtensor_fixed<std::int32_t, xt::xshape<2, 3>>>);
  CHECK((xt::xtensor<std::int32_t, 2>(y1) == xt::xtensor<std::int32_t, 2>({{6, 5, 3}, {15, 11, 6}})));
  CHECK((xt::xtensor<std::int32_t, 2>(along_minus2(x)) == xt::xtensor<std::int32_t, 2>({{5, 7, 9}, {4, 5, 6}})));
  CHECK_THROWS_AS(along2(x), sf::shape_error);
  CHECK_THROWS_WITH(along2(x), "staticflow: axis 2 is out of range for rank 2");
  auto product = sf::function([](auto a) { return sf::cumprod(a, sf::axes<1>{}, sf::exclusive); });
  CHECK((xt::xtensor<std::int32_t, 2>(product(x)) == xt::xtensor<std::int32_t, 2>({{1, 1, 2}, {1, 4, 20}})));
}

TEST_CASE("cumsum: size-0 and size-1 axes, a long last axis split across threads, eager mode, the listing") {
  auto f = sf::function([](auto a) { return sf::cumsum(a, sf::axes<-1>{}, sf::exclusive); });
  CHECK(xt::xtensor<float, 2>(f(xt::xtensor<float, 2>(xt::zeros<float>({3, 0})))).shape() == std::array<std::size_t, 2>{3, 0});
  CHECK(xt::xtensor<float, 2>(f(xt::xtensor<float, 2>(xt::zeros<float>({0, 4})))).shape() == std::array<std::size_t, 2>{0, 4});
  CHECK((xt::xtensor<float, 2>(f(xt::xtensor<float, 2>({{7.f}, {8.f}}))) == xt::xtensor<float, 2>({{0.f}, {0.f}})));
  xt::xtensor<float, 2> big = xt::zeros<float>({300, 700});
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1, 1);
  for (auto& v : big) v = u(rng);
  auto g = sf::function([](auto a) { return sf::cumsum(a, sf::axes<0>{}) + sf::cumprod(a * 0.01f + 1.f, sf::axes<1>{}); });
  const xt::xtensor<float, 2> one = g(big);
  sf::set_num_threads(2);
  const xt::xtensor<float, 2> two = g(big);
  sf::set_num_threads(1);
  CHECK((one == two));
  sf::run_functions_eagerly(true);
  const xt::xtensor<float, 2> eager = g(big);
  sf::run_functions_eagerly(false);
  CHECK((eager == one));
  const std::string listing = f.get_concrete_function(big).graph_string();
  CHECK(listing.find("Cumsum[axis=1, exclusive]") != std::string::npos);
}
