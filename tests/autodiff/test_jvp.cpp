// sf::jvp: Jacobian-vector products against closed forms, through sf::cond, several argnums,
// float32 with one and two threads, tangents that broadcast, listings and the cache
// (test_jvp_random.cpp: against central differences).
#include <string>

#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("jvp of an elementwise function is the closed form, on every size") {
  auto f = [](auto x) { return sf::tanh(x) * x; };
  auto jvp = sf::jvp<0>(f);
  for (std::size_t n : {0u, 1u, 7u, 33u}) {
    const auto x = random_tensor<1>({n});
    const auto v = random_tensor<1>({n});
    const auto [y, dy] = jvp(x, v);
    REQUIRE(dy.size() == n);
    for (std::size_t i = 0; i < n; ++i) {
      const double t = std::tanh(x(i));
      CHECK(y(i) == Approx(t * x(i)).epsilon(1e-14));
      CHECK(dy(i) == Approx(((1 - t * t) * x(i) + t) * v(i)).epsilon(1e-12));
    }
  }
  CHECK(jvp.tracing_count() == 1);  // one signature: (float64 [None]) twice
}

TEST_CASE("jvp through sf::cond differentiates the branch taken") {
  auto f = [](auto x) {
    return sf::cond(sf::reduce_sum(x) > 0.0, [&] { return sf::tanh(x) * x; }, [&] { return x * 2.0; });
  };
  const xt::xtensor<double, 1> x = {1, 2, 3}, v = {1, 1, 2};
  const auto [y, dy] = sf::jvp<0>(f)(x, v);
  for (std::size_t i = 0; i < 3; ++i) {
    const double t = std::tanh(x(i));
    CHECK(dy(i) == Approx(((1 - t * t) * x(i) + t) * v(i)).epsilon(1e-12));
  }
  const xt::xtensor<double, 1> negative = -x;
  const auto [y2, dy2] = sf::jvp<0>(f)(negative, v);
  CHECK((dy2 == xt::xtensor<double, 1>{2, 2, 4}));
}

TEST_CASE("jvp with several argnums is the derivative along all of them; the value is shared") {
  auto f = [](auto w, auto b, auto x) { return sf::sigmoid(sf::matmul(x, w) + b); };
  const auto w = random_tensor<2>({4, 3}), dw = random_tensor<2>({4, 3});
  const auto b = random_tensor<1>({3}), db = random_tensor<1>({3});
  const auto x = random_tensor<2>({5, 4});
  const auto [y, both] = sf::jvp<0, 1>(f)(w, b, x, dw, db);
  const auto [y_w, along_w] = sf::jvp<0>(f)(w, b, x, dw);
  const auto [y_b, along_b] = sf::jvp<1>(f)(w, b, x, db);
  const xt::xtensor<double, 2> sum = along_w + along_b;
  REQUIRE(both.shape() == sum.shape());
  for (std::size_t i = 0; i < sum.size(); ++i) CHECK(both.data()[i] == Approx(sum.data()[i]).epsilon(1e-12));
  CHECK((y == y_w));
  // the argnums' order is the tangents' order
  const auto [y_bw, reversed] = sf::jvp<1, 0>(f)(w, b, x, db, dw);
  for (std::size_t i = 0; i < sum.size(); ++i) CHECK(reversed.data()[i] == Approx(sum.data()[i]).epsilon(1e-12));
}

