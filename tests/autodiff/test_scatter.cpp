// Gradients of sf::gather_nd and the scatters (graph/scatter.hpp; TF's rules: gather_nd's adjoint
// added back at its tuples' slices, repeated tuples adding up; a scatter's adjoint passes to the
// tensor, but for the slices an update replaced, and is gathered from the tuples' slices for the
// updates) against central differences in float64 on random shapes and tuples.
#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

namespace {
/// Index tuples of depth K (the shape's last extent) into extents `into`, random; unique when asked.
template <std::size_t Count, std::size_t K>
xt::xtensor_fixed<std::int32_t, xt::xshape<Count, K>> random_tuples(const std::array<std::size_t, K>& into, bool unique = false) {
  xt::xtensor_fixed<std::int32_t, xt::xshape<Count, K>> t;
  constexpr std::size_t count = Count;
  for (std::size_t p = 0; p < count; ++p) {
    for (int attempt = 0; attempt < 1000; ++attempt) {
      for (std::size_t k = 0; k < K; ++k) t(p, k) = static_cast<std::int32_t>(rng()() % into[k]);
      bool seen = false;
      for (std::size_t q = 0; q < p && unique; ++q) {
        bool same = true;
        for (std::size_t k = 0; k < K; ++k) same = same && t(q, k) == t(p, k);
        seen = seen || same;
      }
      if (!seen) break;
    }
  }
  return t;
}
}  // namespace

TEST_CASE("gather_nd gradients: depths 1-3, repeated tuples, run-time shapes", "[autodiff][scatter]") {
  const std::size_t a = extent(1, 4), b = extent(1, 4), c = extent(1, 4);
  const auto x = random_tensor<3>({a, b, c});
  const auto t1 = random_tuples<5, 1>(std::array{a});
  xt::xtensor_fixed<std::int64_t, xt::xshape<2, 3, 2>> t2;
  for (std::size_t p = 0; p < 6; ++p) {
    t2.data()[2 * p] = static_cast<std::int64_t>(rng()() % a);
    t2.data()[2 * p + 1] = static_cast<std::int64_t>(rng()() % b);
  }
  const auto t3 = random_tuples<4, 3>(std::array{a, b, c});
  const auto picks = [](auto t, auto j1, auto j2, auto j3) {
    return sf::reduce_sum(sf::square(sf::gather_nd(t, j1))) + sf::reduce_sum(sf::sin(sf::gather_nd(t, j2)) * 1.5) +
           sf::reduce_sum(sf::gather_nd(sf::tanh(t), j3) * sf::gather_nd(t, j3));
  };
  CHECK(check_gradients_of(std::index_sequence<0>{}, picks, x, t1, t2, t3) == x.size());
}

TEST_CASE("scatter gradients: update, add, sub and scatter_nd, to the tensor and to the updates", "[autodiff][scatter]") {
  const std::size_t a = extent(3, 6), b = extent(1, 4);
  const auto x = random_tensor<2>({a, b});
  const auto rows = random_tensor<2>({3, b});
  const auto once = random_tuples<3, 1>(std::array{a}, true);  // update: TF's rule assumes no repeats
  const auto any = random_tuples<3, 1>(std::array{a});
  const auto scatters = [](auto t, auto u, auto i, auto j) {
    return sf::reduce_sum(sf::square(sf::tensor_scatter_nd_update(t, i, u * 2.0))) +
           sf::reduce_sum(sf::sin(sf::tensor_scatter_nd_add(t, j, u))) + sf::reduce_sum(sf::tensor_scatter_nd_sub(t * t, j, sf::tanh(u))) +
           sf::reduce_sum(sf::exp(sf::tensor_scatter_nd_add(sf::zeros_like(t), i, u * u) * 0.5));
  };
  CHECK(check_gradients_of(std::index_sequence<0, 1>{}, scatters, x, rows, once, any) == x.size() + rows.size());
  // scatter_nd into a static shape, cells of depth 2
  xt::xtensor_fixed<double, xt::xshape<4>> values;
  fill(values);
  const xt::xtensor_fixed<std::int32_t, xt::xshape<4, 2>> cells{{0, 1}, {2, 0}, {0, 1}, {1, 1}};
  const auto scatter = [](auto v, auto i) { return sf::reduce_sum(sf::square(sf::scatter_nd(i, sf::sin(v), sf::shape<3, 2>{})) * 0.5); };
  CHECK(check_gradients_of(std::index_sequence<0>{}, scatter, values, cells) == 4);
}

TEST_CASE("scatter gradients: exact values of an embedding update", "[autodiff][scatter]") {
  // d/dtable sum(w * tensor_scatter_nd_update(table, ids, rows)) is w off the replaced rows, 0 on them;
  // d/drows is w at the rows' slices
  const xt::xtensor_fixed<double, xt::xshape<3, 2>> table{{1, 2}, {3, 4}, {5, 6}};
  const xt::xtensor_fixed<double, xt::xshape<1, 2>> row{{7, 8}};
  const xt::xtensor_fixed<std::int32_t, xt::xshape<1, 1>> at{{1}};
  const auto weighted = [](auto t, auto r, auto i) {
    return sf::reduce_sum(sf::tensor_scatter_nd_update(t, i, r) * sf::constant(xt::xtensor<double, 2>{{1, 2}, {3, 4}, {5, 6}}));
  };
  const auto [value, dtable, drow] = sf::value_and_grad<0, 1>(weighted)(table, row, at);
  CHECK(value == Approx(1 + 4 + 21 + 32 + 25 + 36));
  CHECK((dtable == xt::xtensor<double, 2>{{1, 2}, {0, 0}, {5, 6}}));
  CHECK((drow == xt::xtensor<double, 2>{{3, 4}}));
}
