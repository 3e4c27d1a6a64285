// The onnx_runtime test's models: statistics, data movement (reverse, slices, tile, pad, roll,
// repeat, split), sorting, gather_nd and the scatters (see onnx_runtime.cpp).
#include "onnx_runtime_common.hpp"

namespace onnx_runtime_test {
void export_data_movement() {
  // moments, norms and layer normalization: composites exported as their parts
  auto statistics = sf::function<sf::spec<float, sf::dyn, 4>, sf::spec<float, 4>, sf::spec<float, 4>>([](auto x, auto g, auto b) {
    const auto [mean, variance] = sf::moments(x, sf::axes<0>{});
    return std::tuple{mean, variance, sf::layer_normalization(x, g, b), sf::norm<sf::norm_order::one>(x, sf::axes<0, 1>{}),
                      sf::reduce_std(x, sf::axes<1>{})};
  });
  exported("statistics", statistics)("x3x4", xt::xarray<float>(xt::random::randn<float>({3, 4})),
                                     xt::xarray<float>(xt::random::randn<float>({4})), xt::xarray<float>(xt::random::randn<float>({4})));
  // reverse, strided slices, tile, pad, roll, repeat, split: Slice, Tile, Pad (SYMMETRIC: reversed Slices, Concat), Concat, Reshape
  auto moved = sf::function<sf::spec<float, sf::dyn, 4>>([](auto x) {
    const auto halves = sf::split<2>(x, sf::axes<1>{});
    return std::tuple{sf::reverse(x, sf::axes<0, 1>{}), x(sf::span(sf::none, sf::none, -2), sf::span(1, -1)), sf::tile(x, {2, 1}),
                      sf::pad(x, {{1, 0}, {2, 1}}, 0.5f), sf::pad(x, {{1, 1}, {0, 2}}, sf::pad_mode::reflect),
                      sf::roll(x, {-1, 5}, sf::axes<0, 1>{}), sf::repeat(x, 3, sf::axes<0>{}), halves[1] - halves[0],
                      std::get<1>(sf::split(x, sf::sizes<1, -1, 2>{}, sf::axes<1>{})),
                      std::get<2>(sf::split(x, sf::sizes<1, -1, 2>{}, sf::axes<1>{})), std::get<0>(sf::split(x, sf::sizes<2, -1>{})),
                      std::get<0>(sf::split(x, sf::sizes<-1, 1>{}, sf::axes<1>{})), std::get<1>(sf::split(x, sf::sizes<-1, 1>{}, sf::axes<1>{})),
                      sf::pad(x, {{2, 3}, {0, 4}}, sf::pad_mode::symmetric), sf::pad(x, sf::paddings<0, 0, 1, 0>{}, sf::pad_mode::symmetric)};
  });
  exported("data_movement", moved)("x3x4", xt::xarray<float>(xt::random::randn<float>({3, 4})));
  // repeat by a tensor of counts: CumSum of the counts, each position's row counted, Gather
  auto repeated = sf::function<sf::spec<float, sf::dyn, 3>, sf::spec<std::int32_t, sf::dyn>, sf::spec<std::int64_t>>(
      [](auto x, auto counts, auto each) {
        return std::tuple{sf::repeat(x, counts, sf::axes<0>{}), sf::repeat(x, each, sf::axes<1>{}), sf::repeat(x, each)};
      });
  exported("repeat_counts", repeated)("x4x3", xt::xarray<float>(xt::random::randn<float>({4, 3})), xt::xarray<std::int32_t>{2, 0, 1, 3},
                                      xt::xarray<std::int64_t>(2));
  // argsort, sort, top_k, take_along_axis: TopK (ties: the lower index first, as staticflow) and GatherElements
  auto sorted = sf::function<sf::spec<float, sf::dyn, 5>, sf::spec<std::int64_t, sf::dyn, 2>>([](auto x, auto p) {
    const auto [values, indices] = sf::top_k(x, 3);
    return std::tuple{sf::argsort(x), sf::sort(x, sf::axes<0>{}, sf::descending), values, indices,
                      sf::take_along_axis(x, p, sf::axes<1>{})};
  });
  exported("sorting", sorted)("x3x5", xt::xarray<float>{{0.5f, -1.f, 2.f, 0.5f, 3.f}, {4.f, 4.f, -2.f, 1.f, 0.f}, {1.f, 2.f, 3.f, 4.f, 5.f}},
                              xt::xarray<std::int64_t>{{4, 0}, {1, 1}, {2, 3}});
  // gather_nd and the scatters: GatherND and ScatterND (reduction none / add; sub adds the negated updates)
  auto scatters = sf::function<sf::spec<float, sf::dyn, 3>, sf::spec<std::int32_t, sf::dyn, 2>, sf::spec<std::int64_t, sf::dyn, 1>,
                               sf::spec<float, sf::dyn, 3>>([](auto x, auto cells, auto rows, auto u) {
    return std::tuple{sf::gather_nd(x, cells), sf::gather_nd(x, rows), sf::tensor_scatter_nd_update(x, rows, u),
                      sf::tensor_scatter_nd_add(x, rows, u * 3.f), sf::tensor_scatter_nd_sub(x, cells, sf::gather_nd(x, cells) * 2.f),
                      sf::scatter_nd(cells, sf::gather_nd(x, cells), sf::shape<4, 3>{})};
  });
  exported("scatter", scatters)("x4x3", xt::xarray<float>(xt::random::randn<float>({4, 3})),
                                xt::xarray<std::int32_t>{{3, 2}, {0, 0}, {1, 2}, {3, 2}}, xt::xarray<std::int64_t>(xt::xtensor<std::int64_t, 2>{{2}, {0}}),
                                xt::xarray<float>(xt::random::randn<float>({2, 3})));
}
}  // namespace onnx_runtime_test
