// sf::jvp and sf::hessian_vector_product through the ops whose gradients are nodes of their own
// (gather, x[i], sort, pad; reverse, roll, tile and repeat are axis maps like pad): those nodes'
// own rules (autodiff/rules.hpp, "second derivatives").
#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

namespace {
template <class A, class B>
void check_close(const A& a, const B& b) {
  REQUIRE(a.shape() == b.shape());
  for (std::size_t i = 0; i < a.size(); ++i) CHECK(a.data()[i] == Approx(b.data()[i]).epsilon(1e-12));
}
}  // namespace

TEST_CASE("hessian_vector_product through data movement: gather, x[i], sort, pad") {
  // sum(m(x)^3) for an op m that moves or repeats elements: H . v = 6 x v times how often m reads x
  const xt::xtensor<double, 2> x = {{1, 2, -1}, {3, 4, 0.5}}, v = {{1, -1, 2}, {0.5, 2, -3}};
  const auto six_x_v = [&](double count_row0, double count_row1) {
    xt::xtensor<double, 2> r = 6 * x * v;
    for (std::size_t j = 0; j < 3; ++j) r(0, j) *= count_row0, r(1, j) *= count_row1;
    return r;
  };
  const xt::xtensor<int, 1> rows = {1, 0, 1};
  auto gathered = [](auto x, auto i) { return sf::reduce_sum(sf::square(sf::gather(x, i)) * sf::gather(x, i)); };
  check_close(sf::hessian_vector_product<0>(gathered)(x, rows, v), six_x_v(1, 2));
  auto first_row = [](auto x) { return sf::reduce_sum(sf::square(x[0]) * x[0]); };
  check_close(sf::hessian_vector_product<0>(first_row)(x, v), six_x_v(1, 0));
  auto sorted = [](auto x) { return sf::reduce_sum(sf::square(sf::sort(x)) * sf::sort(x)); };
  check_close(sf::hessian_vector_product<0>(sorted)(x, v), six_x_v(1, 1));
  auto padded = [](auto x) {
    return sf::reduce_sum(sf::square(sf::pad(x, sf::paddings<1, 1, 0, 2>{})) * sf::pad(x, sf::paddings<1, 1, 0, 2>{}));
  };
  check_close(sf::hessian_vector_product<0>(padded)(x, v), six_x_v(1, 1));
}

TEST_CASE("jvp through data movement: the tangent moves as the values do") {
  const xt::xtensor<double, 2> x = {{3, 1, 2}, {0.5, 4, -1}}, v = {{1, 2, 3}, {4, 5, 6}};
  // sort each row: the tangent follows the values (ties are absent here)
  const auto [sorted, d_sorted] = sf::jvp<0>([](auto a) { return sf::sort(a); })(x, v);
  CHECK((sorted == xt::xtensor<double, 2>{{1, 2, 3}, {-1, 0.5, 4}}));
  CHECK((d_sorted == xt::xtensor<double, 2>{{2, 3, 1}, {6, 4, 5}}));
  const xt::xtensor<int, 1> rows = {1, 1, 0};
  const auto [g, d_g] = sf::jvp<0>([](auto a, auto i) { return sf::gather(a, i); })(x, rows, v);
  CHECK((d_g == xt::xtensor<double, 2>{{4, 5, 6}, {4, 5, 6}, {1, 2, 3}}));
}

TEST_CASE("hessian_vector_product: the cross term through a constant pad has no constant in it") {
  // loss = sum(pad(x, c) * w): d/dw = pad(x, c), so H_wx . v_x = pad(v_x, 0) and H_xx = H_ww = 0
  auto loss = [](auto x, auto w) { return sf::reduce_sum(sf::pad(x, sf::paddings<1, 1>{}, 5.0) * w); };
  const xt::xtensor<double, 1> x = {1, 2}, w = {1, 1, 1, 1}, vx = {3, -4}, vw = {0, 0, 0, 0};
  const auto [hx, hw] = sf::hessian_vector_product<0, 1>(loss)(x, w, vx, vw);
  CHECK((hx == xt::xtensor<double, 1>{0, 0}));
  CHECK((hw == xt::xtensor<double, 1>{0, 3, -4, 0}));
}
