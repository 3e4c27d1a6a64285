// Gradients through sf::scan and sf::map_fn (loops whose results are tensor arrays; the rule for a
// tensor-array write is in autodiff/rules.hpp, the loop's in autodiff/loop_backprop.hpp): against
// central differences in float64, the carry and the stacked results both read by the target, the
// sequence read by the body; the results' tensor array is not kept per iteration.
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
  // the listing: the stacked forward loop keeps the counter and the carry, not the results' array
  auto g = sf::grad<0, 1>(fn);
  const std::string listing = g.get_concrete_function(xs, w).graph_string();
  CHECK(listing.find("(int32[], float64[3], float64[5,3], int64[], int32[None], float64[None,3]) = While") != std::string::npos);
}

TEST_CASE("map_fn: the gradient of each element's function") {
  const auto fn = [](auto xs, auto w) { return sf::map_fn([&](auto x) { return sf::sin(x * w) * x; }, xs); };
  xt::xtensor_fixed<double, xt::xshape<4, 2>> xs;
  xt::xtensor_fixed<double, xt::xshape<2>> w;
  fill(xs, -1.5, 1.5);
  fill(w, -1, 1);
  CHECK(check_gradients(fn, xs, w) == 10);
}
