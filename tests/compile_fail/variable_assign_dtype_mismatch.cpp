// expect: staticflow: assign: the value is float32
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;
int main() {
  sf::variable<int> v{0};
  auto f = sf::function([&](auto x) { v.assign(x); });
  f(1.5f);
}
