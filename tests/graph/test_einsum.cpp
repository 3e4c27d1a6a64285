// sf::einsum and sf::tensordot (graph/einsum.hpp) against einsum written out as loops over every
// label's values: random extents (0 and 1 included), static shapes, numpy's implicit output, the
// two paths' listings (one dot_general; a fused multiply and reduction), size-1 broadcasting and
// the run-time errors. Diagonals, '...' and more operands: test_einsum_forms.cpp; gradients:
// tests/autodiff/test_einsum.cpp; eager mode: test_eager_parity.cpp.
#include <catch2/catch.hpp>

#include <xtensor/xfixed.hpp>

#include "einsum_reference.hpp"

namespace sf = staticflow;
using Catch::Matchers::Contains;
using namespace einsum_reference;

TEST_CASE("einsum equals the written-out sum on random extents, 0 and 1 included", "[graph][einsum]") {
  check_equation<"ij,jk->ik", 2, 2>("ij,jk->ik");        // matmul
  check_equation<"ij,kj->ik", 2, 2>("ij,kj->ik");        // a b^T
  check_equation<"ji,jk->ik", 2, 2>("ji,jk->ik");        // a^T b
  check_equation<"ij,jk->ki", 2, 2>("ij,jk->ki");        // (a b)^T, as b^T a^T
  check_equation<"bij,bjk->bik", 3, 3>("bij,bjk->bik");  // batched
  check_equation<"bij,bkj->bki", 3, 3>("bij,bkj->bki");
  check_equation<"ibj,jb->bi", 3, 2>("ibj,jb->bi");      // batch label in the middle
  check_equation<"ij,j->i", 2, 1>("ij,j->i");            // matrix-vector
  check_equation<"j,jk->k", 1, 2>("j,jk->k");
  check_equation<"i,i->", 1, 1>("i,i->");                // dot product (fused)
  check_equation<"ij,ij->i", 2, 2>("ij,ij->i");          // row dots (fused)
  check_equation<"ij,ij->ij", 2, 2>("ij,ij->ij");        // elementwise
  check_equation<"i,j->ij", 1, 1>("i,j->ij");            // outer product
  check_equation<"ijk,jk->i", 3, 2>("ijk,jk->i");        // two contracted labels (fused)
  check_equation<"ijk,kl->ijl", 3, 2>("ijk,kl->ijl");    // two free labels on a side (fused)
  check_equation<"ij,jk->", 2, 2>("ij,jk->");            // everything summed
  check_equation<"ij,k->ikj", 2, 1>("ij,k->ikj");
  check_equation<"ij->ji", 2>("ij->ji");                 // one operand
  check_equation<"ij->", 2>("ij->");
  check_equation<"ijk->kj", 3>("ijk->kj");
  check_equation<"ij->ij", 2>("ij->ij");
}

TEST_CASE("einsum without '->' takes numpy's implicit output: the labels seen once, alphabetically", "[graph][einsum]") {
  check_equation<"ij,jk", 2, 2>("ij,jk");  // -> ik
  check_equation<"ba", 2>("ba");          // -> ab: a transpose
  check_equation<"i,i", 1, 1>("i,i");     // -> a scalar
  check_equation<"Ab,bc", 2, 2>("Ab,bc");  // upper case sorts first
}

TEST_CASE("einsum on static shapes keeps them static", "[graph][einsum]") {
  auto f = sf::function([](auto a, auto b) {
    return std::tuple{sf::einsum<"ij,jk->ki">(a, b), sf::einsum<"ij,ij->j">(a, sf::transpose(b)), sf::tensordot<1>(a, b)};
  });
  xt::xtensor_fixed<float, xt::xshape<2, 3>> a = {{1, 2, 3}, {4, 5, 6}};
  xt::xtensor_fixed<float, xt::xshape<3, 2>> b = {{1, 0}, {0, 1}, {1, 1}};
  const auto [c, d, e] = f(a, b);
  using C = std::remove_cvref_t<decltype(c)>;
  STATIC_REQUIRE(std::is_same_v<C, xt::xtensor_fixed<float, xt::xshape<2, 2>>>);
  CHECK((c == xt::xtensor_fixed<float, xt::xshape<2, 2>>{{4, 10}, {5, 11}}));
  CHECK((d == xt::xtensor_fixed<float, xt::xshape<3>>{1, 5, 9}));
  CHECK((e == xt::xtensor_fixed<float, xt::xshape<2, 2>>{{4, 5}, {10, 11}}));
}

TEST_CASE("tensordot contracts a's last N axes with b's first N", "[graph][einsum]") {
  auto f = sf::function([](auto a, auto b, auto c) { return std::tuple{sf::tensordot<2>(a, b), sf::tensordot<0>(c, c)}; });
  const auto a = random_tensor<3>({2, 3, 4});
  const auto b = random_tensor<3>({3, 4, 5});
  const auto c = random_tensor<1>({3});
  const auto [two, outer] = f(a, b, c);
  CHECK((xt::xarray<double>(two) == reference_einsum("ijk,jkl->il", {a, b})));
  CHECK((xt::xarray<double>(outer) == reference_einsum("i,j->ij", {c, c})));
  auto one = sf::function([](auto x, auto y) { return sf::tensordot<1>(x, y); });
  const auto m = random_tensor<2>({2, 3});
  const auto n = random_tensor<2>({3, 4});
  CHECK((xt::xarray<double>(one(m, n)) == reference_einsum("ij,jk->ik", {m, n})));
}

