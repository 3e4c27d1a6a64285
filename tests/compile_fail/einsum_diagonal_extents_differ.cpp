// expect: static assertion failed: staticflow: einsum: a label written twice in one operand names axes of different static extents
// "ii->i" takes a diagonal: label i cannot be both 2 and 3 (numpy raises; run-time extents throw sf::shape_error).
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto a) { return sf::einsum<"ii->i">(a); });  // fix: sf::linalg::diag_part(a) for a rectangle's diagonal
  auto& c = f.get_concrete_function(sf::spec<float, 2, 3>{});
  return c.graph_string().empty();
}
