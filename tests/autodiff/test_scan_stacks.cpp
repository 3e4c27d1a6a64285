// What the forward loop of a gradient through sf::scan keeps for the reverse loop
// (autodiff/loop_backprop.hpp): the counter and the carry, stacked per iteration, and not the
// results' tensor array, which no adjoint reads. Checked on the gradient's listing. (The
// gradient's values: test_scan.cpp.)
#include <string>
#include <tuple>

#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("scan: the gradient's forward loop stacks the counter and the carry, not the results' array") {
  const auto fn = [](auto xs, auto w) {
    auto [c, ys] = sf::scan([&](auto c, auto x) {
      const auto next = sf::tanh(c * w + x);
      return std::tuple{next, next * next};
    }, w * 0.5, xs);
    return sf::reduce_sum(ys * xs) + sf::reduce_sum(c);
  };
  const xt::xtensor_fixed<double, xt::xshape<5, 3>> xs{};
  const xt::xtensor_fixed<double, xt::xshape<3>> w{};
  auto g = sf::grad<0, 1>(fn);
  const std::string listing = g.get_concrete_function(xs, w).graph_string();
  CHECK(listing.find("(int32[], float64[3], float64[5,3], int64[], int32[None], float64[None,3]) = While") != std::string::npos);
}
