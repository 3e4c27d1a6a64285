// Gradients of sf::unsorted_segment_sum and sf::segment_sum, with and without num_segments (TF's:
// the adjoint's row at each id, zeros where the id is negative) against central differences in float64 on random shapes and ids,
// exact values, and second derivatives (the gradient's own adjoint is the segment sum again).
#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

namespace {
template <class J, std::size_t R>
xt::xtensor<J, R> random_ids(std::array<std::size_t, R> shape, int lo, int hi) {
  auto i = xt::xtensor<J, R>::from_shape(shape);
  for (auto& v : i) v = static_cast<J>(std::uniform_int_distribution<int>(lo, hi)(rng()));
  return i;
}
}  // namespace

TEST_CASE("segment sum gradients: random shapes, ids of rank 1 and 2, negative ids") {
  for (int round = 0; round < 3; ++round) {
    const std::size_t a = extent(1, 6), b = extent(1, 4), c = extent(1, 3), n = extent(1, 5);
    const auto x = random_tensor<3>({a, b, c});
    const auto rows = random_ids<std::int32_t, 1>({a}, -1, static_cast<int>(n) - 1);
    const auto pairs = random_ids<std::int64_t, 2>({a, b}, -2, static_cast<int>(n) - 1);
    auto sorted = random_ids<std::int32_t, 1>({a}, 0, static_cast<int>(n) - 1);
    std::sort(sorted.begin(), sorted.end());
    const auto sums = [n](auto t, auto i, auto j, auto k) {
      return sf::reduce_sum(sf::square(sf::unsorted_segment_sum(t, i, n))) +
             sf::reduce_sum(sf::sin(sf::unsorted_segment_sum(sf::tanh(t), j, n)) * 1.5) +
             sf::reduce_sum(sf::segment_sum(t * t, k, n) * sf::segment_sum(t, k, n));
    };
    CHECK(check_gradients_of(std::index_sequence<0>{}, sums, x, rows, pairs, sorted) == x.size());
  }
}

TEST_CASE("segment sum gradients: exact values, a static num_segments, TF's error in the gradient") {
  using namespace sf::literals;
  // d/dx sum(unsorted_segment_sum(x, ids, 3) * w) = w[ids[p]], zeros where ids[p] < 0
  auto g = sf::grad<0>([](auto x, auto i, auto w) { return sf::reduce_sum(sf::unsorted_segment_sum(x, i, 3_c) * w); });
  const xt::xtensor_fixed<double, xt::xshape<4, 2>> x = xt::ones<double>({4, 2});
  const xt::xtensor_fixed<double, xt::xshape<3, 2>> w{{1, 2}, {3, 4}, {5, 6}};
  const xt::xtensor<std::int32_t, 1> ids{2, -1, 0, 2};
  const auto d = g(x, ids, w);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(d)>, xt::xtensor_fixed<double, xt::xshape<4, 2>>>);
  CHECK((d == xt::xtensor<double, 2>{{5, 6}, {0, 0}, {1, 2}, {5, 6}}));
  CHECK_THROWS_WITH(g(x, xt::xtensor<std::int32_t, 1>{0, 3, 0, 0}, w),
                    "staticflow: unsorted_segment_sum: segment_ids[1] = 3 is out of range [0, 3)");
  auto s = sf::grad<0>([](auto t, auto i) { return sf::reduce_sum(sf::segment_sum(t, i, 2) * 3.0); });
  const xt::xtensor<double, 1> t{1, 2, 3};
  CHECK((xt::xtensor<double, 1>(s(t, xt::xtensor<std::int32_t, 1>{0, 1, 1})) == xt::xtensor<double, 1>{3, 3, 3}));
  CHECK_THROWS_WITH(s(t, xt::xtensor<std::int32_t, 1>{1, 0, 1}),
                    "staticflow: segment_sum: segment ids are not increasing (segment_ids[1] = 0 after 1)");
}

