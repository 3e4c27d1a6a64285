// sf::linalg::diag_part / set_diag / diag / trace (graph/linalg.hpp, backend/cpu/diagonal.hpp) as
// tf.linalg's: square, wide and tall matrices, batches, size 0 and 1, static and run-time shapes,
// integers, threads, eager mode, the listing, and the run-time shape error thrown before any
// effect. Gradients: tests/autodiff/test_linalg.cpp; einsum's diagonals: tests/graph/test_einsum.cpp.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>

#include <xtensor/xfixed.hpp>
#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

namespace {
std::mt19937& rng() {
  static std::mt19937 g(2026'11'28);
  return g;
}

xt::xtensor<double, 3> random_batch(std::size_t b, std::size_t m, std::size_t n) {
  xt::xtensor<double, 3> x = xt::zeros<double>({b, m, n});
  std::uniform_int_distribution<int> u(-9, 9);
  for (auto& v : x) v = u(rng());
  return x;
}

/// tf.linalg.diag_part written out.
xt::xtensor<double, 2> reference_diag_part(const xt::xtensor<double, 3>& x) {
  const std::size_t k = std::min(x.shape(1), x.shape(2));
  xt::xtensor<double, 2> d = xt::zeros<double>({x.shape(0), k});
  for (std::size_t b = 0; b < x.shape(0); ++b)
    for (std::size_t i = 0; i < k; ++i) d(b, i) = x(b, i, i);
  return d;
}
}  // namespace

TEST_CASE("linalg: diag_part, set_diag and trace of random batches, wide, tall, 0 and 1 extents", "[graph][linalg]") {
  auto f = sf::function([](auto x, auto d) {
    return std::tuple{sf::linalg::diag_part(x), sf::linalg::set_diag(x, d), sf::linalg::trace(x)};
  });
  std::uniform_int_distribution<std::size_t> extent(0, 5);
  for (int round = 0; round < 20; ++round) {
    const std::size_t b = round < 2 ? std::size_t(round) : extent(rng()), m = round == 2 ? 1 : extent(rng()), n = extent(rng());
    const auto x = random_batch(b, m, n);
    const auto expected = reference_diag_part(x);
    xt::xtensor<double, 2> d = expected * 10.0 + 1.0;
    const auto [part, replaced, tr] = f(x, d);
    INFO("round " << round << ": [" << b << ", " << m << ", " << n << "]");
    CHECK((part == expected));
    auto written = x;
    for (std::size_t k = 0; k < b; ++k)
      for (std::size_t i = 0; i < d.shape(1); ++i) written(k, i, i) = d(k, i);
    CHECK((replaced == written));
    REQUIRE(tr.shape(0) == b);
    for (std::size_t k = 0; k < b; ++k) CHECK(tr(k) == xt::sum(xt::view(expected, k))());
  }
}

TEST_CASE("linalg: static shapes stay static; diag builds square matrices", "[graph][linalg]") {
  auto f = sf::function([](auto x, auto v) {
    return std::tuple{sf::linalg::diag_part(x), sf::linalg::trace(x), sf::linalg::diag(v), sf::linalg::diag(sf::linalg::diag_part(x))};
  });
  const xt::xtensor_fixed<float, xt::xshape<2, 3>> x = {{1, 2, 3}, {4, 5, 6}};
  const xt::xtensor_fixed<float, xt::xshape<2, 2>> v = {{1, 2}, {3, 4}};
  const auto [part, tr, squares, again] = f(x, v);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(part)>, xt::xtensor_fixed<float, xt::xshape<2>>>);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(squares)>, xt::xtensor_fixed<float, xt::xshape<2, 2, 2>>>);
  CHECK((part == xt::xtensor_fixed<float, xt::xshape<2>>{1, 5}));
  CHECK(static_cast<float>(tr) == 6.f);
  CHECK((squares == xt::xtensor_fixed<float, xt::xshape<2, 2, 2>>{{{1, 0}, {0, 2}}, {{3, 0}, {0, 4}}}));
  CHECK((again == xt::xtensor_fixed<float, xt::xshape<2, 2>>{{1, 0}, {0, 5}}));
  // a run-time diagonal: diag's zeros come from its shape
  auto g = sf::function([](auto u) { return sf::linalg::diag(u); });
  CHECK((g(xt::xtensor<std::int32_t, 1>{7, -1, 2}) == xt::xtensor<std::int32_t, 2>{{7, 0, 0}, {0, -1, 0}, {0, 0, 2}}));
  CHECK((g(xt::xtensor<std::int32_t, 1>{}).size() == 0));
  CHECK(g.get_concrete_function(sf::spec<float, 4>{}).graph_string() ==
        "{ lambda ; a:float32[4]. let\n"
        "    b:float32[4,4] = BroadcastTo[shape=(4, 4)] 0.0:float32[]\n"
        "    c:float32[4,4] = MatrixSetDiagV3 b a\n"
        "  in (c) }\n");
}

TEST_CASE("linalg: set_diag's diagonal must fit; the error comes before any effect", "[graph][linalg]") {
  sf::variable<float> calls(0.f);
  auto f = sf::function([&](auto x, auto d) {
    calls.assign_add(1.f);
    return sf::linalg::set_diag(x, d);
  });
  const xt::xtensor<float, 2> x{{1, 2, 3}, {4, 5, 6}};
  CHECK((f(x, xt::xtensor<float, 1>{0, 0}) == xt::xtensor<float, 2>{{0, 2, 3}, {4, 0, 6}}));
  CHECK(calls.value() == 1.f);
  CHECK_THROWS_WITH(f(x, xt::xtensor<float, 1>{0, 0, 0}),
                    "staticflow: set_diag: a diagonal of shape (3,) for matrices of shape (2, 3) (expected (2,))");
  CHECK(calls.value() == 1.f);
  sf::run_functions_eagerly(true);
  CHECK((f(x, xt::xtensor<float, 1>{9, 8}) == xt::xtensor<float, 2>{{9, 2, 3}, {4, 8, 6}}));
  CHECK_THROWS_AS(f(x, xt::xtensor<float, 1>{1}), sf::shape_error);
  sf::run_functions_eagerly(false);
  CHECK(calls.value() == 2.f);
}

TEST_CASE("linalg: eager mode and two threads give the traced values", "[graph][linalg]") {
  auto f = sf::function([](auto x) { return std::tuple{sf::linalg::diag_part(x), sf::linalg::set_diag(x, -sf::linalg::diag_part(x))}; });
  const auto x = random_batch(3000, 7, 5);  // enough work for threads_for to split the matrices
  const auto [part, replaced] = f(x);
  const auto saved = sf::num_threads();
  sf::set_num_threads(2);
  const auto [part2, replaced2] = f(x);
  sf::set_num_threads(saved);
  sf::run_functions_eagerly(true);
  const auto [eager_part, eager_replaced] = f(x);
  sf::run_functions_eagerly(false);
  CHECK((part == reference_diag_part(x)));
  CHECK((part2 == part));
  CHECK((eager_part == part));
  CHECK((replaced2 == replaced));
  CHECK((eager_replaced == replaced));
  CHECK(replaced(17, 3, 3) == -x(17, 3, 3));
  CHECK(replaced(17, 3, 2) == x(17, 3, 2));
  CHECK(f.get_concrete_function(sf::spec<double, sf::dyn, 7, 5>{}).graph_string().find("MatrixDiagPartV3") != std::string::npos);
}
