// Tests for the forward axis-map kernel's runs (backend/cpu/data_movement.hpp: runs_of_rule, from
// graph::axis_rule::run_at's closed forms): for random rules of every form (strided with steps
// -3..3 and starts inside and outside the operand, wrapped, repeated, reflected, symmetric) the
// runs tile the row exactly, every element of every run reads what axis_rule::source says, and
// there are no more runs than the form has stretches.
#include <catch2/catch.hpp>

#include <cstddef>
#include <random>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;
using form = sf::graph::axis_rule::form;

namespace {
/// Every run expanded, element by element, against source(p); the runs must cover [0, m) in order.
std::size_t check_rule(const sf::graph::axis_rule& rule) {
  const sf::plan::arena_scope scratch;
  const auto [runs, count] = sf::cpu::detail::runs_of_rule(rule, rule.m);
  std::size_t p = 0, bad = 0;
  for (std::size_t r = 0; r < count; ++r) {
    if (runs[r].start != p || runs[r].length == 0) ++bad;
    for (std::size_t k = 0; k < runs[r].length; ++k, ++p) {
      const std::ptrdiff_t want = rule.source(p);
      const std::ptrdiff_t got = runs[r].source < 0 ? -1 : runs[r].source + static_cast<std::ptrdiff_t>(k) * runs[r].step;
      if (got != want) ++bad;
    }
  }
  // and as few runs as the form has stretches: a run cut short is right but slower
  const std::size_t most = rule.how == form::wrapped    ? rule.m / rule.n + 2
                           : rule.how == form::repeated ? rule.m / static_cast<std::size_t>(rule.a) + 1
                                                        : 3;  // before, inside, after the operand
  return bad + (p == rule.m ? 0 : 1) + (count <= most ? 0 : 1);
}
}  // namespace

TEST_CASE("forward runs read what the axis rule says, for every form", "[backend][data_movement]") {
  std::mt19937 rng(42);
  const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int round = 0; round < 4000; ++round) {
    sf::graph::axis_rule rule;
    const std::size_t n = static_cast<std::size_t>(pick(0, 9)), m = static_cast<std::size_t>(pick(0, 24));
    switch (pick(0, 4)) {
      case 0: rule = {form::strided, pick(-12, 12), pick(-3, 3), n, m}; break;  // slices, reverse, constant pads
      case 1: if (n == 0) continue; rule = {form::wrapped, pick(0, static_cast<int>(n) - 1), 1, n, m}; break;  // roll, tile
      case 2: rule = {form::repeated, pick(1, 4), 1, n, m}; break;
      case 3: if (n < 2) continue; rule = {form::reflected, pick(0, static_cast<int>(n) - 1), 1, n, m}; break;  // TF: pad < n
      default: if (n == 0) continue; rule = {form::symmetric, pick(0, static_cast<int>(n)), 1, n, m}; break;  // pad <= n
    }
    if (rule.how == form::repeated) rule.m = std::min(m, n * static_cast<std::size_t>(rule.a));
    if (rule.how == form::reflected || rule.how == form::symmetric) {  // the padding after is bounded as the one before
      const std::size_t limit = rule.how == form::reflected ? n - 1 : n;
      rule.m = std::min(m, static_cast<std::size_t>(rule.a) + n + limit);
    }
    INFO("form " << int(rule.how) << " a " << rule.a << " b " << rule.b << " n " << rule.n << " m " << rule.m);
    REQUIRE(check_rule(rule) == 0);
  }
}

TEST_CASE("a long slice is a handful of runs", "[backend][data_movement]") {
  const sf::plan::arena_scope scratch;
  const sf::graph::axis_rule slice{form::strided, 1, 1, 1u << 20, (1u << 20) - 2};
  CHECK(sf::cpu::detail::runs_of_rule(slice, slice.m).second == 1);
  const sf::graph::axis_rule padded{form::strided, -3, 1, 100, 106};  // 3 before, 3 after
  CHECK(sf::cpu::detail::runs_of_rule(padded, padded.m).second == 3);
  const sf::graph::axis_rule every_other{form::strided, 0, 2, 1000, 500};
  CHECK(sf::cpu::detail::runs_of_rule(every_other, every_other.m).second == 1);
}
