// expect: static assertion failed: staticflow: tensordot: an axis is out of range for its operand's rank
// Three axes of each matrix contracted: a matrix has two (one error, not one per later check).
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto a, auto b) {
    return sf::tensordot(a, b, sf::axes<0, 1, 2>{}, sf::axes<1, 0, 3>{});  // fix: sf::axes<0, 1>{}, sf::axes<1, 0>{}
  });
  auto& c = f.get_concrete_function(sf::spec<float, 2, 3>{}, sf::spec<float, 3, 2>{});
  return c.graph_string().empty();
}
