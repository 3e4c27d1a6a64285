// Gradients through sf::cond and sf::switch_case (autodiff/backprop.hpp, branch_backprop): against
// central differences in float64 on random inputs taking each branch, with broadcasting; only the
// taken branch's adjoint runs; switch_case. More in test_cond_nested.cpp.
#include <cmath>
#include <cstdint>
#include <tuple>

#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("cond: gradients of each branch match central differences") {
  // the predicate depends on the inputs, so random inputs take both branches
  const auto fn = [](auto x, auto w, auto b) {
    return sf::cond(
        sf::reduce_sum(x * w) > 0.,
        [&] { return sf::tanh(x * w + b) * x; },
        [&] { return sf::square(x - b) * 0.5 + w; });
  };
  std::size_t true_branch = 0, false_branch = 0;
  for (int trial = 0; trial < 6; ++trial) {
    const std::size_t n = trial < 2 ? std::size_t{1} : extent(2, 37);
    INFO("trial " << trial << ", extent " << n);
    const auto x = random_tensor<1>({n}), w = random_tensor<1>({n});
    const xt::xtensor_fixed<double, xt::xshape<>> b = {uniform()};
    (xt::sum(x * w)() > 0 ? true_branch : false_branch) += 1;
    CHECK(check_gradients(fn, x, w, b) == 2 * n + 1);
  }
  // both branches were checked (the draw is fixed by the seed)
  CHECK(true_branch > 0);
  CHECK(false_branch > 0);
}

TEST_CASE("cond: only the taken branch's adjoint runs") {
  // sqrt's adjoint at a negative x is NaN; the branch holding it is not taken, so the gradient is
  // exactly the other branch's (a where-based select would give NaN * 0 = NaN)
  auto g = sf::grad([](auto x) {
    return sf::reduce_sum(sf::cond(sf::reduce_min(x) > 0., [&] { return sf::sqrt(x); }, [&] { return x * 2.; }));
  });
  const xt::xtensor_fixed<double, xt::xshape<3>> negative = {-1., 4., 9.};
  const auto d = g(negative);
  for (double v : d) CHECK(v == 2.);
  const xt::xtensor_fixed<double, xt::xshape<3>> positive = {1., 4., 16.};
  const auto p = g(positive);
  CHECK(p(0) == 0.5);
  CHECK(p(1) == 0.25);
  CHECK(p(2) == 0.125);
}

TEST_CASE("switch_case: the selected branch's gradient; an out-of-range index takes the last") {
  auto g = sf::grad<1>([](auto i, auto x) {
    return sf::reduce_sum(sf::switch_case(i, [&] { return x * 1.; }, [&] { return x * x; }, [&] { return sf::exp(x); }));
  });
  const xt::xtensor_fixed<double, xt::xshape<2>> x = {0.5, -1.5};
  CHECK(g(std::int32_t{0}, x)(1) == 1.);
  CHECK(g(std::int32_t{1}, x)(1) == -3.);
  CHECK(g(std::int32_t{2}, x)(0) == Approx(std::exp(0.5)).epsilon(1e-15));
  CHECK(g(std::int32_t{7}, x)(1) == Approx(std::exp(-1.5)).epsilon(1e-15));
}
