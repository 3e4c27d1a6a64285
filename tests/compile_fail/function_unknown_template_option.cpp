// expect: static assertion failed: staticflow: sf::function<...> takes sf::spec<...> \(the input signature\), sf::specialize<...>, sf::dtypes<...> and sf::ranks<...>
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto h = sf::function<sf::shape<4>>([](auto x) { return x; });  // fix: sf::function<sf::specialize<sf::shape<4>>>
  (void)h;
}
