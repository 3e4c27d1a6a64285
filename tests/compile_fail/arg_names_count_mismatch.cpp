// expect: staticflow: sf::arg_names gives 2 names, the input signature has 1 argument
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto h = sf::function<sf::spec<float, sf::dyn>>([](auto x) { return x; }, sf::arg_names("x", "y"));  // fix: sf::arg_names("x")
  (void)h;
}
