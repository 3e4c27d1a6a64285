// expect: static assertion failed: staticflow: transpose's axes must be a permutation of 0 .. rank-1
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x) { return sf::transpose(x, sf::axes<0, 0>{}); });  // fix: sf::axes<1, 0>{}
  auto& c = f.get_concrete_function(sf::spec<float, 2, 3>{});
  return c.graph_string().empty();
}
