// The row loop (an argument broadcasts) with no rows: an outer extent of 0 with a non-zero last
// extent is ordinary input (it divided by the zero extent: SIGFPE, found by a served batch of 0).
#include <catch2/catch.hpp>

#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

TEST_CASE("row loop: zero rows broadcast against a row, reduced, or read from a variable", "[cpu][empty]") {
  auto add_row = sf::function<sf::spec<float, sf::dyn, 3>, sf::spec<float, 3>>([](auto x, auto b) { return x + b; });
  auto row_sums = sf::function<sf::spec<float, sf::dyn, 3>, sf::spec<float, 3>>(
      [](auto x, auto w) { return sf::reduce_sum(x * w, sf::axes<1>{}); });
  sf::variable<float, 3> w{{1.f, 2.f, 3.f}};
  auto weighted = sf::function<sf::spec<float, sf::dyn, sf::dyn, 3>>([&](auto x) { return x * w + 1.f; });
  const xt::xtensor<float, 1> b{1.f, 2.f, 3.f};

  for (const std::size_t rows : {std::size_t(0), std::size_t(1), std::size_t(5)}) {
    xt::xtensor<float, 2> x = xt::ones<float>({rows, std::size_t(3)});
    const xt::xtensor<float, 2> sum = add_row(x, b);
    CHECK(sum.shape()[0] == rows);
    CHECK(sum == xt::xtensor<float, 2>(x + b));
    const xt::xtensor<float, 1> r = row_sums(x, b);
    CHECK(r.shape()[0] == rows);
    CHECK(xt::all(xt::equal(r, 6.f)));
    for (const std::size_t middle : {std::size_t(0), std::size_t(2)}) {
      xt::xtensor<float, 3> x3 = xt::ones<float>({rows, middle, std::size_t(3)});
      const xt::xtensor<float, 3> y = weighted(x3);
      CHECK(y.size() == rows * middle * 3);
      if (y.size() > 0) CHECK(y(0, 0, 2) == 4.f);
    }
  }
}
