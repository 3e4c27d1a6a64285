// expect: static assertion failed: staticflow: repeat: repeats must have one count per element of the axis, or one
// Three counts for an axis of four rows: tf.repeat needs one count per element (or a single one).
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x, auto counts) {
    return sf::repeat(x, counts, sf::axes<0>{});  // fix: four counts, one per row of x
  });
  xt::xtensor_fixed<float, xt::xshape<4, 2>> x{};
  xt::xtensor_fixed<std::int32_t, xt::xshape<3>> counts{1, 2, 0};
  auto y = f(x, counts);
  return static_cast<int>(y.size());
}
