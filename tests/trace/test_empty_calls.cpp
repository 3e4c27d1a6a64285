// Size-0 arguments through every way in: input signatures with dyn dims, run-time ranks
// (xt::xarray) and dtypes (sf::tensor), call_into, eager mode (STATICFLOW_EAGER_MODE stays on:
// run_functions_eagerly is used here), zero-trip loops, scan / map_fn over nothing, tensor arrays
// never written, threads over empty outer dims.
#include <catch2/catch.hpp>

#include <cstdint>

#include <xtensor/xarray.hpp>
#include <xtensor/xfixed.hpp>
#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

TEST_CASE("empty calls: signatures, run-time ranks and dtypes, call_into", "[empty]") {
  auto f = sf::function<sf::spec<float, sf::dyn>>([](auto x) { return sf::exp(x); });
  CHECK(f(xt::xtensor<float, 1>::from_shape({0})).size() == 0);
  auto g = sf::function<sf::ranks<1, 2>>([](auto x) { return x + 1.f; });
  const xt::xarray<float> a = xt::xarray<float>::from_shape({0, 3});
  const xt::xarray<float> ga = g(a);
  CHECK(ga.dimension() == 2);
  CHECK(ga.size() == 0);
  const sf::tensor t = g(sf::tensor::zeros<float>({0}));
  CHECK(t.rank() == 1);
  CHECK(t.size() == 0);
  xt::xtensor<float, 2> out = xt::xtensor<float, 2>::from_shape({0, 3});
  auto h = sf::function([](auto x) { return x * 2.f; });
  h.call_into(out, xt::xtensor<float, 2>::from_shape({0, 3}));
  CHECK(out.size() == 0);
}

TEST_CASE("empty calls: eager mode gives the traced results and errors", "[empty][eager]") {
  auto sums = sf::function([](auto x) { return sf::reduce_sum(x * 2.f, sf::axes<0>{}); });
  auto arg = sf::function([](auto x) { return sf::argmax(x, sf::axes<0>{}); });
  const xt::xtensor<float, 2> rows0 = xt::xtensor<float, 2>::from_shape({0, 2});
  sf::run_functions_eagerly(true);
  const xt::xtensor<float, 1> eager = sums(rows0);
  std::string eager_error;
  try {
    arg(rows0);
  } catch (const sf::shape_error& e) {
    eager_error = e.what();
  }
  sf::run_functions_eagerly(false);
  CHECK(eager == xt::xtensor<float, 1>{0.f, 0.f});
  CHECK((sums(rows0) == eager));
  CHECK(eager_error == "staticflow: argmax: axis 0 is empty in shape (0, 2)");
  CHECK_THROWS_WITH(arg(rows0), eager_error);
}

TEST_CASE("empty calls: zero-trip loops and map_fn over nothing", "[empty][control]") {
  const xt::xtensor<float, 2> rows0 = xt::xtensor<float, 2>::from_shape({0, 4});
  auto w = sf::function([](auto x) {
    return sf::while_loop([](auto i, auto) { return i < 0; }, [](auto i, auto v) { return std::tuple{i + 1, v * 2.f}; }, 0, x);
  });
  const auto [i, v] = w(rows0);
  CHECK(i == 0);
  CHECK(v.size() == 0);
  auto fl = sf::function([](auto x, auto n) { return sf::fori_loop(0, n, [](auto, auto u) { return u + 1.f; }, x); });
  const xt::xtensor<float, 1> one{5.f};
  CHECK((fl(one, 0) == one));  // zero trips: the initial value
  CHECK(fl(rows0, 3).size() == 0);
  auto sums = sf::function([](auto xs) { return sf::map_fn([](auto r) { return sf::reduce_sum(r); }, xs); });
  CHECK(sums(rows0).size() == 0);
  const xt::xtensor_fixed<float, xt::xshape<0, 4>> static_rows0;
  auto doubled = sf::function([](auto xs) { return sf::map_fn([](auto r) { return r * 2.f; }, xs); });
  CHECK(doubled(static_rows0).size() == 0);
}

TEST_CASE("empty calls: scan over nothing, a tensor array never written, threaded loops over nothing", "[empty][control]") {
  auto running_sums = sf::function<sf::spec<float, sf::dyn, 4>, sf::spec<float, 4>>(
      [](auto xs, auto init) { return sf::scan([](auto c, auto x) { return std::tuple{c + x, c * 2.f}; }, init, xs); });
  const xt::xtensor<float, 1> init{1.f, 2.f, 3.f, 4.f};
  const auto [carry, ys] = running_sums(xt::xtensor<float, 2>::from_shape({0, 4}), init);
  CHECK((carry == init));  // no steps: the initial carry
  CHECK(ys.shape()[0] == 0);
  CHECK(ys.shape()[1] == 4);  // the element shape is static: (0, 4), as lax.scan gives
  auto never_written = sf::function([](auto n) {
    return sf::fori_loop(0, n, [](auto i, auto ta) { return ta.write(i, sf::cast<float>(i)); }, sf::tensor_array<float>{}).stack();
  });
  CHECK(never_written(0).size() == 0);
  CHECK((never_written(3) == xt::xtensor<float, 1>{0.f, 1.f, 2.f}));

  sf::set_num_threads(2);
  auto big = sf::function([](auto x, auto b) { return sf::exp(x + b); });
  CHECK(big(xt::xtensor<float, 3>::from_shape({0, 300, 300}), xt::xtensor<float, 1>(xt::zeros<float>({300}))).size() == 0);
  auto sums = sf::function([](auto x) { return sf::reduce_sum(x, sf::axes<1>{}); });
  const xt::xtensor<float, 1> zeros = sums(xt::xtensor<float, 2>::from_shape({100000, 0}));
  CHECK(zeros.size() == 100000);
  CHECK(xt::all(xt::equal(zeros, 0.f)));
  sf::set_num_threads(1);  // the default again
}
