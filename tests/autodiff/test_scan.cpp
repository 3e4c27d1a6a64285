// Gradients through sf::scan (a loop whose results are a tensor array; the rule for a tensor-array
// write is in autodiff/rules.hpp, the loop's in autodiff/loop_backprop.hpp): against central
// differences in float64, the carry and the stacked results both read by the target, the sequence
// read by the body. What the gradient's forward loop keeps: test_scan_stacks.cpp; sf::map_fn:
// test_map_fn.cpp.
#include <cmath>
#include <cstdint>
#include <string>
#include <tuple>

#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("scan: a recurrence over a sequence, carry and results read by the target") {
  const auto fn = [](auto xs, auto w) {
    auto [c, ys] = sf::scan([&](auto c, auto x) {
      const auto next = sf::tanh(c * w + x);
      return std::tuple{next, next * next};
    }, w * 0.5, xs);
    return sf::reduce_sum(ys * xs) + sf::reduce_sum(c);
  };
  xt::xtensor_fixed<double, xt::xshape<5, 3>> xs;
  xt::xtensor_fixed<double, xt::xshape<3>> w;
  fill(xs, -1, 1);
  fill(w, -1, 1);
  CHECK(check_gradients(fn, xs, w) == 18);
}
