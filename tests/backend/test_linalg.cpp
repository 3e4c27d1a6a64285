// Tests for graph/matmul.hpp + backend/cpu/linalg.hpp: sf::matmul in graphs (the seed's
// dense_layer), NumPy's rank rules, batched broadcasting, mixed dtypes and shape errors.
#include <catch2/catch.hpp>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

namespace {
template <class T, std::size_t N>
xt::xtensor<T, N> iota_tensor(std::array<std::size_t, N> shape, T offset = 0) {
  auto t = xt::xtensor<T, N>::from_shape(shape);
  for (std::size_t i = 0; i < t.size(); ++i) t.flat(i) = static_cast<T>(i) + offset;
  return t;
}
}  // namespace

TEST_CASE("seed 002: dense_layer(ones(3, 2), ones(2, 2), ones(2)) is all 3s", "[linalg][seed]") {
  auto dense_layer = sf::function([](auto x, auto w, auto b) { return sf::matmul(x, w) + b; });
  xt::xtensor_fixed<float, xt::xshape<3, 2>> x;
  xt::xtensor_fixed<float, xt::xshape<2, 2>> w;
  xt::xtensor_fixed<float, xt::xshape<2>> b;
  x.fill(1.f);
  w.fill(1.f);
  b.fill(1.f);
  auto r = dense_layer(x, w, b);
  static_assert(std::is_same_v<decltype(r), xt::xtensor_fixed<float, xt::xshape<3, 2>>>);
  for (float v : r) CHECK(v == 3.f);
}

TEST_CASE("matmul follows NumPy's rules for ranks 1 and 2", "[linalg]") {
  auto mm = sf::function([](auto a, auto b) { return sf::matmul(a, b); });
  const auto a = iota_tensor<double, 2>({2, 3});          // [[0 1 2] [3 4 5]]
  const auto b = iota_tensor<double, 2>({3, 2}, -2.0);    // [[-2 -1] [0 1] [2 3]]
  const xt::xtensor<double, 1> v3 = {1, 2, 3};
  const xt::xtensor<double, 1> v2 = {1, -1};
  CHECK((mm(a, b) == xt::xtensor<double, 2>{{4, 7}, {4, 16}}));
  CHECK((mm(a, v3) == xt::xtensor<double, 1>{8, 26}));     // matrix x vector
  CHECK((mm(v2, a) == xt::xtensor<double, 1>{-3, -3, -3})); // vector x matrix
  CHECK(mm(v3, v3) == 14.0);                                 // vector x vector
}

TEST_CASE("batched matmul broadcasts leading dimensions", "[linalg]") {
  auto mm = sf::function([](auto a, auto b) { return sf::matmul(a, b); });
  const auto a = iota_tensor<float, 3>({2, 2, 3});
  const auto b = iota_tensor<float, 2>({3, 2});
  const auto c = iota_tensor<float, 4>({3, 1, 3, 2});
  auto r = mm(a, b);
  REQUIRE(r.shape() == std::array<std::size_t, 3>{2, 2, 2});
  for (std::size_t n = 0; n < 2; ++n)
    for (std::size_t i = 0; i < 2; ++i)
      for (std::size_t j = 0; j < 2; ++j) {
        float want = 0;
        for (std::size_t k = 0; k < 3; ++k) want += a(n, i, k) * b(k, j);
        CHECK(r(n, i, j) == want);
      }
  auto r4 = mm(a, c);  // (2,2,3) x (3,1,3,2) -> (3,2,2,2)
  REQUIRE(r4.shape() == std::array<std::size_t, 4>{3, 2, 2, 2});
  for (std::size_t p = 0; p < 3; ++p)
    for (std::size_t n = 0; n < 2; ++n)
      for (std::size_t i = 0; i < 2; ++i)
        for (std::size_t j = 0; j < 2; ++j) {
          float want = 0;
          for (std::size_t k = 0; k < 3; ++k) want += a(n, i, k) * c(p, 0, k, j);
          CHECK(r4(p, n, i, j) == want);
        }
}

TEST_CASE("matmul inside a graph: fused epilogue, mixed dtypes, a large product", "[linalg]") {
  auto f = sf::function([](auto x, auto w) { return sf::relu(sf::matmul(x, w) * 2 - 1); });
  const xt::xtensor<int, 2> x = {{1, 2}, {3, 4}};
  const xt::xtensor<float, 2> w = {{0.5f, -1.f}, {0.25f, 1.f}};
  auto r = f(x, w);  // int x float promotes to float
  static_assert(std::is_same_v<decltype(r), xt::xtensor<float, 2>>);
  CHECK((r == xt::xtensor<float, 2>{{1.f, 1.f}, {4.f, 1.f}}));

  const std::size_t n = 130;
  auto a = iota_tensor<double, 2>({n, n});
  auto b = iota_tensor<double, 2>({n, n});
  for (auto& e : a) e = std::fmod(e, 7.0) - 3;
  for (auto& e : b) e = std::fmod(e, 5.0) - 2;
  auto big = sf::function([](auto p, auto q) { return sf::matmul(p, q); })(a, b);
  for (std::size_t i = 0; i < n; i += 17)
    for (std::size_t j = 0; j < n; j += 13) {
      double want = 0;
      for (std::size_t k = 0; k < n; ++k) want += a(i, k) * b(k, j);
      CHECK(big(i, j) == want);  // small integers: exact in double
    }
}

TEST_CASE("matmul shape errors: run-time inner dimensions", "[linalg]") {
  auto mm = sf::function([](auto a, auto b) { return sf::matmul(a, b); });
  const auto a = iota_tensor<float, 2>({2, 3});
  const auto b = iota_tensor<float, 2>({2, 3});
  CHECK_THROWS_MATCHES(mm(a, b), sf::shape_error,
                       Catch::Message("staticflow: matmul: shapes (2, 3) and (2, 3) have inner dimensions 3 and 2"));
}
