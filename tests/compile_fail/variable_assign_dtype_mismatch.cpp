// expect: staticflow: assign: the value is float32
// A variable keeps its dtype; fix: v.assign(sf::cast<int>(x)).
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;
int main() {
  sf::variable<int> v{0};
  auto f = sf::function([&](auto x) { v.assign(x); });
  f(1.5f);
}
