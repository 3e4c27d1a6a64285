// expect: static assertion failed: staticflow: repeat: repeats must be an int32 or int64 tensor
// Float counts: tf.repeat takes integer repeats.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x, auto counts) {
    return sf::repeat(x, counts, sf::axes<0>{});  // fix: sf::cast<std::int32_t>(counts)
  });
  xt::xtensor_fixed<float, xt::xshape<3>> x{}, counts{1, 2, 0};
  auto y = f(x, counts);
  return static_cast<int>(y.size());
}