TEST_CASE("jvp: float32 on SIMD paths; one and two threads give the same bits") {
  auto jvp = sf::jvp<0>([](auto x, auto y) { return sf::exp(x * 0.25f) * y - sf::log(sf::abs(y) + 1.f); });
  const std::size_t rows = 64, cols = 4099;  // large enough to split; the row length has a tail
  xt::xtensor<float, 2> x = xt::xtensor<float, 2>::from_shape({rows, cols}), y = x, v = x;
  for (std::size_t i = 0; i < x.size(); ++i) {
    x.data()[i] = static_cast<float>(uniform());
    y.data()[i] = static_cast<float>(uniform());
    v.data()[i] = static_cast<float>(uniform());
  }
  sf::set_num_threads(1);
  const auto [value, dx] = jvp(x, y, v);
  sf::set_num_threads(2);
  const auto [value2, dx2] = jvp(x, y, v);
  sf::set_num_threads(1);
  for (std::size_t i = 0; i < x.size(); i += 97)
    CHECK(dx.data()[i] == Approx(0.25 * std::exp(x.data()[i] * 0.25) * y.data()[i] * v.data()[i]).epsilon(1e-5).margin(1e-6));
  CHECK((dx2 == dx));
  CHECK((value2 == value));
}

TEST_CASE("jvp: a tangent must have its argument's run-time extents; sf::shape_error otherwise") {
  auto f = [](auto x) { return sf::square(x); };
  const xt::xtensor<double, 2> x = {{1, 2, 3}, {4, 5, 6}};
  const xt::xtensor<double, 2> one_column = {{1}, {-1}};  // would broadcast: not the same direction
  REQUIRE_THROWS_AS(sf::jvp<0>(f)(x, one_column), sf::shape_error);
  REQUIRE_THROWS_WITH(sf::jvp<0>(f)(x, one_column),
                      "staticflow: sf::jvp: tangent 0 has shape (2, 1) but argument 0, which it goes with, has shape (2, 3)");
  auto hvp = sf::hessian_vector_product<0, 1>([](auto a, auto b) { return sf::reduce_sum(a * b); });
  const xt::xtensor<double, 1> a = {1, 2}, b = {3}, va = {1, 1}, vb = {1, 1};
  REQUIRE_THROWS_WITH(hvp(a, b, va, vb),
                      "staticflow: sf::hessian_vector_product: tangent 1 has shape (2,) but argument 1, which it goes "
                      "with, has shape (1,)");
  xt::xtensor<double, 1> out = {7, 7};
  xt::xtensor<double, 2> dy = {{7, 7, 7}, {7, 7, 7}}, y = dy;
  REQUIRE_THROWS_AS(sf::jvp<0>(f).call_into(std::tie(y, dy), x, one_column), sf::shape_error);
  CHECK((dy == xt::xtensor<double, 2>{{7, 7, 7}, {7, 7, 7}}));  // nothing written
}

TEST_CASE("jvp inside another traced function; a constant pad's derivative pads with zeros") {
  // the inner product's cotangent is no leaf of the outer function (argument 1 here has the
  // value's spec)
  auto outer = sf::function([](auto x, auto k, auto dx) {
    const auto [y, dy] = sf::jvp<0>([](auto a, auto c) { return a * c; })(x, k, dx);
    return dy + 0.0 * y;
  });
  const xt::xtensor<double, 1> x = {1, 2, 3}, k = {4, 5, 6}, dx = {1, -1, 2};
  CHECK((outer(x, k, dx) == xt::xtensor<double, 1>{4, -5, 12}));
  auto padded = sf::jvp<0>([](auto a) { return sf::pad(a * a, sf::paddings<1, 2>{}, 9.0); });
  const auto [y, dy] = padded(x, dx);
  CHECK((y == xt::xtensor<double, 1>{9, 1, 4, 9, 9, 9}));
  CHECK((dy == xt::xtensor<double, 1>{0, 2, -4, 12, 0, 0}));
}

