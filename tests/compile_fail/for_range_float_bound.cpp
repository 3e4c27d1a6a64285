// expect: staticflow: sf::for_range: the bounds must be
// sf::for_range counts with integers (tf.range's int bounds); fix: sf::cast<int>(n).
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;
int main() {
  sf::variable<float> v{0.f};
  auto f = sf::function([&](auto n) { sf::for_range(n, [&](auto i) { v.assign_add(sf::cast<float>(i)); }); });
  f(2.5f);
}
