// Gradients through a while loop whose body holds an sf::switch_case chosen by the loop counter
// (autodiff/loop_backprop.hpp, as test_while_loop_cond.cpp's conds): against central differences
// in float64, with the branch taken changing from one iteration to the next.
#include <cmath>
#include <cstdint>
#include <tuple>

#include <xtensor/xtensor.hpp>

#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("while_loop: a body whose sf::switch_case is chosen by the loop counter") {
  // the counter picks one of three updates of h: every branch runs in some iteration
  const auto fn = [](auto h0, auto b, auto n) {
    const auto [i, h] = sf::while_loop([&](auto i, auto) { return i < n; },
                                       [&](auto i, auto h) {
                                         return std::tuple{i + 1, sf::switch_case(i % 3, [&] { return sf::tanh(h * b); },
                                                                                  [&] { return h * h * 0.5; },
                                                                                  [&] { return h - b; })};
                                       },
                                       std::int32_t{0}, h0);
    return h;
  };
  for (std::int32_t n : {1, 3, 5}) {
    INFO("trip count " << n);
    const auto h0 = random_tensor<2>({extent(1, 3), extent(1, 5)}, -1, 1);
    const double b = uniform(-1, 1);
    CHECK(check_gradients_of(std::index_sequence<0, 1>{}, fn, h0, b, n) == h0.size() + 1);
  }
}
