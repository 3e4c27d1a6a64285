// Tests for graph/statistics.hpp: variance, std, norms, moments, batch and layer normalization
// against the values tensorflow 2.21 printed for the same input (float32), static and run-time
// shapes (their gradients: tests/autodiff/test_statistics.cpp).
#include <catch2/catch.hpp>

#include <tuple>
#include <type_traits>
#include <vector>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

namespace {
template <class E>
std::vector<double> values(const E& e) {
  if constexpr (std::is_arithmetic_v<E>) return {static_cast<double>(e)};
  else return std::vector<double>(e.begin(), e.end());
}
void check_close(const std::vector<double>& got, std::initializer_list<double> want) {
  REQUIRE(got.size() == want.size());
  std::size_t k = 0;
  for (double w : want) CHECK(got[k++] == Approx(w).epsilon(2e-6).margin(1e-6));
}
const xt::xtensor_fixed<float, xt::xshape<2, 3>> x{{1.5f, -2.0f, 3.25f}, {4.0f, 0.5f, -7.0f}};
const xt::xtensor_fixed<float, xt::xshape<3>> offset{0.1f, -0.2f, 0.3f}, scale{2.0f, 0.5f, -1.0f};
}  // namespace

TEST_CASE("variance, std and norms are TF's", "[graph][statistics]") {
  auto f = sf::function([](auto a) {
    return std::tuple{sf::reduce_variance(a), sf::reduce_variance(a, sf::axes<0>{}), sf::reduce_variance(a, sf::axes<1>{}, sf::keepdims),
                      sf::reduce_std(a, sf::axes<1>{}), sf::reduce_euclidean_norm(a, sf::axes<1>{}), sf::norm(a)};
  });
  const auto [var_all, var_0, var_1k, std_1, enorm_1, frobenius] = f(x);
  check_close(values(var_all), {13.675346374511719});
  check_close(values(var_0), {1.5625, 1.5625, 26.265625});
  CHECK(var_1k.shape()[1] == 1);
  check_close(values(var_1k), {4.763888835906982, 21.05555534362793});
  check_close(values(std_1), {2.182633399963379, 4.588633060455322});
  check_close(values(enorm_1), {4.100305080413818, 8.077747344970703});
  check_close(values(frobenius), {9.05883502960205});
  auto g = sf::function([](auto a) {
    using sf::norm_order;
    return std::tuple{sf::norm<norm_order::one>(a, sf::axes<1>{}), sf::norm<norm_order::infinity>(a, sf::axes<0>{}),
                      sf::norm<norm_order::one>(a, sf::axes<0, 1>{}), sf::norm<norm_order::infinity>(a, sf::axes<-2, -1>{}),
                      sf::norm<norm_order::one>(a, sf::axes<0, 1>{}, sf::keepdims), sf::norm<norm_order::one>(a)};
  });
  const auto [l1_rows, inf_cols, matrix_one, matrix_inf, matrix_one_kept, l1_all] = g(x);
  check_close(values(l1_rows), {6.75, 11.5});
  check_close(values(inf_cols), {4.0, 2.0, 7.0});
  check_close(values(matrix_one), {10.25});
  check_close(values(matrix_inf), {11.5});
  CHECK((matrix_one_kept.shape()[0] == 1 && matrix_one_kept.shape()[1] == 1));
  check_close(values(matrix_one_kept), {10.25});
  check_close(values(l1_all), {18.25});
}

TEST_CASE("moments, batch_normalization and layer_normalization are TF's and Keras'", "[graph][statistics]") {
  auto f = sf::function([](auto a, auto off, auto sc) {
    const auto [mean, variance] = sf::moments(a, sf::axes<0>{});
    return std::tuple{mean, variance, sf::batch_normalization(a, mean, variance, off, sc, 1e-3),
                      sf::batch_normalization(a, mean, variance, 1e-3), sf::layer_normalization(a, sc, off)};
  });
  const auto [mean, variance, bn, bn_plain, ln] = f(x, offset, scale);
  check_close(values(mean), {2.75, -0.75, -1.875});
  check_close(values(variance), {1.5625, 1.5625, 26.265625});
  check_close(values(bn), {-1.8993606567382812, -0.6998400688171387, -0.6999809741973877, 2.0993599891662598, 0.2998400926589966,
                           1.2999811172485352});
  check_close(values(bn_plain), {-0.9996802806854248, -0.9996801614761353, 0.9999810457229614, 0.9996800422668457, 0.9996801614761353,
                                 -0.9999810457229614});
  check_close(values(ln), {0.6344664096832275, -0.8680830001831055, -0.7689328193664551, 2.2066049575805664, -0.05471691116690636,
                           1.6438686847686768});
  // run-time shapes, sizes 1 included; keepdims keeps the reduced axes
  auto g = sf::function([](auto a) {
    const auto [m, v] = sf::moments(a, sf::axes<-1>{}, sf::keepdims);
    return std::tuple{m, v, sf::layer_normalization(a, 1.f, 0.f, sf::axes<-1>{}, 1e-5)};
  });
  for (std::size_t rows : {1, 4}) {
    const xt::xtensor<float, 2> a = xt::ones<float>({rows, std::size_t{5}}) * 3.f;
    const auto [m, v, normalized] = g(a);
    CHECK(m.shape()[1] == 1);
    CHECK(xt::all(xt::equal(m, 3.f)));
    CHECK(xt::all(xt::equal(v, 0.f)));
    CHECK(xt::all(xt::equal(normalized, 0.f)));  // a constant row normalizes to 0 (epsilon keeps it finite)
  }
}