TEST_CASE("segment sum second derivatives: hessian-vector products and jvp") {
  // sum(s(x)^3) for s = a segment sum: H . v = 6 s(x) s(v) read back at each id (zero where dropped)
  const std::size_t a = extent(2, 7), c = extent(1, 4), n = extent(1, 4);
  const auto x = random_tensor<2>({a, c}), v = random_tensor<2>({a, c});
  const auto ids = random_ids<std::int32_t, 1>({a}, -1, static_cast<int>(n) - 1);
  auto sorted = random_ids<std::int64_t, 1>({a}, 0, static_cast<int>(n) - 1);
  std::sort(sorted.begin(), sorted.end());
  const auto cubed = [n](auto t, auto i) { return sf::reduce_sum(sf::pow(sf::unsorted_segment_sum(t, i, n), 3.0)); };
  CHECK(hvp_error(cubed, x, v, ids) < 1e-6);
  const auto sorted_cubed = [n](auto t, auto i) { return sf::reduce_sum(sf::pow(sf::segment_sum(t, i, n), 3.0)); };
  CHECK(hvp_error(sorted_cubed, x, v, sorted) < 1e-6);
  // exact: H . v = 6 s(x)[id] s(v)[id]
  const xt::xtensor<double, 2> hv = sf::hessian_vector_product<0>(cubed)(x, ids, v);
  std::vector<double> sx(n * c, 0.0), sv(n * c, 0.0);
  for (std::size_t p = 0; p < a; ++p)
    if (ids(p) >= 0)
      for (std::size_t k = 0; k < c; ++k) sx[ids(p) * c + k] += x(p, k), sv[ids(p) * c + k] += v(p, k);
  for (std::size_t p = 0; p < a; ++p)
    for (std::size_t k = 0; k < c; ++k)
      CHECK(hv(p, k) == Approx(ids(p) < 0 ? 0.0 : 6 * sx[ids(p) * c + k] * sv[ids(p) * c + k]).epsilon(1e-12).margin(1e-12));
  // jvp through the transposition: the tangent is summed as the values are
  CHECK(jvp_error([n](auto t, auto i) { return sf::sin(sf::unsorted_segment_sum(t, i, n)); }, x, v, ids) < 1e-6);
}

TEST_CASE("segment_sum without num_segments (tf.math.segment_sum): gradients, exact values, second derivatives") {
  for (int round = 0; round < 3; ++round) {
    const std::size_t a = extent(1, 6), c = extent(1, 3);
    const auto x = random_tensor<2>({a, c}), v = random_tensor<2>({a, c});
    auto sorted = random_ids<std::int32_t, 1>({a}, 0, 4);
    std::sort(sorted.begin(), sorted.end());
    // the counted result feeds ops after it (its extent is read at run time) and another segment sum
    const auto sums = [](auto t, auto k) {
      const auto s = sf::segment_sum(t * t, k);
      return sf::reduce_sum(s * sf::segment_sum(sf::sin(t), k)) + sf::reduce_sum(sf::square(sf::reduce_sum(s, sf::axes<1>{})));
    };
    CHECK(check_gradients_of(std::index_sequence<0>{}, sums, x, sorted) == x.size());
    const auto cubed = [](auto t, auto k) { return sf::reduce_sum(sf::pow(sf::segment_sum(t, k), 3.0)); };
    CHECK(hvp_error(cubed, x, v, sorted) < 1e-6);
    CHECK(jvp_error([](auto t, auto k) { return sf::sin(sf::segment_sum(t, k)); }, x, v, sorted) < 1e-6);
  }
  // d/dx sum(segment_sum(x, ids) * 3) = 3 everywhere; the adjoint's rows are the counted ones
  auto s = sf::grad<0>([](auto t, auto i) { return sf::reduce_sum(sf::segment_sum(t, i) * 3.0); });
  const xt::xtensor<double, 1> t{1, 2, 3};
  CHECK((xt::xtensor<double, 1>(s(t, xt::xtensor<std::int32_t, 1>{1, 1, 4})) == xt::xtensor<double, 1>{3, 3, 3}));
  auto w = sf::value_and_grad<0>([](auto x, auto i) {
    const auto r = sf::segment_sum(x, i);
    return sf::reduce_sum(r * r);
  });
  const auto [value, d] = w(t, xt::xtensor<std::int64_t, 1>{0, 2, 2});
  CHECK(value == Approx(26.0));  // rows {1, 0, 5}
  CHECK((xt::xtensor<double, 1>(d) == xt::xtensor<double, 1>{2, 10, 10}));  // 2 r[id]
  CHECK_THROWS_WITH(s(t, xt::xtensor<std::int32_t, 1>{1, 0, 1}),
                    "staticflow: segment_sum: segment ids are not increasing (segment_ids[1] = 0 after 1)");
}
