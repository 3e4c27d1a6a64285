// expect: static assertion failed: staticflow: tensordot: a pair of contracted axes has different static extents
// a's axis 1 (3) paired with b's axis 1 (2).
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto a, auto b) {
    return sf::tensordot(a, b, sf::axes<1>{}, sf::axes<1>{});  // fix: sf::axes<0>{} for b
  });
  auto& c = f.get_concrete_function(sf::spec<float, 2, 3>{}, sf::spec<float, 3, 2>{});
  return c.graph_string().empty();
}
