// expect: static assertion failed: staticflow: reshape to a shape of another size
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x) { return sf::reshape<sf::shape<4>>(x); });  // fix: sf::shape<6>
  auto& c = f.get_concrete_function(sf::spec<int, 2, 3>{});
  return c.graph_string().empty();
}
