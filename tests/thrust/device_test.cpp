// What only the Thrust backend has: device tensors and views, explicit transfers, choosing the
// backend per function and per call, the device arena, graphs and signatures on the device.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include <thrust/device_vector.h>

#include "suite_backend.hpp"

TEST_CASE("device: the issue's example, on views of thrust::device_vector", "[device]") {
  auto f = sf::function([](auto x, auto y) { return sf::tanh(x * x + y); }, sf::backend::thrust);
  const std::size_t n = 1000;
  thrust::device_vector<float> x(n, 2.f), y(n, 1.f);
  auto r = f(sf::device_view(x), sf::device_view(y));
  static_assert(std::is_same_v<decltype(r), sf::device_tensor<float, 1>>);
  r.block_until_ready();
  xt::xtensor<float, 1> h = r.to_host();
  REQUIRE(h.size() == n);
  CHECK(h(0) == std::tanh(5.f));
  CHECK(h(n - 1) == std::tanh(5.f));
  CHECK(f.pretty_printed_concrete_signatures() ==
        "Input Parameters:\n"
        "  arg0 (POSITIONAL_ONLY): TensorSpec(shape=(None,), dtype=tf.float32, name=None)\n"
        "  arg1 (POSITIONAL_ONLY): TensorSpec(shape=(None,), dtype=tf.float32, name=None)\n"
        "Output Type:\n"
        "  TensorSpec(shape=(None,), dtype=tf.float32, name=None)\n"
        "Captures:\n"
        "  None");
}

TEST_CASE("device: views with extents, const views, views of device tensors", "[device]") {
  thrust::device_vector<int> storage(6);
  for (int i = 0; i < 6; ++i) storage[i] = i + 1;
  const sf::device_view m(storage, sf::extents<2>{2, 3});
  static_assert(std::is_same_v<decltype(m), const sf::device_view<int, 2>>);
  CHECK((m.to_host() == xt::xtensor<int, 2>{{1, 2, 3}, {4, 5, 6}}));
  const thrust::device_vector<int>& cstorage = storage;
  const sf::device_view cv(cstorage);
  static_assert(std::is_same_v<decltype(cv), const sf::device_view<const int, 1>>);
  auto f = sf::function([](auto a, auto b) { return sf::reduce_sum(a, sf::axes<1>{}) + b; }, sf::backend::thrust);
  auto t = f(m, 100);
  CHECK((t.to_host() == xt::xtensor<int, 1>{106, 115}));
  CHECK_THROWS_WITH(sf::device_view(storage, sf::extents<2>{4, 2}),
                    "staticflow: device_view: 6 elements cannot have shape (4, 2)");
}

TEST_CASE("device: device arguments run a CPU function's call on the Thrust backend", "[device]") {
  auto f = sf::function([](auto x) { return x * 3.0; });  // the CPU backend by default
  const xt::xtensor<double, 1> h = {1, 2, 3};
  const auto on_cpu = f(h);
  const auto on_device = f(sf::to_device(h));
  static_assert(std::is_same_v<std::remove_const_t<decltype(on_device)>, sf::device_tensor<double, 1>>);
  CHECK((on_device.to_host() == on_cpu));
  const auto named = f(sf::backend::thrust, sf::to_device(h));
  CHECK((named.to_host() == on_cpu));
  CHECK(f.tracing_count() == 2);  // one graph per (backend, signature): the CPU one and the device one
  CHECK(f.explain_miss(sf::to_device(h)).empty());

  // and the other way: a Thrust function runs a host call on the CPU backend when told to
  auto g = sf::function([](auto x) { return x + 1; }, sf::backend::thrust);
  const xt::xtensor<int, 1> hi = {1, 2};
  CHECK((g(sf::backend::cpu, hi) == xt::xtensor<int, 1>{2, 3}));
  CHECK((g(sf::to_device(hi)).to_host() == xt::xtensor<int, 1>{2, 3}));
}

TEST_CASE("device: a steady stream of calls takes no new device buffers", "[device]") {
  auto f = sf::function([](auto x) { return sf::softmax(x) * sf::reduce_max(x); }, sf::backend::thrust);
  const auto x = sf::to_device(xt::xtensor<float, 2>{{1, 2}, {3, 4}});
  (void)f(x);
  const std::size_t blocks = sf::thrust_backend::device_arena::local().block_count();
  CHECK(blocks > 0);
  for (int i = 0; i < 5; ++i) (void)f(x);
  CHECK(sf::thrust_backend::device_arena::local().block_count() == blocks);
}

TEST_CASE("device: graphs, scalars and static values on the device", "[device]") {
  auto f = sf::function([](auto x, auto s, auto k) { return x * s + k.value; }, sf::backend::thrust);
  const auto x = sf::to_device(xt::xtensor<int, 1>{1, 2});
  const auto r = f(x, 10, sf::static_value<3>{});
  CHECK((r.to_host() == xt::xtensor<int, 1>{13, 23}));
  auto& c = f.get_concrete_function(x, 10, sf::static_value<3>{});
  CHECK(c.graph_string().find("Mul") != std::string::npos);
  CHECK(c.to_code() ==
        "auto fn(int32[None] a, int32[] b) {\n"  // a device tensor's extents are run-time ones
        "  auto d = a * b;  // int32[None]: fused into output 0\n"
        "  auto e = d + 3;  // int32[None]: fused into output 0\n"
        "  return e;\n"
        "}\n");
  CHECK(c.materialized_count == 0);
  CHECK(std::string(sf::thrust_backend::device_system_name()).size() > 0);
}
