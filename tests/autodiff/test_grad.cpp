// sf::grad / sf::value_and_grad / sf::gradients as functions: caching per signature, listings,
// unconnected sources, static arguments, input signatures, run-time ranks, float32 SIMD paths
// and threads (bit-for-bit). Eager mode: test_grad_eager.cpp.
#include <string>

#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("the seed's example: d(v + 1)/dv is 1") {
  auto add = [](auto a, auto b) { return a + b; };
  auto g = sf::grad<0>(add);
  CHECK(g(1.0f, 1.0f) == 1.0f);
  auto vg = sf::value_and_grad<0, 1>(add);
  const auto [value, da, db] = vg(1.0f, 1.0f);
  CHECK(value == 2.0f);
  CHECK(da == 1.0f);
  CHECK(db == 1.0f);
}

TEST_CASE("value_and_grad is a polymorphic function: one trace per signature, listings") {
  auto loss = [](auto w, auto b, auto x) { return sf::reduce_mean(sf::square(x * w + b)); };
  auto vg = sf::value_and_grad<0, 1>(loss);
  xt::xtensor_fixed<float, xt::xshape<3>> w = {1.f, 2.f, 3.f}, x = {1.f, -1.f, 2.f};
  const float b = 0.5f;
  auto [l, dw, db] = vg(w, b, x);
  // l = mean((x w + b)^2), dl/dw = 2/3 (x w + b) x, dl/db = 2/3 sum(x w + b)
  const float r0 = 1.5f, r1 = -1.5f, r2 = 6.5f;
  CHECK(l == Approx((r0 * r0 + r1 * r1 + r2 * r2) / 3));
  CHECK(dw(0) == Approx(2.f / 3 * r0 * 1.f));
  CHECK(dw(1) == Approx(2.f / 3 * r1 * -1.f));
  CHECK(dw(2) == Approx(2.f / 3 * r2 * 2.f));
  CHECK(db == Approx(2.f / 3 * (r0 + r1 + r2)));
  vg(w, 1.5f, x);
  CHECK(vg.tracing_count() == 1);
  xt::xtensor<double, 1> wd = {1, 2}, xd = {3, 4};
  vg(wd, 0.0, xd);
  CHECK(vg.tracing_count() == 2);
  const std::string listing = vg.get_concrete_function(w, b, x).graph_string();
  CHECK(listing.find("Mean[") != std::string::npos);
  CHECK(listing.find("in (") != std::string::npos);
  const std::string signatures = vg.pretty_printed_concrete_signatures();
  // the output type lists the value, then one gradient per argnum, each with its argument's spec
  CHECK(signatures.find("Output Type:\n  Tuple[TensorSpec(shape=(), dtype=tf.float32, name=None), "
                        "TensorSpec(shape=(3,), dtype=tf.float32, name=None), "
                        "TensorSpec(shape=(), dtype=tf.float32, name=None)]") != std::string::npos);
  CHECK(signatures.find("TensorSpec(shape=(None,), dtype=tf.float64, name=None)") != std::string::npos);
}

TEST_CASE("an unconnected source gets zeros of its spec; a static argument is a constant") {
  auto g = sf::grad<0, 1>([](auto x, auto /*unused*/, auto k) { return sf::reduce_sum(x * k); });
  xt::xtensor<double, 2> x = {{1, 2}, {3, 4}};
  xt::xtensor<double, 1> unused = {7, 8, 9};
  const auto [dx, du] = g(x, unused, sf::static_value<3>{});
  CHECK((dx == xt::xtensor<double, 2>{{3, 3}, {3, 3}}));
  CHECK(du.shape(0) == 3);
  CHECK((du == xt::xtensor<double, 1>{0, 0, 0}));
}

TEST_CASE("sf::gradients inside a function, with the value in the same plan") {
  auto f = sf::function([](auto x, auto w) {
    const auto y = sf::reduce_sum(sf::tanh(x * w));
    const auto [dx, dw] = sf::gradients(y, x, w);
    return std::tuple{y, dx + dw};
  });
  xt::xtensor_fixed<double, xt::xshape<2>> x = {0.5, -1.0}, w = {2.0, 0.25};
  const auto [y, s] = f(x, w);
  CHECK(y == Approx(std::tanh(1.0) + std::tanh(-0.25)));
  for (std::size_t i = 0; i < 2; ++i) {
    const double t = std::tanh(x(i) * w(i));
    CHECK(s(i) == Approx((1 - t * t) * (w(i) + x(i))));
  }
}

