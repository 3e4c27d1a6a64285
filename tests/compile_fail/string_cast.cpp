// expect: static assertion failed: staticflow: sf::cast does not convert strings and numbers
// sf::cast changes a number's dtype; strings are parsed and printed by the sf::strings ops.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto s) {
    return sf::cast<float>(s);  // fix: return sf::strings::to_number<float>(s);
  });
  (void)f("1.5");
}
