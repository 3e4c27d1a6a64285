// The onnx_runtime test's models: cumsum / cumprod, int axes, creation, gathers, masks and unique
// (see onnx_runtime.cpp).
#include "onnx_runtime_common.hpp"

namespace onnx_runtime_test {
void export_ops() {
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
}
}  // namespace onnx_runtime_test
