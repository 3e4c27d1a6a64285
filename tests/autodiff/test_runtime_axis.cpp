// Gradients of reduce_sum / reduce_mean along a plain int axis (a run-time value:
// `sf::reduce_sum(x, 1)`, as a TensorFlow user writes it), against central differences (float64,
// random inputs and extents) and against the same function written with sf::axes<k>{}.
// reduce_max / reduce_min and other ranks: test_runtime_axis_extrema.cpp; expand_dims / squeeze,
// second derivatives and forward mode: test_runtime_axis_products.cpp, test_runtime_axis_jvp.cpp.
#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("reduce_sum / reduce_mean along a plain int axis: finite differences and the static axis's gradient") {
  // the lambdas read `axis` when a function traces them (check_gradients makes new functions, so
  // each value of it is traced anew); the traced node keeps the number, the graph's type does not
  int axis = 0;
  const auto summed = [&](auto x) { return sf::reduce_sum(sf::tanh(sf::reduce_sum(x * x, axis)) * 0.5); };
  const auto averaged = [&](auto x) { return sf::reduce_sum(sf::exp(sf::reduce_mean(x, axis, sf::keepdims)) * x); };
  // the kept axis broadcast back (a layer norm's centring)
  const auto centred = [&](auto x) {
    const auto m = sf::reduce_mean(x, axis, sf::keepdims);
    return sf::reduce_sum(sf::square(x - m) * sf::reduce_max(x, axis, sf::keepdims));
  };
  const auto summed_0 = [](auto x) { return sf::reduce_sum(sf::tanh(sf::reduce_sum(x * x, sf::axes<0>{})) * 0.5); };
  const auto summed_1 = [](auto x) { return sf::reduce_sum(sf::tanh(sf::reduce_sum(x * x, sf::axes<1>{})) * 0.5); };
  const auto averaged_1 = [](auto x) { return sf::reduce_sum(sf::exp(sf::reduce_mean(x, sf::axes<1>{}, sf::keepdims)) * x); };
  for (auto [r, c] : {std::pair<std::size_t, std::size_t>{1, 1}, {1, 6}, {5, 1}, {extent(2, 9), extent(2, 21)}}) {
    INFO(r << " x " << c);
    const auto x = random_tensor<2>({r, c});
    for (int a : {0, 1, -1, -2}) {
      INFO("axis " << a);
      axis = a;
      CHECK(check_gradients(summed, x) == r * c);
      CHECK(check_gradients(averaged, x) == r * c);
      CHECK(check_gradients(centred, x) == r * c);
    }
    axis = 0;
    check_same(sf::grad(summed)(x), sf::grad(summed_0)(x));
    axis = -1;
    check_same(sf::grad(summed)(x), sf::grad(summed_1)(x));
    check_same(sf::grad(averaged)(x), sf::grad(averaged_1)(x));
  }
}
