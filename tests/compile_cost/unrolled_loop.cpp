// Programs whose compile cost tests/compile_cost/run_compile_cost.py measures (issue 25): a value
// read several times at each of TRIPS levels (1, 2: an unrolled sf::fori_loop; 3: no loop).
//   PROGRAM=1: the int32 [1, 8] body ((v * 3) + where(reduce_all(v <= -1, ...), v, v)) % 1000
//   PROGRAM=2: x = x * x + x over float32
//   PROGRAM=3: no loop: v = v * v + v written TRIPS levels deep by a template over a reduction, so
//              the reduction is read 3^TRIPS times (each read its own slot, all equal)
//   PROGRAM=4: the gradient of reduce_sum(x = x * x + x unrolled TRIPS times) with respect to x
//              (each step is read three times: the reverse walk must meet it once, not 3^steps times)
//   PROGRAM=5: the gradient of program 3 with respect to x (the reduction read 3^TRIPS times)
//   PROGRAM=6: program 3 with each level stored (sf::materialize) and a static literal: every
//              level is a materialized node whose type says its values, read three times
//   PROGRAM=7: program 3 with a static literal and nothing stored by hand: every level's type says
//              its values, and the planner stores a level whose fused tree passes its budget
//   PROGRAM=8: the elementwise float body v * 0.5 + tanh(-maximum(v, v)) unrolled over
//              broadcast_to(reduce_min(a)) (past 5 GB at 4 trips before the steps were shared)
#include <cstdio>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

template <int K, class V>
auto chain(const V& v) {
  if constexpr (K == 0) return v;
  else return chain<K - 1>(v * v + v);
}

template <int K, class V>
auto stored_chain(const V& v) {
  if constexpr (K == 0) return v;
  else return stored_chain<K - 1>(sf::materialize(v * v + v));
}

int main() {
#if PROGRAM == 1
  auto f = sf::function([](auto x) {
    return sf::fori_loop(sf::static_value<0>{}, sf::static_value<TRIPS>{}, [](auto, auto v) {
      return ((v * 3) + sf::where(sf::reduce_all(v <= -1, sf::axes<0>{}, sf::keepdims), v, v)) % 1000;
    }, x);
  });
  xt::xtensor_fixed<std::int32_t, xt::xshape<1, 8>> x = {{1, 2, 3, 4, 5, 6, 7, 8}};
  const auto y = f(x);
  std::printf("%d\n", int(y(0, 0)));
#elif PROGRAM == 3
  auto f = sf::function([](auto x) { return chain<TRIPS>(sf::reduce_sum(x, sf::axes<0>{}, sf::keepdims) * 0.001f); });
  xt::xtensor<float, 1> x = {-0.5f, -0.25f};
  const xt::xtensor<float, 1> y = f(x);
  std::printf("%g\n", double(y[0]));
#elif PROGRAM == 6
  auto f = sf::function([](auto x) {
    return stored_chain<TRIPS>(sf::reduce_sum(x, sf::axes<0>{}, sf::keepdims) * sf::static_value<0.001f>{});
  });
  xt::xtensor<float, 1> x = {-0.5f, -0.25f};
  const xt::xtensor<float, 1> y = f(x);
  std::printf("%g\n", double(y[0]));
#elif PROGRAM == 7
  auto f = sf::function([](auto x) {
    return chain<TRIPS>(sf::reduce_sum(x, sf::axes<0>{}, sf::keepdims) * sf::static_value<0.001f>{});
  });
  xt::xtensor<float, 1> x = {-0.5f, -0.25f};
  const xt::xtensor<float, 1> y = f(x);
  std::printf("%g\n", double(y[0]));
#elif PROGRAM == 8
  auto f = sf::function([](auto a) {
    return sf::fori_loop(sf::static_value<0>{}, sf::static_value<TRIPS>{}, [](auto, auto v) {
      return (v * 0.5f) + sf::tanh(-sf::maximum(v, v));
    }, sf::broadcast_to<sf::shape<3, 5>>(sf::reduce_min(a)));
  });
  const xt::xtensor_fixed<float, xt::xshape<3, 5>> a = xt::ones<float>({3, 5});
  const auto y = f(a);
  std::printf("%g\n", double(y(0, 0)));
#elif PROGRAM == 5
  auto f = sf::function([](auto x) {
    return sf::gradients(sf::reduce_sum(chain<TRIPS>(sf::reduce_sum(x, sf::axes<0>{}, sf::keepdims) * 0.001)), x);
  });
  xt::xtensor<double, 1> x = {-0.5, -0.25};
  const xt::xtensor<double, 1> g = f(x);
  std::printf("%.17g %.17g\n", g[0], g[1]);
#elif PROGRAM == 4
  auto f = sf::function([](auto x) {
    const auto y = sf::fori_loop(sf::static_value<0>{}, sf::static_value<TRIPS>{}, [](auto, auto v) { return v * v + v; }, x);
    return sf::gradients(sf::reduce_sum(y), x);
  });
  xt::xtensor<double, 1> x = {-0.5, -0.25};
  const xt::xtensor<double, 1> g = f(x);
  std::printf("%.17g %.17g\n", g[0], g[1]);
#else
  auto f = sf::function([](auto x) {
    return sf::fori_loop(sf::static_value<0>{}, sf::static_value<TRIPS>{}, [](auto, auto v) { return v * v + v; }, x);
  });
  xt::xtensor<float, 1> x = {-0.5f, -0.25f};
  const xt::xtensor<float, 1> y = f(x);
  std::printf("%g\n", double(y[0]));
#endif
  return 0;
}
