// The onnx_runtime test's models: segment sums and their gradient, the diagonal ops and pooling
// (see onnx_runtime.cpp). The pooling model's inputs are drawn last, after the diagonal ops'.
#include "onnx_runtime_common.hpp"

namespace onnx_runtime_test {
void export_segments() {
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
