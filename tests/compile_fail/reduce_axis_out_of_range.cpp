// expect: static assertion failed: staticflow: axis out of range for the tensor's rank
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x) { return sf::reduce_sum(x, sf::axes<2>{}); });  // fix: sf::axes<1>{}
  auto& c = f.get_concrete_function(sf::spec<float, 2, 3>{});
  return c.graph_string().empty();
}
