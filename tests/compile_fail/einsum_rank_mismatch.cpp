// expect: static assertion failed: staticflow: einsum: an operand's rank differs from its number of labels
// "ij,jk->ik" names two axes of each operand; the first operand here has three.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto a, auto b) { return sf::einsum<"ij,jk->ik">(a, b); });  // fix: sf::einsum<"bij,jk->bik">
  auto& c = f.get_concrete_function(sf::spec<float, 2, 2, 3>{}, sf::spec<float, 3, 2>{});
  return c.graph_string().empty();
}
