// expect: static assertion failed: staticflow: einsum: a label has different static extents in two operands \(neither is 1\)
// Label j is 3 in the first operand and 4 in the second, both known at compile time.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto a, auto b) { return sf::einsum<"ij,jk->ik">(a, b); });
  auto& c = f.get_concrete_function(sf::spec<float, 2, 3>{}, sf::spec<float, 4, 2>{});  // fix: sf::spec<float, 3, 2>{}
  return c.graph_string().empty();
}
