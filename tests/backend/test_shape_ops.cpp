// Tests for graph/shape_ops.hpp + backend/cpu/shape_ops.hpp: transpose, reshape, expand_dims,
// squeeze, slice, concat, stack, broadcast_to, one_hot, and the composites built on reductions.
#include <catch2/catch.hpp>

#include <cmath>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

TEST_CASE("transpose, reshape, expand_dims and squeeze move elements as NumPy does", "[shape_ops]") {
  auto f = sf::function([](auto m) {
    return std::tuple{sf::transpose(m), sf::reshape<sf::shape<3, 2>>(m), sf::reshape<sf::shape<sf::dyn>>(m),
                      sf::expand_dims(m, sf::axes<1>{}), sf::squeeze(sf::expand_dims(m, sf::axes<0>{}), sf::axes<0>{})};
  });
  xt::xtensor_fixed<int, xt::xshape<2, 3>> m = {{1, 2, 3}, {4, 5, 6}};
  auto [t, r, flat, e, q] = f(m);
  static_assert(std::is_same_v<decltype(t), xt::xtensor_fixed<int, xt::xshape<3, 2>>>);
  static_assert(std::is_same_v<decltype(e), xt::xtensor_fixed<int, xt::xshape<2, 1, 3>>>);
  CHECK((t == xt::xtensor_fixed<int, xt::xshape<3, 2>>{{1, 4}, {2, 5}, {3, 6}}));
  CHECK((r == xt::xtensor_fixed<int, xt::xshape<3, 2>>{{1, 2}, {3, 4}, {5, 6}}));
  CHECK((flat == xt::xtensor<int, 1>{1, 2, 3, 4, 5, 6}));
  CHECK(e(1, 0, 2) == 6);
  CHECK((q == m));

  auto p = sf::function([](auto x) { return sf::transpose(x, sf::axes<1, 2, 0>{}); });
  auto x = xt::xtensor<int, 3>::from_shape({2, 3, 4});
  for (std::size_t i = 0; i < x.size(); ++i) x.flat(i) = static_cast<int>(i);
  auto px = p(x);
  REQUIRE(px.shape() == std::array<std::size_t, 3>{3, 4, 2});
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t j = 0; j < 3; ++j)
      for (std::size_t k = 0; k < 4; ++k) CHECK(px(j, k, i) == x(i, j, k));
}

TEST_CASE("reshape errors at run time", "[shape_ops]") {
  auto f = sf::function([](auto x) { return sf::reshape<sf::shape<sf::dyn, 4>>(x); });
  CHECK(f(xt::xtensor<float, 1>{1, 2, 3, 4, 5, 6, 7, 8}).shape() == std::array<std::size_t, 2>{2, 4});
  CHECK_THROWS_MATCHES(f(xt::xtensor<float, 1>{1, 2, 3}), sf::shape_error,
                       Catch::Message("staticflow: reshape: cannot reshape (3,) to (None, 4)"));
}

TEST_CASE("slice, concat and stack", "[shape_ops]") {
  auto f = sf::function([](auto a, auto b) {
    return std::tuple{sf::slice(a, sf::axes<1>{}, 1, 2), sf::concat<0>(a, b), sf::concat<1>(a, b), sf::stack<0>(a, b),
                      sf::stack<-1>(a, b)};
  });
  xt::xtensor<int, 2> a = {{1, 2, 3}, {4, 5, 6}};
  xt::xtensor<int, 2> b = {{7, 8, 9}, {10, 11, 12}};
  auto [s, c0, c1, s0, s2] = f(a, b);
  CHECK((s == xt::xtensor<int, 2>{{2, 3}, {5, 6}}));
  CHECK((c0 == xt::xtensor<int, 2>{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}, {10, 11, 12}}));
  CHECK((c1 == xt::xtensor<int, 2>{{1, 2, 3, 7, 8, 9}, {4, 5, 6, 10, 11, 12}}));
  CHECK((s0 == xt::xtensor<int, 3>{{{1, 2, 3}, {4, 5, 6}}, {{7, 8, 9}, {10, 11, 12}}}));
  REQUIRE(s2.shape() == std::array<std::size_t, 3>{2, 3, 2});
  CHECK(s2(1, 2, 0) == 6);
  CHECK(s2(1, 2, 1) == 12);
  auto bad = sf::function([](auto x) { return sf::slice(x, sf::axes<0>{}, 1, 5); });
  CHECK_THROWS_MATCHES(bad(a), sf::shape_error,
                       Catch::Message("staticflow: slice: [1, 6) is out of range for axis 0 of shape (2, 3)"));
  xt::xtensor<int, 2> c = {{1, 2}, {3, 4}};
  CHECK_THROWS_MATCHES(f(a, c), sf::shape_error,
                       Catch::Message("staticflow: concat: shapes (2, 3) and (2, 2) differ off axis 0"));
}

TEST_CASE("broadcast_to is fused; one_hot makes float32", "[shape_ops]") {
  auto f = sf::function([](auto r) { return sf::broadcast_to<sf::shape<2, 3>>(r) * 2; });
  xt::xtensor_fixed<int, xt::xshape<3>> r = {1, 2, 3};
  CHECK((f(r) == xt::xtensor_fixed<int, xt::xshape<2, 3>>{{2, 4, 6}, {2, 4, 6}}));
  using F = std::remove_cvref_t<decltype(f.get_concrete_function(r))>;
  STATIC_REQUIRE(F::materialized_count == 0);
  auto oh = sf::function([](auto i) { return sf::one_hot<3>(i); });
  auto h = oh(xt::xtensor<int, 1>{2, 0, 5});  // an index past the depth gives a row of zeros
  static_assert(std::is_same_v<decltype(h), xt::xtensor<float, 2>>);
  CHECK((h == xt::xtensor<float, 2>{{0, 0, 1}, {1, 0, 0}, {0, 0, 0}}));
}

TEST_CASE("softmax, log_softmax, logsumexp and l2_normalize", "[shape_ops][composites]") {
  auto f = sf::function([](auto x) {
    return std::tuple{sf::softmax(x), sf::log_softmax(x), sf::reduce_logsumexp(x, sf::axes<1>{}),
                      sf::l2_normalize(x, sf::axes<1>{}), sf::softmax(x, sf::axes<0>{})};
  });
  xt::xtensor<double, 2> x = {{1, 2, 3}, {1000, 1000, 1001}};
  auto [sm, lsm, lse, l2, sm0] = f(x);
  for (std::size_t i = 0; i < 2; ++i) {
    double total = 0, m = -1e300;
    for (std::size_t j = 0; j < 3; ++j) m = std::max(m, x(i, j));
    for (std::size_t j = 0; j < 3; ++j) total += std::exp(x(i, j) - m);
    double norm = 0;
    for (std::size_t j = 0; j < 3; ++j) norm += x(i, j) * x(i, j);
    for (std::size_t j = 0; j < 3; ++j) {
      CHECK(sm(i, j) == Approx(std::exp(x(i, j) - m) / total));
      CHECK(lsm(i, j) == Approx(x(i, j) - m - std::log(total)));
      CHECK(l2(i, j) == Approx(x(i, j) / std::sqrt(norm)));
    }
    CHECK(lse(i) == Approx(m + std::log(total)));
  }
  CHECK(sm0(0, 0) == Approx(0.0).margin(1e-300));  // exp(1 - 1000) underflows to 0, no NaN
  CHECK(sm0(1, 2) == Approx(1.0));
}
