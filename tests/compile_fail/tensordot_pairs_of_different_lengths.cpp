// expect: static assertion failed: staticflow: tensordot: a's and b's axis lists must have one length \(the pairs of contracted axes\)
// tf.tensordot(a, b, axes=[[1, 0], [0]]): two of a's axes paired with one of b's.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto a, auto b) {
    return sf::tensordot(a, b, sf::axes<1, 0>{}, sf::axes<0>{});  // fix: sf::axes<0, 1>{} for b
  });
  auto& c = f.get_concrete_function(sf::spec<float, 2, 3>{}, sf::spec<float, 3, 2>{});
  return c.graph_string().empty();
}
