// Gradients through loops with run-time trip counts whose body holds an sf::cond
// (autodiff/loop_backprop.hpp; the reverse loop rewrites the loop's variables inside the branches
// of the cond's adjoint too: autodiff/backprop.hpp's replace_leaf), and through a cond computed
// before the loop and read inside its body (the differential fuzzer's gradient graph 1015, which
// did not compile). Against central differences in float64, with the branch taken changing from
// one iteration to the next. (sf::scan and sf::map_fn are while loops: the same rewriting serves
// their bodies.) sf::switch_case in a loop body: test_while_loop_switch.cpp.
#include <cmath>
#include <cstdint>
#include <tuple>

#include <xtensor/xtensor.hpp>

#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("fori_loop: a body whose sf::cond reads the loop variable and a captured weight") {
  // v <- v * w while any |v| is above 1, else sin(v) + w: the branch taken changes between
  // iterations, and only its adjoint runs in each reverse iteration
  const auto fn = [](auto x, auto w, auto n) {
    return sf::fori_loop(std::int32_t{0}, n, [&](auto, auto v) {
      return sf::cond(sf::reduce_max(sf::abs(v)) > 1., [&] { return v * w; }, [&] { return sf::sin(v) + w; });
    }, x);
  };
  for (std::int32_t n : {0, 1, 4}) {
    INFO("trip count " << n);
    const std::size_t size = extent(1, 7);
    const auto x = random_tensor<1>({size}, -2, 2);
    const auto w = random_tensor<1>({size}, -1.2, 1.2);
    CHECK(check_gradients_of(std::index_sequence<0, 1>{}, fn, x, w, n) == 2 * size);
  }
}

TEST_CASE("fori_loop: a cond computed before the loop and read in its body (fuzzer graph 1015)") {
  // the body's adjoint with respect to x goes through the cond: a cond node whose branches hold the
  // reverse loop's values (it did not compile: the loop variable stayed in the branches)
  const auto fn = [](auto x) {
    const auto t = sf::cond(sf::reduce_max(x) > 1.5, [&] { return sf::sigmoid(x); }, [&] { return sf::tanh(x); });
    return sf::fori_loop(0, 2, [&](auto, auto v) { return sf::sin(v * (x - t)); }, x);
  };
  // both branches: the largest element above 1.5, and every element below it
  for (const double hi : {2.5, 1.2}) {
    INFO("elements below " << hi);
    const auto x = random_tensor<1>({extent(1, 9)}, -1.5, hi);
    CHECK(check_gradients(fn, x) == x.size());
  }
}
