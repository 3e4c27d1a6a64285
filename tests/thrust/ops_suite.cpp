// The ops the backend suite's other files do not reach, on the suite's backend against the CPU
// backend in the same build (against_cpu.hpp): tensordot with axis pairs, matmul's transpose_a /
// transpose_b, unstack, 1-D pooling, variance / std / euclidean norm, batch_normalization, the
// random key ops (split, fold_in) and the counted segment_sum, with batch_normalization's
// gradient. The convolutions, and the gradients of tensordot and pooling: layers_suite.cpp. (Not named
// test_*.cpp: tests/thrust's own CMakeLists builds it into each suite.) Transposed matmul operands,
// batched and in a gradient, too; reductions, expand_dims and squeeze along plain int axes, with
// gradients, and reduce_prod's gradient (exclusive cumprods); top_k's two device paths.
#include <cmath>
#include <cstdint>
#include <limits>

#include <xtensor/xview.hpp>

#include "against_cpu.hpp"

using namespace against_cpu;

TEST_CASE("suite: contractions, unstack and pooling in 1-D agree with the CPU backend", "[suite][einsum]") {
  const auto a = random<3>({2, 3, 4}), b = random<3>({3, 5, 2});
  check_against_cpu([](auto p, auto q) { return sf::tensordot(p, q, sf::axes<1, 0>{}, sf::axes<0, 2>{}); }, a, b);
  const auto m = random<2>({4, 3}), n = random<2>({5, 4});
  check_against_cpu([](auto p, auto q) { return std::tuple{sf::matmul(p, q, sf::transpose_a, sf::transpose_b), sf::matmul(q, p)}; }, m, n);
  // transposed operands read in place (plan/transposed_operands.hpp): batched with a broadcast
  // batch axis, and the two products of a dense layer's gradient
  const auto bx = random<3>({3, 6, 4}), by = random<3>({1, 6, 5});
  const auto w = random<2>({3, 2});
  check_against_cpu([](auto p, auto q) { return std::tuple{sf::matmul(p, q, sf::transpose_a), sf::matmul(q, p, sf::transpose_a)}; }, bx, by);
  check_gradient_against_cpu<0, 1>([](auto p, auto q) { return sf::reduce_sum(sf::square(sf::matmul(p, q))); }, m, w);
  check_against_cpu([](auto p) {
    const auto [r0, r1, r2, r3] = sf::unstack(sf::reshape<sf::shape<4, 3>>(p), sf::axes<0>{});  // (unstack: a static count)
    return std::tuple{r0, r1 * 2.0, r2 + r3};
  }, m);
  // plain int axes (numbers the trace keeps): reductions and their gradients, expand_dims / squeeze
  check_against_cpu([](auto p) { return std::tuple{sf::reduce_mean(p, -1, sf::keepdims), sf::squeeze(sf::expand_dims(p, 1), 1)}; }, m);
  check_gradient_against_cpu<0>([](auto p) {
    return sf::reduce_sum(sf::square(p - sf::reduce_mean(p, -1, sf::keepdims)) * sf::reduce_max(p, 0, sf::keepdims)) +
           sf::reduce_sum(sf::expand_dims(sf::reduce_sum(p, 1), 0) * 0.5) + sf::reduce_sum(sf::reduce_prod(p, sf::axes<0>{}));
  }, m);
  const auto line = random<3>({2, 11, 3});
  check_against_cpu([](auto t) { return std::tuple{sf::max_pool1d(t, sf::ksize<3>, sf::strides<2>), sf::avg_pool1d(t, sf::ksize<2>)}; }, line);
}

TEST_CASE("suite: statistics, random keys and the counted segment_sum agree with the CPU backend", "[suite][statistics]") {
  const auto x = random<2>({5, 4});
  const auto off = random<1>({4}), sc = random<1>({4});
  check_against_cpu([](auto t) {
    return std::tuple{sf::reduce_variance(t, sf::axes<0>{}), sf::reduce_std(t, sf::axes<1>{}, sf::keepdims), sf::reduce_euclidean_norm(t)};
  }, x);
  check_against_cpu([](auto t, auto o, auto s) {
    const auto [mean, variance] = sf::moments(t, sf::axes<0>{});
    return sf::batch_normalization(t, mean, variance, o, s, 1e-3);
  }, x, off, sc);
  check_gradient_against_cpu<0, 1, 2>([](auto t, auto o, auto s) {
    const auto [mean, variance] = sf::moments(t, sf::axes<0>{});
    return sf::reduce_sum(sf::square(sf::batch_normalization(t, mean, variance, o, s, 1e-3)));
  }, x, off, sc);
  const xt::xtensor<std::int64_t, 1> seed{12, 34};
  check_against_cpu([](auto s) {
    const auto keys = sf::random::split<3>(s);
    return std::tuple{keys, sf::random::fold_in(s, std::int64_t{7}), sf::random::stateless_uniform(sf::shape<6>{}, keys[1])};
  }, seed);
  const xt::xtensor<std::int32_t, 1> ids{0, 0, 2, 5, 5};
  check_against_cpu([](auto t, auto i) { return sf::segment_sum(t, i) * 2.0; }, x, ids);
}

TEST_CASE("suite: top_k by selection per line and by sorting lines agree with the CPU backend", "[suite][sorting]") {
  // values with many ties (ties keep the lower position first), a NaN (the largest), ascending
  // lines (each value displaces the k-th best: the selection's worst case); k 3 selects per line,
  // k 40 sorts every line (backend/thrust/sorting.hpp)
  auto x = random<2>({6, 50});
  for (auto& v : x) v = std::round(v * 4);
  for (std::size_t j = 0; j < 50; ++j) x(5, j) = double(j) / 8;
  x(2, 7) = std::numeric_limits<double>::quiet_NaN();
  check_against_cpu([](auto t) { return std::get<1>(sf::top_k(t, 3)); }, x);
  check_against_cpu([](auto t) { return std::get<1>(sf::top_k(t, 40)); }, x);
  check_against_cpu([](auto t) { return std::get<0>(sf::top_k(t, 3)) * 2.0; }, xt::xtensor<double, 2>(xt::view(x, xt::range(3, 6), xt::all())));
}
