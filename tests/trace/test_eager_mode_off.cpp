// Tests for trace/eager_mode.hpp with STATICFLOW_EAGER_MODE=0: no call site compiles an eager
// path, calls always run traced, and turning eager mode on is an error that changes nothing.
#define STATICFLOW_EAGER_MODE 0

#include <catch2/catch.hpp>

#include <xtensor/xarray.hpp>
#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

static_assert(!sf::eager_mode_compiled);

TEST_CASE("with STATICFLOW_EAGER_MODE=0 run_functions_eagerly(true) throws and calls stay traced", "[eager]") {
  int runs = 0;
  auto f = sf::function([&](auto x) {
    ++runs;
    return x * 2.f + 1.f;
  });
  static_assert(!decltype(f)::eager_path);
  const xt::xtensor<float, 1> x{1.f, 2.f, 3.f};
  CHECK((f(x) == xt::xtensor<float, 1>{3.f, 5.f, 7.f}));
  CHECK(runs == 1);

  CHECK_THROWS_MATCHES(sf::run_functions_eagerly(true), sf::trace_error,
                       Catch::Matchers::Message(
                           "staticflow: run_functions_eagerly(true) in a program compiled with STATICFLOW_EAGER_MODE=0: "
                           "calls always run traced (define STATICFLOW_EAGER_MODE=1, the default, to debug eagerly)"));
  CHECK(!sf::functions_run_eagerly());
  CHECK_THROWS_AS(sf::run_functions_eagerly_scope{}, sf::trace_error);
  CHECK(!sf::functions_run_eagerly());
  sf::run_functions_eagerly(false);  // allowed: it is already off
  CHECK(!sf::functions_run_eagerly());

  // Direct calls, call_into and dispatched calls (run-time rank) all use the traced function.
  xt::xtensor<float, 1> out = xt::zeros<float>({3});
  f.call_into(out, x);
  CHECK((out == xt::xtensor<float, 1>{3.f, 5.f, 7.f}));
  const xt::xarray<float> a = {{1.f, 2.f}, {3.f, 4.f}};
  CHECK((f(a) == xt::xarray<float>{{3.f, 5.f}, {7.f, 9.f}}));
  CHECK(runs == 2);
  CHECK(f.tracing_count() == 2);
  f(x);
  f(a);
  CHECK(runs == 2);
}
