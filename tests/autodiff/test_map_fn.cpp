// Gradients through sf::map_fn (a scan without a carry: each element's function, its results
// stacked; autodiff/loop_backprop.hpp) against central differences in float64.
#include <cmath>
#include <tuple>

#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("map_fn: the gradient of each element's function") {
  const auto fn = [](auto xs, auto w) { return sf::map_fn([&](auto x) { return sf::sin(x * w) * x; }, xs); };
  xt::xtensor_fixed<double, xt::xshape<4, 2>> xs;
  xt::xtensor_fixed<double, xt::xshape<2>> w;
  fill(xs, -1.5, 1.5);
  fill(w, -1, 1);
  CHECK(check_gradients(fn, xs, w) == 10);
}
