// expect: static assertion failed: staticflow: sf::shapes<...> takes one sf::shape<...> per argument
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function<sf::specialize<sf::shapes<sf::shape<4>, int>>>([](auto x, auto y) { return x + y; });  // fix: sf::shape<> for int
  (void)f;
}
