// expect: static assertion failed: staticflow: einsum: an output label appears in no operand
// The output names k, which neither operand has.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto a, auto b) { return sf::einsum<"ij,j->k">(a, b); });  // fix: sf::einsum<"ij,j->i">
  auto& c = f.get_concrete_function(sf::spec<float, 2, 3>{}, sf::spec<float, 3>{});
  return c.graph_string().empty();
}
