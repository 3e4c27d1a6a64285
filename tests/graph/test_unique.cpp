// sf::unique (graph/unique.hpp) against tf.unique's definition written out here: the values in
// order of first appearance and each element's index, on random vectors (few and many distinct
// values), -0.0 and 0.0, NaNs, ints and bools, static and run-time extents, size 0 and 1, int64
// indices, eager mode, the listing and its gradient (through y: boolean_mask's).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include <xtensor/xfixed.hpp>
#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

namespace {
/// tf.unique as its documentation defines it (a linear search: values compare with ==).
template <class T>
std::pair<std::vector<T>, std::vector<std::int64_t>> reference_unique(const std::vector<T>& x) {
  std::vector<T> y;
  std::vector<std::int64_t> idx;
  for (const T& v : x) {
    std::size_t k = 0;
    while (k < y.size() && !(y[k] == v)) ++k;
    if (k == y.size()) y.push_back(v);
    idx.push_back(std::int64_t(k));
  }
  return {y, idx};
}

template <class T, class Y, class I>
void check_unique(const std::vector<T>& x, const Y& y, const I& idx) {
  const auto [want_y, want_idx] = reference_unique(x);
  REQUIRE(y.size() == want_y.size());
  REQUIRE(idx.size() == want_idx.size());
  for (std::size_t k = 0; k < want_y.size(); ++k) {
    INFO("y[" << k << "]");
    if constexpr (std::is_floating_point_v<T>) {
      CHECK((std::isnan(want_y[k]) ? std::isnan(y(k)) : y(k) == want_y[k] && std::signbit(y(k)) == std::signbit(want_y[k])));
    } else {
      CHECK(y(k) == want_y[k]);
    }
  }
  for (std::size_t i = 0; i < want_idx.size(); ++i) CHECK(std::int64_t(idx(i)) == want_idx[i]);
}
}  // namespace

TEST_CASE("unique: random vectors of few and many distinct values", "[graph][unique]") {
  std::mt19937 rng(20261129);
  auto fn = sf::function([](auto x) { return sf::unique(x); });
  for (std::size_t distinct : {1, 3, 40, 5000}) {
    for (std::size_t n : {1, 2, 17, 1000}) {
      std::uniform_int_distribution<int> pick(0, int(distinct) - 1);
      std::vector<double> x(n);
      for (auto& v : x) v = 0.5 * pick(rng) - 3;
      const auto [y, idx] = fn(xt::xtensor<double, 1>(xt::adapt(x, {n})));
      INFO(n << " elements, up to " << distinct << " distinct");
      STATIC_REQUIRE(std::is_same_v<typename std::remove_cvref_t<decltype(idx)>::value_type, std::int32_t>);
      check_unique(x, y, idx);
    }
  }
}

TEST_CASE("unique: -0.0 and 0.0 are one value, every NaN its own (TF's ==)", "[graph][unique]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> x{-0.0, 1.0, nan, 0.0, nan, 1.0, -0.0, 2.0};
  auto fn = sf::function([](auto v) { return sf::unique(v); });
  const auto [y, idx] = fn(xt::xtensor<double, 1>(xt::adapt(x, {x.size()})));
  check_unique(x, y, idx);
  CHECK(y.size() == 5);  // -0.0, 1, nan, nan, 2
  CHECK(std::signbit(y(0)));
  // many NaNs among few values: each NaN its own value, the others found as usual
  std::vector<double> mixed(3000);
  for (std::size_t i = 0; i < mixed.size(); ++i) mixed[i] = i % 3 == 0 ? nan : double(i % 5);
  const auto [ym, im] = fn(xt::xtensor<double, 1>(xt::adapt(mixed, {mixed.size()})));
  check_unique(mixed, ym, im);
  CHECK(ym.size() == 1000 + 5);
}

TEST_CASE("unique: ints, bools, int64 indices, static and empty input", "[graph][unique]") {
  auto ints = sf::function([](auto v) { return sf::unique<std::int64_t>(v); });
  const std::vector<std::int32_t> xi{7, -1, 7, 7, 3, -1, 0};
  const auto [yi, ii] = ints(xt::xtensor<std::int32_t, 1>(xt::adapt(xi, {xi.size()})));
  STATIC_REQUIRE(std::is_same_v<typename std::remove_cvref_t<decltype(ii)>::value_type, std::int64_t>);
  check_unique(xi, yi, ii);
  auto bools = sf::function([](auto v) { return sf::unique(v); });
  const std::vector<bool> xb{true, true, false, true};
  xt::xtensor<bool, 1> tb = xt::xtensor<bool, 1>::from_shape({4});
  for (std::size_t i = 0; i < 4; ++i) tb(i) = xb[i];
  const auto [yb, ib] = bools(tb);
  REQUIRE(yb.size() == 2);
  CHECK((yb(0) && !yb(1)));
  CHECK((ib(0) == 0 && ib(1) == 0 && ib(2) == 1 && ib(3) == 0));
  auto fixed = sf::function([](auto v) { return sf::unique(v); });
  xt::xtensor_fixed<float, xt::xshape<5>> xs{2.f, 1.f, 2.f, 2.f, 1.f};
  const auto [ys, is] = fixed(xs);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(is)>, xt::xtensor_fixed<std::int32_t, xt::xshape<5>>>);
  CHECK((ys == xt::xtensor<float, 1>{2.f, 1.f}));
  CHECK((is == xt::xtensor<std::int32_t, 1>{0, 1, 0, 0, 1}));
  const auto [ye, ie] = fixed(xt::xtensor<float, 1>::from_shape({0}));
  CHECK(ye.size() == 0);
  CHECK(ie.size() == 0);
}

TEST_CASE("unique: gather(y, idx) is x; eager mode; the listing", "[graph][unique]") {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> pick(0, 9);
  xt::xtensor<float, 1> x = xt::xtensor<float, 1>::from_shape({300});
  for (auto& v : x) v = float(pick(rng));
  auto round_trip = sf::function([](auto v) {
    auto [y, idx] = sf::unique(v);
    return sf::gather(y, idx);
  });
  CHECK((round_trip(x) == x));
  auto fn = sf::function([](auto v) { return sf::unique(v); });
  const auto traced = fn(x);
  sf::run_functions_eagerly(true);
  const auto eager = fn(x);
  sf::run_functions_eagerly(false);
  CHECK((std::get<0>(eager) == std::get<0>(traced)));
  CHECK((std::get<1>(eager) == std::get<1>(traced)));
  const std::string listing = fn.get_concrete_function(x).graph_string();
  const auto first = listing.find("= Unique");
  REQUIRE(first != std::string::npos);
  CHECK(listing.find("= Unique", first + 1) == std::string::npos);  // one node for y and idx
  CHECK(listing.find("BooleanMask") != std::string::npos);
}

TEST_CASE("unique: the gradient of y goes to each value's first appearance", "[graph][unique][autodiff]") {
  auto vg = sf::value_and_grad([](auto v) {
    auto [y, idx] = sf::unique(v);
    return sf::reduce_sum(y * y * y);
  });
  const xt::xtensor<double, 1> x{2., -1., 2., 3., -1., 0.5};
  const auto [loss, dx] = vg(x);
  CHECK(loss == Approx(8. - 1. + 27. + 0.125));
  CHECK((dx == xt::xtensor<double, 1>{12., 3., 0., 27., 0., 0.75}));
}
