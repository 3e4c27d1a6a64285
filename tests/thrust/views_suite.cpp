// Slices read where they lie (plan/slot_views.hpp: a contiguous stretch of an argument or a plain
// slot is a view, not a copy) on the suite's backend against the CPU backend in the same build
// (against_cpu.hpp): a shifted-slice stencil, rows, a stretch of a row, columns (still a copy), a
// slot's rows, an empty slice, reshape / expand_dims / squeeze / split pieces / the one-axis slice,
// and a loop variable's slices. (Not named test_*.cpp: tests/thrust's
// own CMakeLists builds it into each suite; its own file keeps each suite TU under 2 GB.)
#include "against_cpu.hpp"

using namespace against_cpu;

TEST_CASE("suite: slices read where they lie (plan/slot_views.hpp) agree with the CPU backend", "[suite][slot_views]") {
  const auto u = random<1>({37});
  check_against_cpu([](auto x) {  // a shifted-slice stencil: three views of x in one loop
    const auto mid = x(sf::span(1, -1));
    return mid + 0.1 * (x(sf::span(2, sf::none)) - 2.0 * mid + x(sf::span(sf::none, -2)));
  }, u);
  const auto m = random<2>({5, 4});
  check_against_cpu([](auto x) {
    return std::tuple{x(sf::span(1, 3)) * 2.0,                                                // rows: a view
                      sf::strided_slice(x, sf::axes<0, 1>{}, sf::span(2, 3), sf::span(1, 3)) + 1.0,  // a stretch of a row
                      x(sf::whole, sf::span(1, 3)) * 1.0,                                      // columns: a copy
                      sf::matmul(x, sf::transpose(x))(sf::span(-2, sf::none)) * 1.0,           // a slot's rows
                      x(sf::span(4, 4)) * 1.0};                                                // none
  }, m);
  check_against_cpu([](auto x) {  // shape ops that keep the order, split pieces, the one-axis slice
    const auto [top, bottom] = sf::split<2>(sf::reshape<sf::shape<sf::dyn, 2>>(x(sf::span(1, sf::none))), sf::axes<0>{});
    return std::tuple{sf::expand_dims(sf::squeeze(sf::expand_dims(top, sf::axes<0>{}), sf::axes<0>{}), sf::axes<-1>{}) * 3.0,
                      bottom - top, sf::slice(x, sf::axes<0>{}, 2, 5) * 1.0};
  }, u);
  check_against_cpu([](auto x) {  // a loop variable's slices, ends kept
    return sf::fori_loop(0, 5, [](auto, auto v) {
      const auto mid = v(sf::span(1, -1));
      return sf::concat<0>(v(sf::span(sf::none, 1)), mid + 0.25 * (v(sf::span(2, sf::none)) - 2.0 * mid + v(sf::span(sf::none, -2))),
                           v(sf::span(-1, sf::none)));
    }, x);
  }, u);
}
