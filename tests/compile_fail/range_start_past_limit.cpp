// expect: static assertion failed: staticflow: range: start must be <= limit when delta > 0 and >= limit when delta < 0, as in TensorFlow
// A countdown with static bounds but the default step of +1.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;
using namespace sf::literals;

int main() {
  auto f = sf::function([](auto x) {
    return x * sf::range(5_c, 0_c);  // fix: sf::range(5_c, 0_c, sf::static_value<-1>{})
  });
  xt::xtensor_fixed<std::int32_t, xt::xshape<5>> x{};
  auto y = f(x);
  return static_cast<int>(y(0));
}
