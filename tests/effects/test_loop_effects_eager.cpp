// Effects in loop bodies in eager mode (effects/loop_statement.hpp): they act as the iterations
// run. A TU of its own: the traced cases (test_loop_effects*.cpp) compile without eager mode.
// staticflow-test: loop effects (built with STATICFLOW_LOOP_EFFECTS=1, the default; tests/CMakeLists.txt)
#include <catch2/catch.hpp>

#include <cstdint>
#include <sstream>
#include <tuple>

#include <xtensor/xfixed.hpp>
#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

TEST_CASE("in eager mode a loop's effects act as its iterations run", "[loop][effects][eager]") {
  sf::variable<int> total{0};
  std::ostringstream printed;
  auto f = sf::function([&](auto n) {
    auto countdown = sf::while_loop([](auto k) { return k > 0; },
                                    [&](auto k) {
                                      total.assign_add(k);
                                      sf::print(sf::output_stream(printed), "k", k);
                                      return k - 1;
                                    },
                                    n);
    sf::print(sf::output_stream(printed), "total", total);
    return countdown;
  });
  const sf::run_functions_eagerly_scope eagerly(true);
  CHECK(f(3) == 0);
  CHECK(total.value() == 6);
  CHECK(printed.str() == "k 3\nk 2\nk 1\ntotal 6\n");
  CHECK(f.tracing_count() == 0);
}
