// expect: staticflow: sf::print takes symbolic tensors, variables, strings
// sf::print prints tensors, variables, strings and numbers as tf.print does; fix: print the container's elements through sf::constant.
#include <vector>
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;
int main() {
  auto f = sf::function([](auto x) { sf::print(std::vector<int>{1}, x); });
  f(1);
}
