// expect: staticflow: sf::print takes symbolic tensors, variables, strings
#include <vector>
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;
int main() {
  auto f = sf::function([](auto x) { sf::print(std::vector<int>{1}, x); });
  f(1);
}