TEST_CASE("jvp is a polymorphic function: signatures, listing, input signatures") {
  auto jvp = sf::jvp<0>([](auto x, auto k) { return sf::reduce_sum(x * x * k); });
  xt::xtensor_fixed<float, xt::xshape<2>> x = {1.f, 2.f}, v = {1.f, 0.5f};
  const auto [value, product] = jvp(x, 3.f, v);
  CHECK(value == 15.f);
  CHECK(product == 12.f);  // 2 k x . v = 6 * (1 + 1)
  const std::string signatures = jvp.pretty_printed_concrete_signatures();
  CHECK(signatures.find("Output Type:\n  Tuple[TensorSpec(shape=(), dtype=tf.float32, name=None), "
                        "TensorSpec(shape=(), dtype=tf.float32, name=None)]") != std::string::npos);
  const std::string listing = jvp.get_concrete_function(x, 3.f, v).graph_string();
  CHECK(listing.find("Sum[") != std::string::npos);
  // the product of tanh(x * w + b) is the forward chain and the derivative's four ops, then the
  // run-time check that it has the value's extents (a broadcast_in_dim[like] of zeros of the
  // value's spec, which replaced the cotangent u: elementwise, never evaluated, fused)
  auto layer = sf::jvp<1>([](auto x, auto w, auto b) { return sf::tanh(x * w + b); });
  const xt::xtensor<float, 1> xs1 = {1.f, 2.f};
  CHECK(layer.get_concrete_function(xs1, xs1, 0.1f, xs1).graph_string() ==
        "{ lambda ; a:float32[None] b:float32[None] c:float32[] d:float32[None]. let\n"
        "    e:float32[None] = Mul a b\n"
        "    f:float32[None] = AddV2 e c\n"
        "    g:float32[None] = Tanh f\n"
        "    h:float32[None] = Mul d a\n"
        "    i:float32[None] = Square g\n"
        "    j:float32[None] = Sub 1.0:float32[] i\n"
        "    k:float32[None] = Mul h j\n"
        "    l:float32[None] = BroadcastTo[like] 0.0:float32[] g\n"
        "    m:float32[None] = BroadcastTo[like] k l\n"
        "  in (g, m) }\n");
  CHECK(layer.get_concrete_function(xs1, xs1, 0.1f, xs1).materialized_count == 0);  // one fused loop
  auto with_signature = sf::function<sf::spec<double, sf::dyn>, sf::spec<double>, sf::spec<double, sf::dyn>>(
      sf::jvp_fn<0>([](auto x, auto k) { return x * k; }));
  const xt::xtensor<double, 1> xs = {1, 2}, vs = {3, 4};
  const auto [ys, dys] = with_signature(xs, 2.0, vs);
  CHECK((dys == xt::xtensor<double, 1>{6, 8}));
}

TEST_CASE("README: the jvp and hessian_vector_product snippet") {
  auto layer = [](auto w, auto x) { return sf::tanh(sf::matmul(x, w)); };
  const xt::xtensor<double, 2> w = {{0.5, -1.0}, {0.25, 2.0}}, x = {{1.0, 2.0}}, dw = {{1.0, 0.0}, {0.0, 0.0}};
  auto [y, dy] = sf::jvp<0>(layer)(w, x, dw);  // y = layer(w, x) and its derivative along dw
  // y = tanh([1, 3.0]); only w[0][0] moves, so dy = [(1 - y0^2) * x0, 0]
  CHECK(y(0, 0) == Approx(std::tanh(1.0)));
  CHECK(dy(0, 0) == Approx(1 - std::tanh(1.0) * std::tanh(1.0)));
  CHECK(dy(0, 1) == 0.0);
  auto loss = [](auto w, auto x) { return sf::reduce_sum(sf::square(sf::matmul(x, w))); };
  const xt::xtensor<double, 2> v = {{1.0, 1.0}, {1.0, 1.0}};
  auto hv = sf::hessian_vector_product<0>(loss)(w, x, v);  // (d^2 loss / dw^2) . v
  // loss = sum_j (x w)_j^2: the Hessian is 2 x^T x on each column, so hv = 2 x^T (x v)
  const xt::xtensor<double, 2> expected = {{2 * 1 * 3, 2 * 1 * 3}, {2 * 2 * 3, 2 * 2 * 3}};
  CHECK((hv == expected));
}