TEST_CASE("the matmul path lists one dot_general; other equations a fused multiply and reduction", "[graph][einsum]") {
  auto f = sf::function([](auto a, auto b) { return sf::einsum<"bij,bkj->bki">(a, b); });
  CHECK(f.get_concrete_function(sf::spec<float, 2, 3, 4>{}, sf::spec<float, 2, 5, 4>{}).graph_string() ==
        "{ lambda ; a:float32[2,3,4] b:float32[2,5,4]. let\n"
        "    c:float32[2,4,3] = Transpose[permutation=(0,2,1)] a\n"
        "    d:float32[2,5,3] = BatchMatMulV2 b c\n"  // b a^T: no transpose of the result
        "  in (d) }\n");
  auto g = sf::function([](auto a, auto b) { return sf::einsum<"ijk,jk->i">(a, b); });
  CHECK(g.get_concrete_function(sf::spec<float, 2, 3, 4>{}, sf::spec<float, 3, 4>{}).graph_string() ==
        "{ lambda ; a:float32[2,3,4] b:float32[3,4]. let\n"
        "    c:float32[1,3,4] = ExpandDims[axis=0] b\n"
        "    d:float32[2,3,4] = Mul a c\n"
        "    e:float32[2] = Sum[axes=(1,2)] d\n"
        "  in (e) }\n");
  // row dots have no free label: a batch of dot products is one fused loop, not matmuls of 1x1
  auto h = sf::function([](auto a, auto b) { return sf::einsum<"ij,ij->i">(a, b); });
  CHECK(h.get_concrete_function(sf::spec<float, sf::dyn, 8>{}, sf::spec<float, sf::dyn, 8>{}).to_code() ==
        "auto fn(float32[None,8] a, float32[None,8] b) {\n"
        "  auto c = a * b;  // float32[None,8]: fused into d\n"
        "  auto d = sf::reduce_sum(c /* axes=(1,) */);  // float32[None]: materialized\n"
        "  return d;\n"
        "}\n");
}

TEST_CASE("einsum broadcasts a label of extent 1 as numpy.einsum does; matmul's extents must agree", "[graph][einsum]") {
  auto fused = sf::function([](auto a, auto b) { return sf::einsum<"ij,ij->ij">(a, b); });
  const auto a = random_tensor<2>({1, 3});
  const auto b = random_tensor<2>({4, 3});
  CHECK((xt::xarray<double>(fused(a, b)) == reference_einsum("ij,ij->ij", {a, b})));
  // a contracted label of run-time extents 1 and 3: the matmul path's inner dimensions differ
  auto product = sf::function([](auto x, auto y) { return sf::einsum<"ij,jk->ik">(x, y); });
  CHECK_THROWS_AS(product(random_tensor<2>({2, 1}), random_tensor<2>({3, 4})), sf::shape_error);
  CHECK_THROWS_WITH(product(random_tensor<2>({2, 3}), random_tensor<2>({2, 4})),
                    "staticflow: matmul: shapes (2, 3) and (2, 4) have inner dimensions 3 and 2");
  CHECK_THROWS_AS(fused(random_tensor<2>({2, 3}), random_tensor<2>({3, 3})), sf::shape_error);
}

TEST_CASE("einsum on integers and on a variable", "[graph][einsum]") {
  auto dot = sf::function([](auto u, auto v) { return sf::einsum<"i,i->">(u, v); });
  CHECK((dot(xt::xtensor<int, 1>{1, 2, 3}, xt::xtensor<int, 1>{4, 5, 6}) == 32));
  sf::variable<float, 2, 2> w{{{1.f, 2.f}, {3.f, 4.f}}};
  auto layer = sf::function([&](auto x) { return sf::einsum<"bi,io->bo">(x, w); });
  CHECK((layer(xt::xtensor<float, 2>{{1, 1}}) == xt::xtensor<float, 2>{{4, 6}}));
}

TEST_CASE("einsum over a static extent 0: an empty sum is 0", "[graph][einsum]") {
  auto f = sf::function([](auto a, auto b) { return std::tuple{sf::einsum<"ij,jk->ik">(a, b), sf::einsum<"ij,ij->i">(a, a)}; });
  const xt::xtensor_fixed<float, xt::xshape<2, 0>> a{};
  const xt::xtensor_fixed<float, xt::xshape<0, 3>> b{};
  const auto [c, d] = f(a, b);
  CHECK((c == xt::xtensor_fixed<float, xt::xshape<2, 3>>{{0, 0, 0}, {0, 0, 0}}));
  CHECK((d == xt::xtensor_fixed<float, xt::xshape<2>>{0, 0}));
}
