// Gradients through a while_loop with two coupled float variables whose results the target both
// reads (autodiff/loop_backprop.hpp): one reverse loop per result read, against central
// differences in float64. (Its own file: 30 s and 3.4 GB of g++, the most of any loop gradient.)
#include <cstdint>
#include <tuple>

#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("while_loop: two coupled float variables, both outputs read") {
  // (h, c) <- (h * w + c * c, c * 0.9 + h): the target reads both results, so each sends its
  // cotangent into its own reverse loop (the stacked forward loop is computed once)
  const auto fn = [](auto h0, auto c0, auto w, auto n) {
    const auto [i, h, c] = sf::while_loop(
        [&](auto i, auto, auto) { return i < n; },
        [&](auto i, auto h, auto c) { return std::tuple{i + 1, h * w + c * c, c * 0.9 + h}; },
        std::int32_t{0}, h0, c0);
    return sf::reduce_sum(h * h) + sf::reduce_sum(c * 3.);
  };
  for (std::int32_t n : {1, 4}) {
    INFO("trip count " << n);
    xt::xtensor_fixed<double, xt::xshape<2, 3>> h0, c0, w;
    fill(h0, -1, 1);
    fill(c0, -1, 1);
    fill(w, -0.8, 0.8);
    CHECK(check_gradients_of(std::index_sequence<0, 1, 2>{}, fn, h0, c0, w, n) == 18);
  }
}

