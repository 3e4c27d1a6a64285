// The onnx_runtime test's models: pooling, cumsum / cumprod, creation, gathers, masks, unique,
// statistics, data movement, sorting, scatters, segment sums and the diagonal ops (see
// onnx_runtime.cpp).
#include "onnx_runtime_common.hpp"

namespace onnx_runtime_test {
void export_ops() {
  // max_pool / avg_pool (graph/pool.hpp): 1-D and 2-D around ONNX's MaxPool / AveragePool,
  // VALID and SAME (SAME's padding not counted in the mean), strides; run-time extents
  auto pool = sf::function<sf::spec<float, sf::dyn, sf::dyn, sf::dyn, 3>, sf::spec<float, sf::dyn, sf::dyn, 2>>(
      [](auto x, auto s) {
        return std::tuple{sf::max_pool2d(x, sf::ksize<2>), sf::max_pool2d(x, sf::ksize<3>, sf::strides<2>, sf::padding::same),
                          sf::avg_pool2d(x, sf::ksize<3, 2>, sf::strides<1, 2>, sf::padding::same),
                          sf::avg_pool2d(x, sf::ksize<2>, sf::strides<1>), sf::max_pool1d(s, sf::ksize<3>, sf::padding::same),
                          sf::avg_pool1d(s, sf::ksize<2>, sf::strides<1>, sf::padding::same)};
      });
  auto run_pool = exported("pool", pool);
  // cumsum: ONNX's CumSum with its exclusive / reverse attributes, float and int
  auto cumulative = sf::function<sf::spec<float, sf::dyn, 5>, sf::spec<std::int32_t, sf::dyn>>([](auto x, auto k) {
    return std::tuple{sf::cumsum(x), sf::cumsum(x, sf::axes<1>{}, sf::exclusive), sf::cumsum(x, -1, sf::reversed),
                      sf::cumsum(x, sf::axes<0>{}, sf::exclusive, sf::reversed), sf::cumsum(k, sf::axes<0>{}, sf::reversed)};
  });
  // cumprod: ONNX has none; a mask of the positions each output multiplies, Where and ReduceProd
  auto products = sf::function<sf::spec<float, sf::dyn, 4>, sf::spec<std::int32_t, sf::dyn>>([](auto x, auto k) {
    return std::tuple{sf::cumprod(x), sf::cumprod(x, sf::axes<0>{}, sf::exclusive), sf::cumprod(x, -1, sf::reversed),
                      sf::cumprod(x, sf::axes<0>{}, sf::exclusive, sf::reversed), sf::cumprod(k, sf::axes<0>{}, sf::reversed)};
  });
  exported("cumprod", products)("x3x4", xt::xarray<float>(xt::random::randn<float>({3, 4})), xt::xarray<std::int32_t>{2, -3, 1, 4, -1});
  exported("cumsum", cumulative)("x3x5", xt::xarray<float>(xt::random::randn<float>({3, 5})),
                                 xt::xarray<std::int32_t>{4, -1, 7, 2});
  // plain int axes (numbers the trace keeps): ReduceSum / ReduceMax along the traced axis, and
  // Unsqueeze / Squeeze at it
  auto int_axes = sf::function<sf::spec<float, sf::dyn, 4>>([](auto x) {
    return std::tuple{sf::reduce_sum(x, 1), sf::reduce_max(x, -2, sf::keepdims), sf::expand_dims(x, 1),
                      sf::squeeze(sf::expand_dims(x * 2.f, -1), 2)};
  });
  exported("int_axes", int_axes)("x3x4", xt::xarray<float>(xt::random::randn<float>({3, 4})));
  // range / linspace / eye: Constants of the values known at export, broadcast against the inputs
  auto created = sf::function<sf::spec<float, sf::dyn, 4>, sf::spec<std::int32_t, sf::dyn>>([](auto x, auto k) {
    using namespace sf::literals;
    return std::tuple{x * sf::range<float>(4_c), sf::linspace(-1.f, 1.f, 4) + x, sf::eye(4_c) * sf::reduce_sum(x),
                      k + sf::range(3, 0, -1)};
  });
  exported("creation", created)("x2x4", xt::xarray<float>(xt::random::randn<float>({2, 4})), xt::xarray<std::int32_t>{5});
  // gather: ONNX's Gather along axis 0 and 1, indices of rank 1 and 2
  auto gathers = sf::function<sf::spec<float, sf::dyn, 3>, sf::spec<std::int64_t, sf::dyn, 2>>([](auto t, auto ids) {
    return std::tuple{sf::gather(t, ids), sf::gather(t, ids, sf::axes<1>{}) * 2.f};
  });
  exported("gather", gathers)("t5x3", xt::xarray<float>(xt::random::randn<float>({5, 3})),
                              xt::xarray<std::int64_t>{{2, 0}, {1, 2}, {0, 0}});
  // boolean_mask: Compress (a mask of rank 2 merges the masked axes first); where(condition):
  // NonZero transposed; the kept values feed a reduction
  auto masks = sf::function<sf::spec<float, sf::dyn, 3>, sf::spec<bool, sf::dyn>>([](auto t, auto keep) {
    auto positive = sf::boolean_mask(t, t > 0.f);
    return std::tuple{sf::boolean_mask(t, keep), sf::boolean_mask(t * 2.f, keep, sf::axes<1>{}), positive,
                      sf::reduce_sum(positive), sf::where(t > 0.5f)};
  });
  exported("masks", masks)("t3x3", xt::xarray<float>(xt::random::randn<float>({3, 3})), xt::xarray<bool>{true, false, true});
  // unique: ONNX's Unique (sorted = 0) and ScatterElements for the codes, Compress for y
  auto uniques = sf::function<sf::spec<std::int32_t, sf::dyn>, sf::spec<float, sf::dyn>, sf::spec<double, 5>, sf::spec<bool, 4>>(
      [](auto k, auto v, auto w, auto b) {
        return std::tuple_cat(sf::unique(k), sf::unique<std::int64_t>(v), sf::unique(w), sf::unique(b));
      });
  exported("unique", uniques)("k9v7", xt::xarray<std::int32_t>{4, -1, 4, 4, 7, -1, 0, 7, 2},
                              xt::xarray<float>{0.5f, 2.f, 0.5f, -3.f, 2.f, -1.f, 0.f}, xt::xarray<double>{1., 1., 3., 1., 3.},
                              xt::xarray<bool>{false, false, true, false});
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
  // segment sums: ScatterND adding data into zeros at the ids (unsorted_segment_sum's negative ids
  // dropped; segment_sum without num_segments counts ids[-1] + 1 rows), ids of rank 1 and 2
  auto segments = sf::function<sf::spec<float, sf::dyn, 3>, sf::spec<std::int32_t, sf::dyn>, sf::spec<std::int64_t, sf::dyn>,
                               sf::spec<float, 2, 3, 2>, sf::spec<std::int64_t, 2, 3>>([](auto x, auto ids, auto sorted_ids, auto cube, auto grid) {
    return std::tuple{sf::unsorted_segment_sum(x, ids, 4), sf::segment_sum(x, sorted_ids, 5), sf::segment_sum(x, sorted_ids),
                      sf::unsorted_segment_sum(cube, grid, sf::static_value<3>{}),
                      sf::unsorted_segment_sum(sf::cast<std::int32_t>(x * 4.f), ids, 4)};
  });
  exported("segment", segments)("x6x3", xt::xarray<float>(xt::random::randn<float>({6, 3})),
                                xt::xarray<std::int32_t>{3, -1, 0, 3, 1, -2}, xt::xarray<std::int64_t>{0, 0, 1, 3, 3, 3},
                                xt::xarray<float>(xt::random::randn<float>({2, 3, 2})), xt::xarray<std::int64_t>{{2, 0, -1}, {2, 2, 1}});
  // ... and their gradients: Gather of the adjoint's rows at the ids (zeros at a negative id)
  auto segment_gradient = sf::function<sf::spec<float, sf::dyn, 2>, sf::spec<std::int32_t, sf::dyn>, sf::spec<std::int64_t, sf::dyn>>(
      sf::value_and_grad_fn<0>([](auto x, auto ids, auto sorted_ids) {
        return sf::reduce_sum(sf::square(sf::unsorted_segment_sum(x, ids, 3))) +
               sf::reduce_sum(sf::tanh(sf::segment_sum(x, sorted_ids)));
      }));
  exported("segment_gradient", segment_gradient)("x5x2", xt::xarray<float>(xt::random::randn<float>({5, 2})),
                                                  xt::xarray<std::int32_t>{2, -1, 0, 2, 1}, xt::xarray<std::int64_t>{0, 1, 1, 3, 3});
  // the diagonal ops: a mask of row == column built from the extents, Where, ReduceSum, Pad
  auto diagonals = sf::function<sf::spec<float, sf::dyn, 3, 4>, sf::spec<float, 4, 3>, sf::spec<std::int32_t, sf::dyn, sf::dyn>,
                                sf::spec<bool, 2, 2>>([](auto wide, auto tall, auto square, auto flags) {
    return std::tuple{sf::linalg::diag_part(wide), sf::linalg::diag_part(tall), sf::linalg::trace(square),
                      sf::linalg::set_diag(wide, sf::linalg::diag_part(wide) * -2.f), sf::linalg::set_diag(tall, sf::linalg::diag_part(tall) + 1.f),
                      sf::linalg::diag(sf::reduce_sum(wide, sf::axes<-1>{})), sf::linalg::set_diag(square, sf::linalg::diag_part(square) * 3),
                      sf::linalg::diag_part(flags), sf::linalg::set_diag(flags, !sf::linalg::diag_part(flags)),
                      sf::einsum<"ii->i">(square), sf::einsum<"ii">(square)};
  });
  exported("diagonal", diagonals)("b2", xt::xarray<float>(xt::random::randn<float>({2, 3, 4})), xt::xarray<float>(xt::random::randn<float>({4, 3})),
                                  xt::xarray<std::int32_t>{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}, xt::xarray<bool>{{true, false}, {true, true}});
  run_pool("image2x7x8", xt::xarray<float>(xt::random::randn<float>({2, 7, 8, 3})),
           xt::xarray<float>(xt::random::randn<float>({3, 10, 2})));
}
}  // namespace onnx_runtime_test
