// sf::einsum's other forms (graph/einsum.hpp) against numpy.einsum written out
// (einsum_reference.hpp): a label twice in one operand (a diagonal, graph::diag_part), '...'
// (the axes no label names, broadcast from the right) and three or more operands (pairs from the
// left), with their listings and the run-time error of a diagonal over unequal extents.
#include <catch2/catch.hpp>

#include "einsum_reference.hpp"

namespace sf = staticflow;
using namespace einsum_reference;

TEST_CASE("einsum: a label twice in one operand takes a diagonal, as numpy.einsum", "[graph][einsum]") {
  check_equation<"ii->i", 2>("ii->i");
  check_equation<"ii->", 2>("ii->");
  check_equation<"ii", 2>("ii");              // numpy's implicit output: a trace
  check_equation<"bii->bi", 3>("bii->bi");
  check_equation<"iji->ji", 3>("iji->ji");    // the pair need not be adjacent
  check_equation<"iiii->i", 4>("iiii->i");    // two pairs of one label
  check_equation<"iijj->ij", 4>("iijj->ij");  // two labels
  check_equation<"ii,ij->j", 2, 2>("ii,ij->j");
  check_equation<"ij,jj->ij", 2, 2>("ij,jj->ij");
  auto f = sf::function([](auto x) { return sf::einsum<"ii->i">(x); });
  CHECK(f.get_concrete_function(sf::spec<float, 3, 3>{}).graph_string() ==
        "{ lambda ; a:float32[3,3]. let\n"
        "    b:float32[3] = MatrixDiagPartV3 a\n"
        "  in (b) }\n");
  // one label names one extent: run-time extents that differ throw (static ones do not compile)
  CHECK_THROWS_WITH(f(random_tensor<2>({2, 3})),
                    "staticflow: einsum: a label repeated within one operand names axes of extents 2 and 3 (they must be equal)");
}

TEST_CASE("einsum: '...' stands for the axes no label names, broadcast from the right", "[graph][einsum]") {
  auto f = sf::function([](auto a, auto b, auto v) {
    return std::tuple{sf::einsum<"...ij,...jk->...ik">(a, b), sf::einsum<"...ij,jk->...ik">(a, b), sf::einsum<"i...->...i">(a),
                      sf::einsum<"...ii->...i">(b), sf::einsum<"...j,j">(a, v), sf::einsum<"...">(v)};
  });
  for (int round = 0; round < 6; ++round) {
    std::uniform_int_distribution<std::size_t> extent_of(round == 0 ? 0 : 1, 4);
    const std::size_t p = extent_of(rng()), q = extent_of(rng()), n = extent_of(rng());
    const auto a = random_tensor<3>({p, q, n});
    const auto b = random_tensor<2>({n, n});
    const auto v = random_tensor<1>({n});
    const auto [batched, shared, moved, diagonal, implicit, whole] = f(a, b, v);
    INFO("round " << round << ": " << p << ", " << q << ", " << n);
    CHECK((xt::xarray<double>(batched) == reference_einsum("zij,jk->zik", {a, b})));
    CHECK((xt::xarray<double>(shared) == reference_einsum("zij,jk->zik", {a, b})));
    CHECK((xt::xarray<double>(moved) == reference_einsum("izy->zyi", {a})));
    CHECK((xt::xarray<double>(diagonal) == reference_einsum("ii->i", {b})));
    CHECK((xt::xarray<double>(implicit) == reference_einsum("zyj,j->zy", {a, v})));  // '...' first, then the labels seen once
    CHECK((xt::xarray<double>(whole) == xt::xarray<double>(v)));
  }
  // extents of 1 under '...' broadcast (numpy's rule)
  auto g = sf::function([](auto a, auto b) { return sf::einsum<"...i,...i->...">(a, b); });
  const auto a = random_tensor<2>({1, 3});
  const auto b = random_tensor<2>({4, 3});
  CHECK((xt::xarray<double>(g(a, b)) == reference_einsum("zi,zi->z", {a, b})));
}

TEST_CASE("einsum: three or more operands contract from the left", "[graph][einsum]") {
  check_equation<"ij,jk,kl->il", 2, 2, 2>("ij,jk,kl->il");
  check_equation<"i,i,i->", 1, 1, 1>("i,i,i->");
  check_equation<"ij,jk,ki", 2, 2, 2>("ij,jk,ki");  // implicit output: nothing, a trace of a product
  check_equation<"bi,bj,bk,ijk->b", 2, 2, 2, 3>("bi,bj,bk,ijk->b");
  check_equation<"ij,jk,kl,lm,mi->i", 2, 2, 2, 2, 2>("ij,jk,kl,lm,mi->i");
  auto f = sf::function([](auto a, auto b, auto c) { return sf::einsum<"ij,jk,kl->il">(a, b, c); });
  CHECK(f.get_concrete_function(sf::spec<float, 2, 3>{}, sf::spec<float, 3, 4>{}, sf::spec<float, 4, 5>{}).graph_string() ==
        "{ lambda ; a:float32[2,3] b:float32[3,4] c:float32[4,5]. let\n"
        "    d:float32[2,4] = MatMul a b\n"
        "    e:float32[2,5] = MatMul d c\n"
        "  in (e) }\n");
}

TEST_CASE("einsum: output labels of one operand beside its free label are batches the other broadcasts over", "[graph][einsum]") {
  check_equation<"bsi,io->bso", 3, 2>("bsi,io->bso");  // EinsumDense's "abc,cd->abd"
  check_equation<"bsi,io->sbo", 3, 2>("bsi,io->sbo");
  check_equation<"io,bsi->obs", 2, 3>("io,bsi->obs");
  check_equation<"abi,cij->abcj", 3, 3>("abi,cij->abcj");  // a, b batches of one side; c of the other
  check_equation<"bi,bsio->bso", 2, 4>("bi,bsio->bso");
  auto f = sf::function([](auto x, auto w) { return sf::einsum<"bsi,io->bso">(x, w); });
  CHECK(f.get_concrete_function(sf::spec<float, 2, 5, 3>{}, sf::spec<float, 3, 4>{}).graph_string() ==
        "{ lambda ; a:float32[2,5,3] b:float32[3,4]. let\n"
        "    c:float32[1,3,4] = ExpandDims[axis=0] b\n"
        "    d:float32[2,5,4] = BatchMatMulV2 a c\n"
        "  in (d) }\n");
}

