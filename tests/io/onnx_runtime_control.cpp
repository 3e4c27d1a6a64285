// The onnx_runtime test's models: cond / switch_case and the loops (see onnx_runtime.cpp).
#include "onnx_runtime_common.hpp"

namespace onnx_runtime_test {
void export_control() {
  auto branches = sf::function<sf::spec<float, sf::dyn>, sf::spec<std::int32_t>>([](auto x, auto k) {
    auto c = sf::cond(sf::reduce_sum(x) > 0.f, [&] { return std::tuple{x * 2.f, sf::reduce_max(x)}; },
                      [&] { return std::tuple{-x, sf::reduce_min(x) + 1.f}; });
    auto s = sf::switch_case(k, [&] { return x + 1.f; }, [&] { return sf::exp(x); }, [&] { return x * x; });
    return std::tuple{std::get<0>(c), std::get<1>(c), s};
  });
  auto run_branches = exported("cond", branches);
  run_branches("positive_k0", xt::xarray<float>{1.f, 2.f, -0.5f}, std::int32_t{0});
  run_branches("negative_k1", xt::xarray<float>{-1.f, 2.f, -3.5f, 0.25f}, std::int32_t{1});
  run_branches("positive_k7", xt::xarray<float>{4.f}, std::int32_t{7});

  auto loops = sf::function<sf::spec<float, sf::dyn>, sf::spec<std::int32_t>>([](auto x, auto n) {
    auto [steps, halved] = sf::while_loop([](auto, auto v) { return sf::reduce_max(sf::abs(v)) > 1.f; },
                                          [](auto s, auto v) { return std::tuple{s + 1, v * 0.5f}; }, 0, x);
    auto powered = sf::fori_loop(0, n, [](auto i, auto v) { return v * 2.f + sf::cast<float>(i); }, x);
    auto [total, running] = sf::scan([](auto c, auto e) { return std::tuple{c + e, c * e}; }, 0.0f, x);
    return std::tuple{steps, halved, powered, total, running};
  });
  auto run_loops = exported("loops", loops);
  run_loops("n3", xt::xarray<float>{3.f, -9.f, 0.5f}, std::int32_t{3});
  run_loops("n0", xt::xarray<float>{0.25f, 0.5f}, std::int32_t{0});
}
}  // namespace onnx_runtime_test
