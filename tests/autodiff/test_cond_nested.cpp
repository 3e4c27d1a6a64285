// Gradients through sf::cond (autodiff/backprop.hpp, branch_backprop), continued (one translation
// unit each to stay near 1 GB of compiler): run-time shapes, a branch that ignores the source,
// several results and nesting against central differences; an sf::variable through a tape.
#include <cmath>
#include <cstdint>
#include <tuple>

#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("cond: run-time shapes, a constant branch, several results, nesting") {
  // run-time extents: the adjoint of each branch takes the argument's extents
  const auto dyn = [](auto x, auto y) {
    return sf::cond(sf::reduce_max(x) > 1., [&] { return x * y; }, [&] { return y * 3.; });
  };
  for (std::size_t n : {std::size_t{1}, std::size_t{9}, extent(10, 33)}) {
    const auto x = random_tensor<1>({n}), y = random_tensor<1>({n});
    CHECK(check_gradients(dyn, x, y) == 2 * n);
  }
  // a branch that does not read the source gives zeros there
  auto constant = sf::grad([](auto x) {
    return sf::reduce_sum(sf::cond(sf::reduce_sum(x) > 0., [&] { return x * 0. + 1.; }, [&] { return x * 4.; }));
  });
  const xt::xtensor_fixed<double, xt::xshape<2>> up = {1., 2.}, down = {-1., -2.};
  CHECK(constant(down)(0) == 4.);
  // two results of one cond, both used; a nested cond in one branch
  const auto two = [](auto x, auto s) {
    const auto [a, b] = sf::cond(
        sf::reduce_sum(s) > 0.,
        [&] { return std::tuple{x * s, sf::cond(sf::reduce_sum(x) > 0., [&] { return s * s; }, [&] { return x; })}; },
        [&] { return std::tuple{x + s, x * x * s}; });
    return a * 2. + b;
  };
  for (int trial = 0; trial < 4; ++trial) {
    const std::size_t n = extent(1, 12);
    CHECK(check_gradients(two, random_tensor<1>({n}), random_tensor<1>({n})) == 2 * n);
  }
}

TEST_CASE("cond: gradient of an sf::variable read in a branch, through a gradient tape") {
  sf::variable<double, 3> w{xt::xtensor_fixed<double, xt::xshape<3>>{1., -2., 3.}};
  auto f = sf::function([&](auto x, auto flag) {
    sf::gradient_tape tape;
    const auto y = sf::reduce_sum(sf::cond(flag, [&] { return w * x; }, [&] { return w * w; }));
    return tape.gradient(y, w);
  });
  const xt::xtensor_fixed<double, xt::xshape<3>> x = {0.5, 4., -1.};
  const auto taken = f(x, true);
  CHECK(taken(0) == 0.5);
  CHECK(taken(1) == 4.);
  const auto other = f(x, false);
  CHECK(other(0) == 2.);
  CHECK(other(1) == -4.);
  CHECK(other(2) == 6.);
}
