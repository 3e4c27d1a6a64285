// Ops the backend suite's other files do not reach, on the suite's backend against the CPU backend
// in the same build (against_cpu.hpp): tensordot with axis pairs, matmul's transpose_a /
// transpose_b (transposed operands read in place, batched and in a gradient), unstack, reductions,
// expand_dims and squeeze along plain int axes with gradients, reduce_prod's gradient (exclusive
// cumprods), and 1-D pooling. Statistics, random keys, segment_sum and top_k: ops_statistics_suite.cpp;
// the convolutions, and the gradients of tensordot and pooling: layers_suite.cpp,
// layers_gradient_suite.cpp. (Not named test_*.cpp: tests/thrust's own CMakeLists builds it into
// each suite.)
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
