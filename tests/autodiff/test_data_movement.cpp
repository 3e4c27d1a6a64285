// Gradients of sf::reverse, roll, tile, repeat, pad (all three modes), split and strided slices
// (the adjoint of each result element added back where it was read: TF's ReverseV2 / Roll /
// TileGrad / PadGrad / MirrorPadGrad / SplitGrad / StridedSliceGrad) against central differences in float64 on random shapes, exact counts
// for the elements read several times, and the same bits on 1 and 2 threads.
#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;

TEST_CASE("data movement gradients: every op on random run-time shapes") {
  const std::size_t a = extent(2, 5), b = extent(2, 6);
  const auto x = random_tensor<2>({a, b});
  const auto moved = [](auto t) {
    const auto w = sf::sin(t);
    return sf::reduce_sum(sf::square(sf::reverse(w, sf::axes<1>{})) * sf::roll(t, {1, -3}, sf::axes<0, 1>{})) +
           sf::reduce_sum(sf::tanh(sf::tile(t, {2, 3})) * 0.5) + sf::reduce_sum(sf::square(sf::repeat(w, 3, sf::axes<0>{}))) +
           sf::reduce_sum(sf::cos(sf::pad(t, {{1, 1}, {1, 0}}, sf::pad_mode::reflect))) +
           sf::reduce_sum(sf::square(sf::pad(w, {{2, 0}, {1, 2}}, sf::pad_mode::symmetric))) +
           sf::reduce_sum(sf::exp(sf::pad(t, {{0, 1}, {2, 0}}, 1.5) * 0.3)) +
           sf::reduce_sum(sf::square(t(sf::span(sf::none, sf::none, -1), sf::span(1, sf::none, 2)))) * 0.7;
  };
  CHECK(check_gradients_of(std::index_sequence<0>{}, moved, x) == x.size());
}

TEST_CASE("data movement gradients: static shapes, split parts, exact counts") {
  xt::xtensor_fixed<double, xt::xshape<4, 3>> x;
  fill(x);
  const auto parts = [](auto t) {
    const auto halves = sf::split<2>(t, sf::axes<0>{});
    const auto columns = sf::unstack(t, sf::axes<1>{});
    return sf::reduce_sum(sf::sin(halves[1]) * halves[0]) + sf::reduce_sum(columns[2] * columns[0]) +
           sf::reduce_sum(sf::square(sf::tile(t, sf::multiples<1, 2>{})));
  };
  CHECK(check_gradients_of(std::index_sequence<0>{}, parts, x) == 12);
  // split with sizes, a -1 part, on a run-time shape
  const auto sized = [](auto t) {
    const auto [head, rest, last] = sf::split(t, sf::sizes<1, -1, 1>{}, sf::axes<1>{});
    return sf::reduce_sum(sf::sin(head) * last) + sf::reduce_sum(sf::square(rest)) * 0.5;
  };
  const auto y = random_tensor<2>({extent(1, 4), extent(2, 6)});
  CHECK(check_gradients_of(std::index_sequence<0>{}, sized, y) == y.size());

  // how many times each element is read: tile 2 x 3 reads each 6 times; SYMMETRIC padding by 2 of
  // a length-3 axis reads the outer elements twice and the middle one three times (np.pad([0, 1, 2], 2,
  // 'symmetric') = [1, 0, 0, 1, 2, 2, 1])
  auto counts = sf::grad<0>([](auto t) {
    return sf::reduce_sum(sf::tile(t, sf::multiples<2, 3>{})) + sf::reduce_sum(sf::pad(t, sf::paddings<0, 0, 2, 2>{}, sf::pad_mode::symmetric));
  });
  const xt::xtensor_fixed<double, xt::xshape<2, 3>> ones = xt::ones<double>({2, 3});
  CHECK((xt::xtensor<double, 2>(counts(ones)) == xt::xtensor<double, 2>{{8, 9, 8}, {8, 9, 8}}));
}

TEST_CASE("data movement gradients: 1 and 2 threads give the same bits") {
  const auto big = random_tensor<2>({600, 257});
  const auto w = random_tensor<2>({1203, 263});
  auto g = sf::grad<0>([](auto t, auto v) {
    return sf::reduce_sum(sf::pad(sf::repeat(t, 2, sf::axes<0>{}), {{2, 1}, {3, 3}}, sf::pad_mode::reflect) * v);
  });
  const xt::xtensor<double, 2> one = g(big, w);
  const std::size_t saved = sf::num_threads();
  sf::set_num_threads(2);
  const xt::xtensor<double, 2> two = g(big, w);
  sf::set_num_threads(saved);
  CHECK((one == two));
  // element (0, 0): the sum of w where the result read it (np.pad's REFLECT of the repeated rows)
  double expected = 0;
  for (std::size_t r = 0; r < 1203; ++r)
    for (std::size_t c = 0; c < 263; ++c) {
      const std::ptrdiff_t q = static_cast<std::ptrdiff_t>(r) - 2, p = static_cast<std::ptrdiff_t>(c) - 3;
      const std::ptrdiff_t row = q < 0 ? -q : q >= 1200 ? 2 * 1199 - q : q;
      const std::ptrdiff_t col = p < 0 ? -p : p >= 257 ? 2 * 256 - p : p;
      if (row / 2 == 0 && col == 0) expected += w(r, c);
    }
  CHECK(one(0, 0) == Approx(expected).epsilon(1e-12));
}
