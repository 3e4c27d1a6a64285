// Gradients through sf::while_loop (autodiff/loop_backprop.hpp) whose loop variables have run-time
// shapes: broadcasting in the body against central differences in float64, and the error for a
// variable whose extents change between iterations. (test_while_loop.cpp: trip counts, captures.)
#include <cmath>
#include <cstdint>
#include <tuple>

#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("while_loop: loop variables of run-time shape, with broadcasting in the body") {
  // v <- sin(v) * w + x over a run-time [rows, 3] variable, w [3] broadcast along the rows
  const auto fn = [](auto x, auto w, auto n) {
    return sf::fori_loop(0, n, [&](auto, auto v) { return sf::sin(v) * w + x; }, x);
  };
  for (std::size_t rows : {1, 2, 5}) {
    INFO("rows " << rows);
    const auto x = random_tensor<2>({rows, 3}, -1, 1);
    const auto w = random_tensor<1>({3}, -1, 1);
    CHECK(check_gradients_of(std::index_sequence<0, 1>{}, fn, x, w, 3) == rows * 3 + 3);
  }
}

TEST_CASE("while_loop: a variable whose extents change between iterations cannot be differentiated") {
  // its stack holds one element shape: the second write throws before any result is written
  auto g = sf::grad([](auto x, auto n) {
    return sf::reduce_sum(sf::fori_loop(0, n, [&](auto, auto v) { return sf::concat<0>(v, v) * 0.5; }, x));
  });
  const xt::xtensor<double, 1> x = {1., 2.};
  CHECK_THROWS_WITH(g(x, 2), "staticflow: tensor_array::write: the element has shape (4,), the array's elements have shape (2,)");
  // one trip writes one element: fine, d/dx sum(concat(x, x) * 0.5) = 1
  const auto d = g(x, 1);
  CHECK(d(0) == 1.);
  CHECK(d(1) == 1.);
}
