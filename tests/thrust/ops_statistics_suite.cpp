// Ops the backend suite's other files do not reach, on the suite's backend against the CPU backend
// in the same build (against_cpu.hpp): variance / std / euclidean norm, batch_normalization and its
// gradient, the random key ops (split, fold_in), the counted segment_sum, and top_k's two device
// paths (selection per line, sorting lines). Contractions, unstack and 1-D pooling:
// ops_contractions_suite.cpp. (Not named test_*.cpp: tests/thrust's own CMakeLists builds it into
// each suite.)
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

#include <xtensor/xview.hpp>

#include "against_cpu.hpp"

using namespace against_cpu;

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
