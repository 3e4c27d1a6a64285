// expect: static assertion failed: staticflow: this sf::strings op needs a string tensor
// sf::strings::length counts the bytes of strings; a float tensor has none.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x) {
    return sf::strings::length(x);  // fix: return sf::strings::length(sf::strings::as_string(x));
  });
  return f(1.5f);
}
