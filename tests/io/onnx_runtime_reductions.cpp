// The onnx_runtime test's models: integer ops, reductions and shape ops (see onnx_runtime.cpp).
#include "onnx_runtime_common.hpp"

namespace onnx_runtime_test {
void export_reductions() {
  auto ints = sf::function<sf::spec<std::int32_t, sf::dyn>, sf::spec<std::int32_t, sf::dyn>>([](auto a, auto b) {
    return std::tuple{a + b, a - b, a * b, a / b, a % b, sf::floordiv(a, b), sf::floormod(a, b), sf::relu(a),
                      sf::abs(a), sf::maximum(a, b), a == b, a != b, sf::logical_and(a > 0, b < 0),
                      sf::logical_or(a >= 2, !(a <= b)), sf::cast<float>(a) * 0.5f, a + 2, sf::pow(a, 2)};
  });
  auto run_ints = exported("elementwise_int", ints);
  run_ints("n17", xt::xarray<std::int32_t>{-7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 9, 11},
           xt::xarray<std::int32_t>{2, -3, 4, -2, 3, 5, -5, 7, 1, -1, 3, -4, 2, 6, -3, -9, 4});

  auto reductions = sf::function<sf::spec<float, sf::dyn, 4>>([](auto x) {
    return std::tuple{sf::reduce_sum(x), sf::reduce_sum(x, sf::axes<1>{}, sf::keepdims), sf::reduce_mean(x, sf::axes<0>{}),
                      sf::reduce_max(x, sf::axes<1>{}), sf::reduce_min(x, sf::axes<0, 1>{}),
                      sf::reduce_prod(x, sf::axes<1>{}), sf::reduce_any(x > 1.f, sf::axes<1>{}),
                      sf::reduce_all(x > -1.f, sf::axes<0>{}), sf::argmin(x, sf::axes<0>{}),
                      sf::reduce_logsumexp(x, sf::axes<1>{}), sf::l2_normalize(x, sf::axes<1>{})};
  });
  auto run_reductions = exported("reductions", reductions);
  run_reductions("rows6", xt::xarray<float>(xt::random::randn<float>({6, 4})));

  auto shapes = sf::function<sf::spec<float, sf::dyn, 3, 4>, sf::spec<std::int32_t, sf::dyn>, sf::spec<std::int32_t>>(
      [](auto x, auto labels, auto i) {
        return std::tuple{sf::transpose(x, sf::axes<0, 2, 1>{}), sf::reshape<sf::shape<sf::dyn, 12>>(x),
                          sf::expand_dims(x, sf::axes<1>{}), sf::squeeze(sf::expand_dims(x, sf::axes<-1>{}), sf::axes<3>{}),
                          sf::slice(x, sf::axes<2>{}, 1, 2), sf::concat<1>(x, x * 2.f),
                          sf::broadcast_to<sf::shape<2, 3, 4>>(sf::reduce_sum(x, sf::axes<0>{})),
                          sf::one_hot<5>(labels), x[i], sf::shape_of(x), sf::size(labels), sf::dim<0>(x)};
      });
  auto run_shapes = exported("shape_ops", shapes);
  run_shapes("a", xt::xarray<float>(xt::random::randn<float>({2, 3, 4})), xt::xarray<std::int32_t>{0, 4, 2, 7, -1},
             std::int32_t{1});
}
}  // namespace onnx_runtime_test
