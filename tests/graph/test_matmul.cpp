// sf::matmul's transpose_a / transpose_b (adjoint_a / adjoint_b) options and sf::matrix_transpose
// (graph/matmul.hpp) as tf.linalg.matmul's and tf.linalg.matrix_transpose: every combination
// against the product written out, batched operands, static shapes and the listing.
#include <catch2/catch.hpp>

#include <random>

#include <xtensor/xfixed.hpp>
#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

namespace {
/// c = op(a) op(b) for 2-D a, b, with op the transpose where asked.
xt::xtensor<double, 2> product(const xt::xtensor<double, 2>& a, const xt::xtensor<double, 2>& b, bool ta, bool tb) {
  const std::size_t m = ta ? a.shape(1) : a.shape(0), k = ta ? a.shape(0) : a.shape(1), n = tb ? b.shape(0) : b.shape(1);
  xt::xtensor<double, 2> c = xt::zeros<double>({m, n});
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j)
      for (std::size_t p = 0; p < k; ++p) c(i, j) += (ta ? a(p, i) : a(i, p)) * (tb ? b(j, p) : b(p, j));
  return c;
}

xt::xtensor<double, 2> random_matrix(std::size_t r, std::size_t c, std::mt19937& rng) {
  xt::xtensor<double, 2> x = xt::zeros<double>({r, c});
  std::uniform_int_distribution<int> u(-9, 9);
  for (auto& v : x) v = u(rng);
  return x;
}
}  // namespace

TEST_CASE("matmul options: every transpose combination on random extents", "[graph][matmul]") {
  std::mt19937 rng(4);
  auto f = sf::function([](auto a, auto at, auto b, auto bt) {
    return std::tuple{sf::matmul(at, b, sf::transpose_a), sf::matmul(a, bt, sf::transpose_b),
                      sf::matmul(at, bt, sf::transpose_a, sf::transpose_b), sf::matmul(at, bt, sf::adjoint_b, sf::adjoint_a)};
  });
  for (int round = 0; round < 8; ++round) {
    const std::size_t m = 1 + rng() % 6, k = rng() % 7, n = 1 + rng() % 5;  // k = 0: zeros
    INFO(m << " x " << k << " x " << n);
    const auto a = random_matrix(m, k, rng), b = random_matrix(k, n, rng);
    const xt::xtensor<double, 2> at = xt::transpose(a), bt = xt::transpose(b);
    const auto [c1, c2, c3, c4] = f(a, at, b, bt);
    const auto want = product(a, b, false, false);
    CHECK((c1 == want));
    CHECK((c2 == want));
    CHECK((c3 == want));
    CHECK((c4 == want));
    CHECK((product(at, b, true, false) == want));
  }
}

TEST_CASE("matmul options: batched operands, static shapes, matrix_transpose, the listing", "[graph][matmul]") {
  xt::xtensor_fixed<float, xt::xshape<2, 3, 2>> a;
  for (std::size_t i = 0; i < a.size(); ++i) a.data()[i] = static_cast<float>(i);
  const xt::xtensor_fixed<float, xt::xshape<4, 3>> b{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}};
  auto f = sf::function([](auto x, auto y) { return std::tuple{sf::matmul(x, y, sf::transpose_a, sf::transpose_b), sf::matrix_transpose(x)}; });
  const auto [c, xt_] = f(a, b);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(c)>, xt::xtensor_fixed<float, xt::xshape<2, 2, 4>>>);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(xt_)>, xt::xtensor_fixed<float, xt::xshape<2, 2, 3>>>);
  // batch 0: a[0] = [[0, 1], [2, 3], [4, 5]], a[0]^T = [[0, 2, 4], [1, 3, 5]]; times b^T picks columns and sums
  CHECK((xt::xtensor<float, 3>(c) == xt::xtensor<float, 3>{{{0, 2, 4, 6}, {1, 3, 5, 9}}, {{6, 8, 10, 24}, {7, 9, 11, 27}}}));
  CHECK((xt::xtensor<float, 3>(xt_) == xt::xtensor<float, 3>{{{0, 2, 4}, {1, 3, 5}}, {{6, 8, 10}, {7, 9, 11}}}));
  const std::string listing = f.get_concrete_function(sf::spec<float, 2, 3, 2>{}, sf::spec<float, 4, 3>{}).graph_string();
  CHECK(listing.find("Transpose[permutation=(0,2,1)]") != std::string::npos);
  CHECK(listing.find("Transpose[permutation=(1,0)]") != std::string::npos);
}