TEST_CASE("input signatures and run-time ranks") {
  auto g = sf::function<sf::spec<double, sf::dyn>>(sf::grad_fn([](auto x) { return sf::reduce_sum(x * x * x); }));
  for (std::size_t n : {1, 4, 33}) {
    xt::xtensor<double, 1> x = xt::arange<double>(static_cast<double>(n));
    const auto dx = g(x);
    for (std::size_t i = 0; i < n; ++i) CHECK(dx(i) == 3.0 * x(i) * x(i));
  }
  CHECK(g.tracing_count() == 1);
  auto h = sf::function<sf::ranks<1, 2>>(sf::grad_fn([](auto x) { return sf::reduce_sum(sf::square(x)); }));
  xt::xarray<double> m = {{1, 2, 3}, {4, 5, 6}};
  xt::xarray<double> dm = h(m);
  CHECK((dm == xt::xarray<double>{{2, 4, 6}, {8, 10, 12}}));
  CHECK_THROWS_AS(h(xt::xarray<double>(1.0)), sf::signature_error);  // rank 0 is not declared
}

TEST_CASE("float32 on the SIMD path: sum(tanh(x * w + b)) against its closed form, tails included") {
  auto g = sf::grad<1>([](auto x, auto w, auto b) { return sf::reduce_sum(sf::tanh(x * w + b)); });
  for (std::size_t n : {1, 15, 16, 17, 100}) {
    xt::xtensor<float, 1> x = xt::xtensor<float, 1>::from_shape({n}), w = x;
    for (std::size_t i = 0; i < n; ++i) x(i) = 0.01f * float(i) - 0.3f, w(i) = 1.f - 0.02f * float(i);
    const auto dw = g(x, w, 0.1f);
    REQUIRE(dw.size() == n);
    for (std::size_t i = 0; i < n; ++i) {
      const float t = std::tanh(x(i) * w(i) + 0.1f);
      CHECK(dw(i) == Approx((1 - t * t) * x(i)).epsilon(1e-5).margin(1e-6));
    }
  }
}

TEST_CASE("gradients are bit-for-bit equal with 1 and 2 threads") {
  auto vg = sf::value_and_grad<0, 1>([](auto x, auto b) {
    return sf::reduce_mean(sf::sigmoid(x * 1.5f + b) * x) + sf::reduce_sum(sf::square(b));
  });
  const std::size_t rows = 64, cols = 4099;  // large enough to split; the row length has a tail
  xt::xtensor<float, 2> x = xt::xtensor<float, 2>::from_shape({rows, cols});
  xt::xtensor<float, 1> b = xt::xtensor<float, 1>::from_shape({cols});
  for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = static_cast<float>(uniform());
  for (std::size_t i = 0; i < b.size(); ++i) b.data()[i] = static_cast<float>(uniform());
  sf::set_num_threads(1);
  const auto [l1, dx1, db1] = vg(x, b);
  sf::set_num_threads(2);
  const auto [l2, dx2, db2] = vg(x, b);
  sf::set_num_threads(1);
  CHECK(l1 == l2);
  CHECK((dx1 == dx2));
  CHECK((db1 == db2));
}

TEST_CASE("README: the Gradients snippet") {
  auto loss = [](auto w, auto b, auto x) { return sf::reduce_mean(sf::square(x * w + b)); };
  auto vg = sf::value_and_grad<0, 1>(loss);
  xt::xtensor<float, 1> w = {0.5f, -1.f}, x = {2.f, 3.f};
  const float b = 1.f;
  auto [l, dw, db] = vg(w, b, x);
  auto g = sf::grad<0>(loss);
  CHECK((g(w, b, x) == dw));
  CHECK(l == Approx((2.f * 2.f + (-2.f) * (-2.f)) / 2));  // residuals 2 and -2
  CHECK(db == Approx(0.f).margin(1e-6));
  CHECK(sf::grad<0>([](auto a, auto c) { return a + c; })(1.0f, 1.0f) == 1.0f);
  auto f = sf::function([](auto xs, auto ws) {
    auto y = sf::reduce_sum(sf::tanh(xs * ws));
    auto [dx, dws] = sf::gradients(y, xs, ws);
    (void)dx;
    return std::tuple{y, dws};
  });
  auto [y, dws] = f(x, w);
  CHECK(y == Approx(std::tanh(1.f) + std::tanh(-3.f)));
  CHECK(dws(0) == Approx((1 - std::tanh(1.f) * std::tanh(1.f)) * 2.f));
}
