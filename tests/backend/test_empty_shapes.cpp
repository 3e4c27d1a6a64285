// Size-0 and size-1 dims, static and run-time, through the CPU kernels: elementwise with
// broadcasting (the row loop divided by a zero outer extent: SIGFPE, found by a served batch of
// 0 rows), reductions with TensorFlow's identities, arg-reductions, matmul, softmax, shape ops.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include <xtensor/xfixed.hpp>
#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

namespace {
const xt::xtensor<float, 2> rows0 = xt::zeros<float>({0, 4});  // a batch of no rows
const xt::xtensor<float, 2> cols0 = xt::zeros<float>({4, 0});  // rows of no elements
constexpr float inf = std::numeric_limits<float>::infinity();
}  // namespace

TEST_CASE("empty: the row loop with zero rows, broadcast against a row, reduced, or read from a variable", "[empty]") {
  auto add_row = sf::function<sf::spec<float, sf::dyn, 3>, sf::spec<float, 3>>([](auto x, auto b) { return x + b; });
  auto row_sums = sf::function<sf::spec<float, sf::dyn, 3>, sf::spec<float, 3>>(
      [](auto x, auto w) { return sf::reduce_sum(x * w, sf::axes<1>{}); });
  sf::variable<float, 3> w{{1.f, 2.f, 3.f}};
  auto weighted = sf::function<sf::spec<float, sf::dyn, sf::dyn, 3>>([&](auto x) { return x * w + 1.f; });
  const xt::xtensor<float, 1> b{1.f, 2.f, 3.f};

  for (const std::size_t rows : {std::size_t(0), std::size_t(1), std::size_t(5)}) {
    xt::xtensor<float, 2> x = xt::ones<float>({rows, std::size_t(3)});
    const xt::xtensor<float, 2> sum = add_row(x, b);
    CHECK(sum.shape()[0] == rows);
    CHECK(sum == xt::xtensor<float, 2>(x + b));
    const xt::xtensor<float, 1> r = row_sums(x, b);
    CHECK(r.shape()[0] == rows);
    // over the raw buffer: xtensor's own iterators offset a null pointer on an empty container (UBSan)
    CHECK(std::all_of(r.data(), r.data() + r.size(), [](float v) { return v == 6.f; }));
    for (const std::size_t middle : {std::size_t(0), std::size_t(2)}) {
      xt::xtensor<float, 3> x3 = xt::ones<float>({rows, middle, std::size_t(3)});
      const xt::xtensor<float, 3> y = weighted(x3);
      CHECK(y.size() == rows * middle * 3);
      if (y.size() > 0) CHECK(y(0, 0, 2) == 4.f);
    }
  }
  // an extent of 1 broadcast against 0
  auto mul = sf::function([](auto x, auto y) { return x * y; });
  const xt::xtensor<float, 2> r = mul(xt::xtensor<float, 2>(xt::ones<float>({1, 1})), xt::xtensor<float, 2>(xt::ones<float>({0, 1})));
  CHECK(r.shape()[0] == 0);
  CHECK(r.shape()[1] == 1);
}

TEST_CASE("empty: reductions give TensorFlow's identities (sum 0, prod 1, max -inf, min +inf, mean NaN)", "[empty]") {
  auto all = sf::function([](auto x) {
    return std::tuple{sf::reduce_sum(x), sf::reduce_prod(x), sf::reduce_max(x), sf::reduce_min(x), sf::reduce_mean(x),
                      sf::reduce_logsumexp(x)};
  });
  const auto [sum, prod, max, min, mean, lse] = all(rows0);
  CHECK(sum == 0.f);
  CHECK(prod == 1.f);
  CHECK(max == -inf);
  CHECK(min == inf);
  CHECK(std::isnan(mean));
  CHECK(lse == -inf);
  const xt::xtensor_fixed<float, xt::xshape<0, 4>> static_rows0;
  CHECK(std::get<0>(all(static_rows0)) == 0.f);
  CHECK(std::get<2>(all(static_rows0)) == -inf);

  auto over_rows = sf::function([](auto x) { return std::tuple{sf::reduce_sum(x, sf::axes<0>{}), sf::reduce_max(x, sf::axes<0>{})}; });
  const auto [s0, m0] = over_rows(rows0);  // 4 sums of nothing
  CHECK(s0 == xt::xtensor<float, 1>{0.f, 0.f, 0.f, 0.f});
  CHECK(m0 == xt::xtensor<float, 1>{-inf, -inf, -inf, -inf});
  const auto [s1, m1] = over_rows(cols0);  // nothing to sum 4 times over: no results
  CHECK(s1.size() == 0);
  CHECK(m1.size() == 0);
}

TEST_CASE("empty: argmax over an empty axis is an error; over zero rows, no answers", "[empty]") {
  auto rows = sf::function([](auto x) { return sf::argmax(x, sf::axes<1>{}); });
  CHECK(rows(rows0).size() == 0);
  CHECK_THROWS_WITH(rows(cols0), "staticflow: argmax: axis 1 is empty in shape (4, 0)");
  auto columns = sf::function([](auto x) { return sf::argmin(x, sf::axes<0>{}); });
  CHECK_THROWS_WITH(columns(rows0), "staticflow: argmin: axis 0 is empty in shape (0, 4)");
  CHECK(columns(cols0).size() == 0);
}

TEST_CASE("empty: matmul with a zero inner or outer dimension, softmax of nothing, shape ops", "[empty]") {
  auto mm = sf::function([](auto a, auto b) { return sf::matmul(a, b); });
  CHECK((mm(cols0, rows0) == xt::xtensor<float, 2>(xt::zeros<float>({4, 4}))));  // sums of no products
  CHECK(mm(rows0, cols0).size() == 0);
  const xt::xtensor_fixed<float, xt::xshape<0, 4>> static_rows0;
  CHECK(mm(static_rows0, xt::xtensor_fixed<float, xt::xshape<4, 2>>(xt::ones<float>({4, 2}))).size() == 0);

  auto softmaxes = sf::function([](auto x) { return std::tuple{sf::softmax(x, sf::axes<1>{}), sf::log_softmax(x, sf::axes<1>{})}; });
  CHECK(std::get<0>(softmaxes(rows0)).shape()[0] == 0);
  CHECK(std::get<1>(softmaxes(cols0)).shape()[1] == 0);

  auto shapes = sf::function([](auto x) {
    return std::tuple{sf::transpose(x), sf::concat<0>(x, x), sf::expand_dims(x, sf::axes<0>{}), sf::where(x > 0.f, x, -x),
                      sf::slice(x, sf::axes<1>{}, 1, 0)};
  });
  const auto [t, c, e, wh, sl] = shapes(rows0);
  CHECK(t.shape()[0] == 4);
  CHECK(t.shape()[1] == 0);
  CHECK(c.shape()[0] == 0);
  CHECK(e.shape()[1] == 0);
  CHECK(wh.size() == 0);
  CHECK(sl.shape()[1] == 0);
  auto reshaped = sf::function([](auto x) { return sf::reshape<sf::shape<0, 2, 2>>(x); });
  CHECK(reshaped(static_rows0).shape()[2] == 2);
  auto hot = sf::function([](auto i) { return sf::one_hot<3>(i); });
  CHECK(hot(xt::xtensor<std::int32_t, 1>::from_shape({0})).shape()[1] == 3);
}
