// sf::tensordot with axis pairs (graph/einsum.hpp: tf.tensordot(a, b, axes=[a_axes, b_axes])) against
// numpy's einsum written out: pairs in any order, negative axes, nothing contracted, every axis
// contracted, static shapes kept, size 0 and 1, the listing (a matmul-shaped pair is one
// dot_general), eager mode, and the run-time error of paired axes that differ. Its own TU: the
// einsum tests are at the compile budget. Gradients: tests/autodiff/test_tensordot.cpp.
#include <catch2/catch.hpp>

#include <xtensor/xfixed.hpp>

#include "einsum_reference.hpp"

namespace sf = staticflow;
using Catch::Matchers::Contains;
using namespace einsum_reference;

TEST_CASE("tensordot with axis pairs equals the einsum it names, on random extents", "[graph][einsum]") {
  auto f = sf::function([](auto a, auto b) {
    return std::tuple{sf::tensordot(a, b, sf::axes<1, 0>{}, sf::axes<0, 2>{}),  // ijk,jlm... pairs (j, i) with b's (0, 2)
                      sf::tensordot(a, b, sf::axes<-1>{}, sf::axes<1>{}),        // a's last with b's middle
                      sf::tensordot(a, b, sf::axes<>{}, sf::axes<>{})};           // nothing: the outer product
  });
  for (int round = 0; round < 4; ++round) {
    const std::size_t i = rng()() % 4, j = 1 + rng()() % 3, k = 1 + rng()() % 3, m = rng()() % 3;
    const auto a = random_tensor<3>({i, j, k});
    const auto b = random_tensor<3>({j, k, i});
    INFO("a " << i << "x" << j << "x" << k);
    const auto [pairs, last, outer] = f(a, b);
    CHECK(xt::allclose(xt::xarray<double>(pairs), reference_einsum("ijk,jli->kl", {a, b})));
    CHECK(xt::allclose(xt::xarray<double>(last), reference_einsum("ijk,lkm->ijlm", {a, b})));
    CHECK(xt::allclose(xt::xarray<double>(outer), reference_einsum("ijk,lmn->ijklmn", {a, b})));
    (void)m;
  }
  CHECK(f.tracing_count() == 1);
}

TEST_CASE("tensordot pairs: static shapes, every axis contracted, the matmul case's listing, eager", "[graph][einsum]") {
  auto f = sf::function([](auto a, auto b) {
    return std::tuple{sf::tensordot(a, b, sf::axes<0>{}, sf::axes<1>{}), sf::tensordot(a, sf::transpose(b), sf::axes<0, 1>{}, sf::axes<0, 1>{})};
  });
  const xt::xtensor_fixed<float, xt::xshape<2, 3>> a = {{1, 2, 3}, {4, 5, 6}};
  const xt::xtensor_fixed<float, xt::xshape<3, 2>> b = {{1, 0}, {0, 1}, {1, 1}};
  const auto [ab, full] = f(a, b);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(ab)>, xt::xtensor_fixed<float, xt::xshape<3, 3>>>);
  CHECK((ab == xt::xtensor_fixed<float, xt::xshape<3, 3>>{{1, 4, 5}, {2, 5, 7}, {3, 6, 9}}));  // a^T b^T: (b a)^T
  CHECK(full == 1 + 5 + 3 + 6);  // <a, b^T>: every axis contracted, a scalar
  auto mm = sf::function([](auto x, auto y) { return sf::tensordot(x, y, sf::axes<1>{}, sf::axes<0>{}); });
  CHECK_THAT(mm.get_concrete_function(sf::spec<float, 2, 3>{}, sf::spec<float, 3, 4>{}).graph_string(), Contains(" = MatMul "));
  const auto m = random_tensor<2>({2, 3}), n = random_tensor<2>({3, 4});
  const xt::xtensor<double, 2> traced = mm(m, n);
  sf::run_functions_eagerly(true);
  const xt::xtensor<double, 2> eager = mm(m, n);
  sf::run_functions_eagerly(false);
  CHECK(xt::allclose(traced, reference_einsum("ij,jk->ik", {m, n})));
  CHECK(xt::allclose(eager, traced));
  // paired axes of different run-time extents
  CHECK_THROWS_AS(mm(random_tensor<2>({2, 3}), random_tensor<2>({4, 4})), sf::shape_error);
  // size 0 along a contracted pair: zeros
  const xt::xtensor<double, 2> empty = mm(random_tensor<2>({2, 0}), random_tensor<2>({0, 4}));
  CHECK((empty == xt::zeros<double>({2, 4})));
}
