// expect: static assertion failed: staticflow: matmul inner dimensions differ
// (2, 3) x (2, 3): the contracted dimensions 3 and 2 differ, known at compile time.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto a, auto b) { return sf::matmul(a, b); });
  auto& c = f.get_concrete_function(sf::spec<float, 2, 3>{}, sf::spec<float, 2, 3>{});  // fix: sf::spec<float, 3, 2>{}
  return c.graph_string().empty();
}
