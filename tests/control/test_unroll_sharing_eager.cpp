// Tests for control/fori_loop.hpp's unrolling with shared steps in an eager call (issue 25): each
// step a body reads more than once is evaluated on the spot, as TensorFlow runs an eager loop.
#include <catch2/catch.hpp>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

namespace {
constexpr auto square_plus = [](auto, auto v) { return v * v + v; };
}  // namespace

TEST_CASE("an unrolled loop in an eager call evaluates each shared step on the spot", "[fori_loop][unroll][eager]") {
  auto unrolled = sf::function([](auto x) { return sf::fori_loop(sf::static_value<0>{}, sf::static_value<16>{}, square_plus, x); });
  const xt::xtensor<double, 1> x = {-0.75, -0.5, 0.0};
  const xt::xtensor<double, 1> traced = unrolled(x);
  sf::run_functions_eagerly(true);
  const xt::xtensor<double, 1> eager = unrolled(x);
  sf::run_functions_eagerly(false);
  for (std::size_t i = 0; i < x.size(); ++i) CHECK(eager[i] == Approx(traced[i]).epsilon(1e-12).margin(1e-300));
}

